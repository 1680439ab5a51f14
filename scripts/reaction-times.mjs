#!/usr/bin/env node
// When congestion control first reacts, over seeds: for each scenario (a variant) and seed, the first CNP a
// switch sent (IPCC), the first CNP a receiver NIC sent (DCQCN's NP), the first DCQCN rate cut at any
// sender, the median over the sender QPs of their own first cut, and the mean RDMA CM set-up time
// (cm_connect_time_ns_total / cm_connects, when the workload connects on demand). Times are from --start
// (the workload's start). Each run is the run `rocelab compare --seeds N` makes (same seeds, 1 µs start
// jitter, per-switch ECMP hash seeds: src/run/compare/variants.ts), so these figures pair with its table.
// Prints each figure's mean with the 95 % t interval and the paired difference against the first variant;
// a run where an event never happened counts as the run's end (a lower bound, marked ≥); "none": it
// happened in no run of that variant.
//
//   node scripts/reaction-times.mjs --start 10us --seeds 10 a.yaml b.yaml ...   (after npm run build)

import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parseDuration } from "../dist/device/units.js";
import { meanInterval, pairedDifference } from "../dist/run/compare/stats.js";
import { applyJob, planJobs } from "../dist/run/compare/variants.js";
import { runScenarioSim } from "../dist/run/run-sim.js";
import { loadScenario } from "../dist/scenario/scenario.js";

const { values: opts, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { start: { type: "string", default: "0us" }, seeds: { type: "string", default: "10" } },
});
const startNs = parseDuration(opts.start);
const n = Number(opts.seeds);
if (startNs === null || !Number.isInteger(n) || n < 2 || files.length === 0) {
  console.error("usage: node scripts/reaction-times.mjs --start 10us --seeds 10 SCENARIO.yaml ...");
  process.exit(2);
}

const variants = files.map((f) => ({ label: basename(f, ".yaml"), file: resolve(f) }));
const plan = { seeds: Array.from({ length: n }, (_, i) => i + 1), jitterNs: 1000, varyEcmp: true };
const FIGURES = ["switchCnp", "receiverCnp", "firstCut", "medianCut", "connect"];
const LABEL = {
  switchCnp: "first switch CNP",
  receiverCnp: "first receiver CNP",
  firstCut: "first rate cut",
  medianCut: "median first cut",
  connect: "CM set-up (mean)",
};

function runOne(job) {
  const sc = applyJob(loadScenario(job.variant.file), job);
  const first = { switchCnp: Number.POSITIVE_INFINITY, receiverCnp: Number.POSITIVE_INFINITY };
  const cutOf = new Map();
  const events = [];
  const { report } = runScenarioSim(sc, {
    onEvent: (e) => {
      if (e.t >= startNs && (e.kind === "cnp-sent" || e.kind === "rate-cut")) events.push(e);
    },
  });
  for (const e of events) {
    const t = e.t - startNs;
    if (e.kind === "cnp-sent") {
      const k = report.devices[e.device]?.kind === "switch" ? "switchCnp" : "receiverCnp";
      first[k] = Math.min(first[k], t);
    } else {
      const k = `${e.device}/${e.qp}`;
      if (!cutOf.has(k)) cutOf.set(k, t);
    }
  }
  const cuts = [...cutOf.values()].sort((a, b) => a - b);
  let connects = 0;
  let connectNs = 0;
  for (const d of Object.values(report.devices)) {
    connects += d.counters.cm_connects ?? 0;
    connectNs += d.counters.cm_connect_time_ns_total ?? 0;
  }
  const end = report.durationNs - startNs;
  const bound = (v) => (Number.isFinite(v) ? { v, atLeast: false } : { v: end, atLeast: true });
  return {
    switchCnp: bound(first.switchCnp),
    receiverCnp: bound(first.receiverCnp),
    firstCut: bound(cuts.length ? cuts[0] : Number.POSITIVE_INFINITY),
    medianCut: bound(cuts.length ? cuts[cuts.length >> 1] : Number.POSITIVE_INFINITY),
    connect: connects > 0 ? { v: connectNs / connects, atLeast: false } : null,
  };
}

const jobs = planJobs(variants, plan, {}, undefined);
const results = new Map(variants.map((v) => [v.label, []]));
for (const job of jobs) {
  results.get(job.variant.label).push(runOne(job));
  process.stderr.write(".");
}
process.stderr.write("\n");

const us = (ns) => `${(ns / 1000).toFixed(1)}`;
const fmt = (i, atLeast) => `${atLeast ? "≥ " : ""}${us(i.mean)} [${us(i.lo)} … ${us(i.hi)}]`;
const base = variants[0].label;
console.log(
  `${n} seeds, times in µs from ${opts.start}: mean [95 % t interval]; Δ: paired difference against ${base}\n`,
);
console.log(`| figure | ${variants.map((v) => v.label).join(" | ")} |`);
console.log(`|---|${variants.map(() => "---").join("|")}|`);
for (const f of FIGURES) {
  const cells = variants.map((v) => {
    const rs = results.get(v.label).map((r) => r[f]);
    if (rs.every((r) => r === null || r.atLeast)) return "none";
    const cell = fmt(
      meanInterval(rs.map((r) => r.v)),
      rs.some((r) => r.atLeast),
    );
    if (v.label === base) return cell;
    const b = results.get(base).map((r) => r[f]);
    if (b.every((r) => r === null || r.atLeast)) return cell;
    const d = pairedDifference(
      b.map((r) => r.v),
      rs.map((r) => r.v),
    );
    return `${cell}; Δ ${d.mean >= 0 ? "+" : ""}${us(d.mean)} [${us(d.lo)} … ${us(d.hi)}]`;
  });
  console.log(`| ${LABEL[f]} | ${cells.join(" | ")} |`);
}
