#!/usr/bin/env node
// The path-navigation experiment's comparison: reads the simulator reports under
// docs/experiments/path-navigation/{perm,ring,fail}-{ecmp,network,host}/ (generated, not committed:
// `node scripts/run-experiments.mjs path-navigation/` runs them and then this), prints the markdown table
// of docs/path-navigation.md and writes results.json and the SVG charts next to them (needs dist/: npm
// run build).
//
//   JCT                 last completion − first post, over every flow of the workload
//   link utilisation    tx bytes × 8 / (100 Gb/s × JCT) of each switch-to-switch direction that carried
//                       at least 64 KB; max, mean and max/mean (1.0 = perfectly even)
//   retransmits         packets resent (go-back-N), summed over the flows
//   recovery (fail-*)   for the flows the failure hurt (goodput, averaged over 8 µs, below half its average
//                       of the 10 µs before the failure, within 20 µs after it), the longest time from the
//                       failure until such a flow is back at 80 % of that average (or finished)

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = join(root, "docs", "experiments", "path-navigation");
const { loadTopology } = await import(join(root, "dist", "scenario", "topology-file.js"));
const { renderSvg } = await import(join(root, "dist", "report", "plots.js"));
const { thinLines } = await import(join(root, "dist", "report", "plot-kit.js"));

const CASES = { perm: "permutation", ring: "ring all-reduce", fail: "permutation + spine link failure" };
const SCHEMES = {
  ecmp: "ECMP",
  network: "path-nav network",
  "network-ideal": "path-nav network, no write costs",
  host: "path-nav host",
};
const FAIL_NS = 40_000;
const RATE = 100e9;

const topo = loadTopology(join(dir, "fabric-4x4.yaml"));
const kind = new Map(topo.nodes.map((n) => [n.name, n.kind]));
const fabricPorts = [];
for (const l of topo.links) {
  if (kind.get(l.a.node) === "switch" && kind.get(l.b.node) === "switch") {
    fabricPorts.push([l.a.node, `eth${l.a.port}`], [l.b.node, `eth${l.b.port}`]);
  }
}

/** flow-rate.csv as a regular 2 µs grid per flow (the file lists a flow's value when it changes). */
const SAMPLE_NS = 2_000;
function flowSeries(csv) {
  const rows = new Map();
  let last = 0;
  for (const line of csv.trim().split("\n").slice(1)) {
    const [t, host, qpn, bps] = line.split(",");
    const key = `${host}#${qpn}`;
    if (!rows.has(key)) rows.set(key, []);
    rows.get(key).push([Number(t), Number(bps)]);
    last = Math.max(last, Number(t));
  }
  const grid = new Map();
  for (const [key, list] of rows) {
    const out = [];
    let i = 0;
    for (let t = list[0][0]; t <= last; t += SAMPLE_NS) {
      while (i + 1 < list.length && list[i + 1][0] <= t) i++;
      out.push([t, list[i][1]]);
    }
    grid.set(key, out);
  }
  return grid;
}

/** Goodput averaged over the SMOOTH_NS before each sample (acknowledgements arrive in bursts). */
const SMOOTH_NS = 8_000;
function smoothed(points) {
  return points.map(([t]) => {
    const w = points.filter(([u]) => u > t - SMOOTH_NS && u <= t);
    return [t, w.reduce((a, [, v]) => a + v, 0) / w.length];
  });
}

function recovery(run, report) {
  const series = flowSeries(readFileSync(join(dir, run, "flow-rate.csv"), "utf8"));
  const ends = new Map(report.flows.map((f) => [`${f.src}#${f.qp}`, f.endNs ?? Number.POSITIVE_INFINITY]));
  let worst = 0;
  let hurt = 0;
  for (const [key, raw] of series) {
    const end = ends.get(key);
    if (end === undefined || end <= FAIL_NS) continue;
    const points = smoothed(raw);
    const before = raw.filter(([t]) => t > FAIL_NS - 10_000 && t <= FAIL_NS);
    const avg = before.reduce((a, [, v]) => a + v, 0) / Math.max(1, before.length);
    if (avg <= 0) continue;
    const dip = points.find(([t, v]) => t > FAIL_NS && t <= FAIL_NS + 20_000 && t < end && v < avg / 2);
    if (dip === undefined) continue;
    hurt++;
    const back = points.find(([t, v]) => t > dip[0] && v >= 0.8 * avg);
    worst = Math.max(worst, Math.min(back ? back[0] : Number.POSITIVE_INFINITY, end) - FAIL_NS);
  }
  return { hurt, recoveryNs: worst };
}

