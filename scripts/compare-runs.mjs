#!/usr/bin/env node
// Compares simulator runs of one experiment side by side (the IPCC and AI ECN experiments use it): reads
// each run's report.json and events.jsonl, prints a markdown table, and draws the bottleneck queue and the
// senders' mean DCQCN rate of every run on one chart each, with the reports' vega-lite kit (needs dist/:
// npm run build).
//
//   node scripts/compare-runs.mjs --queue leaf3:eth3:3 --start 10us --plots DIR label=REPORT_DIR ...
//
// Columns: first rate cut after `--start` (congestion onset: the incast's start), the median over sender
// QPs of their first cut, bottleneck queue peak, pause frames sent, CNPs sent by receiver NICs (NP) and by
// switches (IPCC), CNPs the senders handled, then p50/p99 FCT and goodput per workload. FCT percentiles count
// every flow: one that did not complete counts as at least its time to the end of the run, and a
// percentile it reaches is printed with "≥" (report/flow-stats.ts); "n" is completed/all.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dueFlows, fctPercentiles } from "../dist/report/flow-stats.js";
import { lineSpec } from "../dist/report/plot-kit.js";
import { renderSvg } from "../dist/report/plots.js";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const parseUs = (s) =>
  s.endsWith("us")
    ? Number(s.slice(0, -2)) * 1e3
    : s.endsWith("ms")
      ? Number(s.slice(0, -2)) * 1e6
      : Number(s);
const queueKey = opt("queue", "leaf3:eth3:3");
const startNs = parseUs(opt("start", "10us"));
const plotsDir = opt("plots", undefined);
const title = opt("title", "comparison");
/** Flows up to this size are mice, from this size elephants (bytes). */
const miceBytes = Number(opt("mice", "100000"));
const elephantBytes = Number(opt("elephant", "1000000"));
/** Plot the Kmax AI ECN set on this switch over time (thresholds.svg). */
const thresholdsDevice = opt("thresholds", undefined);
/** Hosts whose summed goodput (flow-rate.csv) from --start to the end is the "elephant throughput". */
const throughputHosts = new Set((opt("throughput-hosts", "") ?? "").split(",").filter(Boolean));
const runs = args.map((a) => {
  const [label, dir] = a.split("=");
  return { label, dir };
});

const q = (xs, p) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
/** A censored percentile (flow-stats.ts) as { v, atLeast }; NaN with no flows. */
const bound = (fct, p) =>
  fct === null ? { v: Number.NaN, atLeast: false } : { v: fct[p], atLeast: fct.atLeast[p] };
/** "≥ 12.3 µs" for a lower bound. */
const usb = (b) => `${b.atLeast ? "≥ " : ""}${us(b.v)}`;
const sum = (report, name) =>
  Object.values(report.devices).reduce((acc, d) => {
    let n = d.counters[name] ?? 0;
    for (const p of Object.values(d.ports ?? {}))
      for (const qs of Object.values(p.queues ?? {})) n += qs[name] ?? 0;
    return acc + n;
  }, 0);
const us = (ns) => (Number.isFinite(ns) ? `${(ns / 1e3).toFixed(1)} µs` : "—");
const ms = (ns) => (Number.isFinite(ns) ? `${(ns / 1e6).toFixed(2)} ms` : "—");

