#!/usr/bin/env node
// Summarises the elephant/mice experiment (docs/experiments/elephant-mice/): for each class (lossy,
// lossless) and variant (off, scheduling, adaptive), the mice's FCT percentiles, retransmissions and the
// fabric's drops, the elephants' goodput, and the switch's elephant and adaptive-buffer counters; writes
// results.json and two bar charts (vega-lite, rendered by rocelab's own plotting) next to the runs.
//
//   npm run build && node scripts/run-experiments.mjs elephant-mice/   # the six runs, then this script

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { baseConfig, SCHEMA, title } from "../dist/report/plot-kit.js";
import { renderSvg } from "../dist/report/plots.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = join(root, "docs", "experiments", "elephant-mice");
const CLASSES = ["lossy", "lossless"];
const VARIANTS = ["off", "scheduling", "adaptive"];

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const rows = [];
for (const cls of CLASSES) {
  for (const variant of VARIANTS) {
    const r = JSON.parse(readFileSync(join(dir, `${cls}-${variant}`, "report.json"), "utf8"));
    const mice = r.flows.filter((f) => f.workload === "mice");
    const elephants = r.flows.filter((f) => f.workload === "elephant");
    const fct = mice
      .filter((f) => f.fctNs !== null)
      .map((f) => f.fctNs)
      .sort((a, b) => a - b);
    const done = elephants.filter((f) => f.fctNs !== null);
    const sw = (name) =>
      Object.values(r.devices).reduce((a, d) => a + (d.kind === "switch" ? (d.counters[name] ?? 0) : 0), 0);
    rows.push({
      class: cls,
      variant,
      miceCompleted: fct.length,
      mice: mice.length,
      miceFctP50Ns: percentile(fct, 0.5),
      miceFctP99Ns: percentile(fct, 0.99),
      miceRetransmits: mice.reduce((a, f) => a + f.retransmits, 0),
      elephantsCompleted: done.length,
      elephants: elephants.length,
      elephantGoodputGbps: done.length ? done.reduce((a, f) => a + f.goodputBps, 0) / done.length / 1e9 : 0,
      elephantRetransmits: elephants.reduce((a, f) => a + f.retransmits, 0),
      dropsLossy: r.summary.drops.lossy,
      dropsLossless: r.summary.drops.lossless,
      dropEgressLimit: sw("drop_egress_limit"),
      dropYellow: sw("drop_yellow"),
      dropAdaptiveWred: sw("drop_adaptive_wred"),
      pauseFramesTx: r.summary.pauseFramesTx,
      elephantsDetected: sw("elephant_flows_detected"),
      adaptiveChanges: sw("adaptive_buffer_changes"),
    });
  }
}
writeFileSync(join(dir, "results.json"), `${JSON.stringify(rows, null, 2)}\n`);

function bars(field, yTitle, text, sub) {
  return {
    $schema: SCHEMA,
    config: baseConfig(),
    title: title(text, sub),
    data: { values: rows.map((r) => ({ ...r, v: field(r) })) },
    mark: { type: "bar" },
    encoding: {
      column: { field: "class", type: "nominal", title: null, sort: CLASSES },
      x: { field: "variant", type: "nominal", title: null, sort: VARIANTS },
      y: { field: "v", type: "quantitative", title: yTitle },
      color: { field: "variant", type: "nominal", sort: VARIANTS, legend: null },
    },
    width: 200,
    height: 220,
  };
}

const sub =
  "mice h1-h3 -> h5 8 KB every 10 µs; elephants h6, h7 -> h5 2 MB every 1 ms; 2 MB buffer; DCQCN off (lossless) / on (lossy)";
const charts = [
  [
    "mice-fct-p99.svg",
    bars((r) => r.miceFctP99Ns / 1e3, "mice FCT p99 (µs)", "Mice FCT p99 by variant", sub),
  ],
  [
    "elephant-goodput.svg",
    bars(
      (r) => r.elephantGoodputGbps,
      "elephant goodput per flow (Gb/s)",
      "Elephant goodput by variant",
      sub,
    ),
  ],
  [
    "drops.svg",
    bars((r) => r.dropsLossy + r.dropsLossless, "packets dropped (all switches)", "Drops by variant", sub),
  ],
];
for (const [file, spec] of charts) writeFileSync(join(dir, file), `${await renderSvg(spec)}\n`);
for (const r of rows) {
  console.log(
    `${r.class.padEnd(9)} ${r.variant.padEnd(11)} mice p50 ${(r.miceFctP50Ns / 1e3).toFixed(1)} µs p99 ${(r.miceFctP99Ns / 1e3).toFixed(1)} µs rtx ${r.miceRetransmits}; elephants ${r.elephantsCompleted}/${r.elephants} ${r.elephantGoodputGbps.toFixed(1)} Gb/s rtx ${r.elephantRetransmits}; drops ${r.dropsLossy + r.dropsLossless} (yellow ${r.dropYellow}, adaptive ${r.dropAdaptiveWred}); pauses ${r.pauseFramesTx}`,
  );
}