const results = [];
for (const c of Object.keys(CASES)) {
  for (const s of Object.keys(SCHEMES)) {
    const run = `${c}-${s}`;
    if (!existsSync(join(dir, run, "report.json"))) continue; // network-ideal: the failure case only
    const report = JSON.parse(readFileSync(join(dir, run, "report.json"), "utf8"));
    const done = report.flows.filter((f) => f.endNs !== null);
    const start = Math.min(...report.flows.map((f) => f.startNs));
    const complete = done.length === report.flows.length;
    const jctNs = complete ? Math.max(...done.map((f) => f.endNs)) - start : null;
    const window = jctNs ?? report.durationNs - start;
    const utils = fabricPorts
      .map(([sw, port]) => report.devices[sw].ports[port].tx_bytes)
      .filter((b) => b >= 65_536)
      .map((b) => (b * 8) / (RATE * (window / 1e9)));
    const max = Math.max(...utils);
    const mean = utils.reduce((a, b) => a + b, 0) / utils.length;
    let nav = null;
    try {
      nav = JSON.parse(readFileSync(join(dir, run, "path-navigation.json"), "utf8"));
    } catch {}
    results.push({
      case: c,
      scheme: s,
      flows: report.flows.length,
      completed: done.length,
      jctNs,
      maxUtil: max,
      meanUtil: mean,
      balance: max / mean,
      linksUsed: utils.length,
      retransmits: report.summary.retransmits,
      ...(c === "fail" ? recovery(run, report) : {}),
      ...(nav
        ? {
            plans: nav.plans.map((p) => ({
              atNs: p.atNs,
              reason: p.reason,
              maxLoad: p.maxLoad,
              changes: p.sourcePortChanges,
              entries: p.entries,
            })),
          }
        : {}),
    });
  }
}
writeFileSync(join(dir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);

const us = (ns) => (ns === null ? "—" : `${(ns / 1e3).toFixed(1)} µs`);
const lines = [
  "| case | scheme | flows done | JCT | max util | mean util | max/mean | links used | retransmits | hurt flows | recovery |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
];
for (const r of results) {
  lines.push(
    `| ${CASES[r.case]} | ${SCHEMES[r.scheme]} | ${r.completed}/${r.flows} | ${r.jctNs === null ? "not done in 1 ms" : us(r.jctNs)} | ${(100 * r.maxUtil).toFixed(0)} % | ${(100 * r.meanUtil).toFixed(0)} % | ${r.balance.toFixed(2)} | ${r.linksUsed} | ${r.retransmits} | ${r.hurt ?? "—"} | ${r.case === "fail" ? us(r.recoveryNs) : "—"} |`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);

const config = {
  aria: false,
  font: "DejaVu Sans, Helvetica, Arial, sans-serif",
  title: { anchor: "start", fontSize: 14, subtitleFontSize: 11, subtitleColor: "#555" },
  axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: "#e6e6e6" },
  legend: { labelFontSize: 11, titleFontSize: 11 },
  view: { stroke: "#bbb" },
};
const bars = (field, titleText, subtitle, yTitle, scale = 1) => ({
  $schema: "https://vega.github.io/schema/vega-lite/v5.json",
  title: { text: titleText, subtitle },
  width: 420,
  height: 240,
  data: {
    values: results
      .filter((r) => r[field] !== null)
      .map((r) => ({ case: CASES[r.case], scheme: SCHEMES[r.scheme], v: r[field] * scale })),
  },
  mark: "bar",
  encoding: {
    x: { field: "case", type: "nominal", title: null, sort: Object.values(CASES), axis: { labelAngle: 0 } },
    xOffset: { field: "scheme", sort: Object.values(SCHEMES) },
    y: { field: "v", type: "quantitative", title: yTitle },
    color: {
      field: "scheme",
      type: "nominal",
      title: "scheme",
      sort: Object.values(SCHEMES),
      scale: { scheme: "tableau10" },
    },
  },
  config,
});
const sub = "4 spines, 4 leaves, 16 hosts, 100 Gb/s, 1:1; one QP per pair; simulator, seed 1";
writeFileSync(
  join(dir, "jct.svg"),
  await renderSvg(
    bars("jctNs", "Job completion time", `${sub} (missing bar: not done in 1 ms)`, "JCT (µs)", 1e-3),
  ),
);
writeFileSync(
  join(dir, "link-balance.svg"),
  await renderSvg(
    bars(
      "balance",
      "Load balance: max / mean utilisation of the used fabric links",
      `${sub}; 1.0 is perfectly even`,
      "max / mean",
    ),
  ),
);
writeFileSync(
  join(dir, "max-utilisation.svg"),
  await renderSvg(
    bars("maxUtil", "Most-loaded fabric link", `${sub}; utilisation over the JCT`, "utilisation (%)", 100),
  ),
);

// Aggregate goodput around the failure, per scheme.
const values = [];
for (const s of Object.keys(SCHEMES)) {
  if (!existsSync(join(dir, `fail-${s}`, "flow-rate.csv"))) continue;
  const series = flowSeries(readFileSync(join(dir, `fail-${s}`, "flow-rate.csv"), "utf8"));
  const sum = new Map();
  for (const points of series.values()) for (const [t, v] of points) sum.set(t, (sum.get(t) ?? 0) + v);
  for (const [t, v] of [...sum].sort((a, b) => a[0] - b[0]))
    if (t <= 300_000) values.push({ t: t / 1e3, v: v / 1e9, series: SCHEMES[s] });
}
writeFileSync(
  join(dir, "failure-goodput.svg"),
  await renderSvg({
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: { text: "Aggregate goodput, leaf1-spine1 fails at 40 µs", subtitle: sub },
    width: 520,
    height: 240,
    // Each scheme's line thinned to the chart's pixel columns (lowest and highest point of each).
    data: { values: thinLines(values) },
    mark: { type: "line", interpolate: "step-after", strokeWidth: 1.3 },
    encoding: {
      x: { field: "t", type: "quantitative", title: "time (µs)" },
      y: { field: "v", type: "quantitative", title: "goodput (Gb/s, sum over flows)" },
      color: {
        field: "series",
        type: "nominal",
        title: "scheme",
        sort: Object.values(SCHEMES),
        scale: { scheme: "tableau10" },
      },
    },
    config,
  }),
);