const [qDev, qPort, qQueue] = queueKey.split(":");
const rows = [];
const queueValues = [];
const rateValues = [];
const kmaxValues = [];
for (const run of runs) {
  const report = JSON.parse(readFileSync(join(run.dir, "report.json"), "utf8"));
  const events = readFileSync(join(run.dir, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const firstCut = new Map();
  for (const e of events) {
    if (e.kind !== "rate-cut" || e.t < startNs) continue;
    const k = `${e.device}/${e.qp}`;
    if (!firstCut.has(k)) firstCut.set(k, e.t - startNs);
  }
  const cuts = [...firstCut.values()];
  for (const e of events) {
    if (e.kind !== "info" || e.device !== thresholdsDevice || typeof e.detail !== "string") continue;
    const m = /kmax (\d+)/.exec(e.detail);
    if (m && /^(ai-ecn queue|ecn thresholds queue)/.test(e.detail))
      kmaxValues.push({ t: e.t / 1e6, v: Number(m[1]) / 1e6, series: run.label });
  }
  let peak = 0;
  for (const line of readFileSync(join(run.dir, "queue-depth.csv"), "utf8").split("\n").slice(1)) {
    const c = line.split(",");
    if (c[1] !== qDev || c[2] !== qPort || c[3] !== qQueue) continue;
    const v = Number(c[4]);
    peak = Math.max(peak, v);
    queueValues.push({ t: Number(c[0]) / 1e6, v: v / 1e6, series: run.label });
  }
  const rates = new Map();
  for (const line of readFileSync(join(run.dir, "qp-rate.csv"), "utf8").split("\n").slice(1)) {
    const c = line.split(",");
    if (c[3] !== "rate_bps") continue;
    const t = Number(c[0]);
    const r = rates.get(t) ?? { n: 0, s: 0 };
    r.n++;
    r.s += Number(c[4]);
    rates.set(t, r);
  }
  for (const [t, r] of rates) rateValues.push({ t: t / 1e6, v: r.s / r.n / 1e9, series: run.label });
  const byWorkload = new Map();
  for (const f of report.flows) {
    const list = byWorkload.get(f.workload) ?? [];
    list.push(f);
    byWorkload.set(f.workload, list);
  }
  const workloads = [...byWorkload.entries()].map(([w, fs]) => {
    const done = fs.filter((f) => f.fctNs > 0);
    const fct = fctPercentiles(dueFlows(fs, report.durationNs), report.durationNs);
    return {
      w,
      n: `${done.length}/${fs.length}`,
      p50: bound(fct, "p50"),
      p99: bound(fct, "p99"),
      max: Math.max(...done.map((f) => f.endNs), 0) - Math.min(...fs.map((f) => f.startNs)),
    };
  });
  let delivered = 0;
  for (const line of readFileSync(join(run.dir, "flow-rate.csv"), "utf8").split("\n").slice(1)) {
    const c = line.split(",");
    if (!throughputHosts.has(c[1]) || Number(c[0]) <= startNs) continue;
    delivered += (Number(c[3]) * report.sampleNs) / 1e9 / 8;
  }
  const throughputGbps = (delivered * 8) / ((report.durationNs - startNs) / 1e9) / 1e9;
  const done = report.flows.filter((f) => f.fctNs > 0);
  const allMice = dueFlows(report.flows, report.durationNs).filter((f) => f.bytes <= miceBytes);
  const miceFct = fctPercentiles(allMice, report.durationNs);
  const eleph = done.filter((f) => f.bytes >= elephantBytes);
  rows.push({
    label: run.label,
    throughputGbps,
    miceN: `${allMice.filter((f) => f.fctNs !== null).length}/${allMice.length}`,
    miceP50: bound(miceFct, "p50"),
    miceP99: bound(miceFct, "p99"),
    elephantN: eleph.length,
    elephantGbps: eleph.length
      ? eleph.reduce((a, f) => a + f.goodputBps, 0) / eleph.length / 1e9
      : Number.NaN,
    firstCut: cuts.length ? Math.min(...cuts) : Number.NaN,
    medianCut: q(cuts, 50),
    peak,
    pauses: report.summary.pauseFramesTx,
    npCnp: sum(report, "np_cnp_sent"),
    ipccCnp: sum(report, "ipcc_cnp_sent"),
    handled: report.summary.cnpHandled,
    lossless: report.summary.drops.lossless,
    workloads,
  });
}

const names = [...new Set(rows.flatMap((r) => r.workloads.map((w) => w.w)))];
const head = [
  "run",
  "first cut",
  "median first cut",
  "queue peak",
  "pause frames",
  "CNPs (NP / IPCC / handled)",
  "mice (≤ --mice) done/all / p50 / p99 FCT (unfinished counted)",
  "elephants (≥ --elephant) n / mean goodput",
  "throughput of --throughput-hosts",
  ...names.flatMap((n) => [`${n} done`, `${n} p50 FCT`, `${n} p99 FCT`, `${n} span`]),
];
console.log(`| ${head.join(" | ")} |`);
console.log(`|${head.map(() => "---").join("|")}|`);
for (const r of rows) {
  const cells = [
    r.label,
    us(r.firstCut),
    us(r.medianCut),
    `${(r.peak / 1e6).toFixed(2)} MB`,
    String(r.pauses),
    `${r.npCnp} / ${r.ipccCnp} / ${r.handled}`,
    `${r.miceN} / ${usb(r.miceP50)} / ${usb(r.miceP99)}`,
    `${r.elephantN} / ${Number.isFinite(r.elephantGbps) ? r.elephantGbps.toFixed(1) : "—"} Gb/s`,
    `${r.throughputGbps.toFixed(1)} Gb/s`,
  ];
  for (const n of names) {
    const w = r.workloads.find((x) => x.w === n);
    cells.push(w ? w.n : "—", w ? usb(w.p50) : "—", w ? usb(w.p99) : "—", w ? ms(w.max) : "—");
  }
  console.log(`| ${cells.join(" | ")} |`);
}

if (plotsDir) {
  mkdirSync(plotsDir, { recursive: true });
  const order = runs.map((r) => r.label);
  const charts = [
    ["queue.svg", `${title}: bottleneck queue ${queueKey}`, queueValues, "queue depth (MB)"],
    ["rate.svg", `${title}: mean DCQCN rate of all QPs`, rateValues, "rate (Gb/s)"],
  ];
  if (thresholdsDevice) {
    charts.push([
      "thresholds.svg",
      `${title}: ECN Kmax set by AI ECN on ${thresholdsDevice}`,
      kmaxValues,
      "Kmax (MB)",
    ]);
  }
  for (const [file, t, values, y] of charts) {
    const spec = lineSpec({
      title: t,
      subtitle: order.join(" vs "),
      values,
      x: "time (ms)",
      y,
      legend: "run",
      order,
      step: true,
    });
    writeFileSync(join(plotsDir, file), await renderSvg(spec));
  }
}
