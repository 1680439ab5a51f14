#!/usr/bin/env node
// When congestion control first reacts, over seeds: for each scenario (a variant) and seed, the first CNP a
// switch sent (IPCC), the first CNP a receiver NIC sent (DCQCN's NP), the first DCQCN rate cut at any
// sender, the median over the sender QPs of their own first cut, and the mean RDMA CM set-up time
// (cm_connect_time_ns_total / cm_connects, when the workload connects on demand). Times are from --start
// (the workload's start); "first CNP (either)" is the earlier of the two, which pairs across variants.
// Each run is the run `rocelab compare --seeds N` makes (same seeds, 1 µs start jitter, per-switch ECMP
// hash seeds: src/run/compare/variants.ts), so these figures pair with its table.
// Prints each figure's mean with the 95 % t interval and the paired differences between the variants;
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
const FIGURES = ["switchCnp", "receiverCnp", "firstCnp", "firstCut", "medianCut", "connect"];
const LABEL = {
  switchCnp: "first switch CNP",
  receiverCnp: "first receiver CNP",
  firstCnp: "first CNP (either)",
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
    firstCnp: bound(Math.min(first.switchCnp, first.receiverCnp)),
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
const fmt = (i, atLeast = false) => `${atLeast ? "≥ " : ""}${us(i.mean)} [${us(i.lo)} … ${us(i.hi)}]`;
/** The runs' values of figure `f` in variant `label`, or null when the event happened in none of them. */
const valuesOf = (label, f) => {
  const rs = results.get(label).map((r) => r[f]);
  return rs.every((r) => r === null || r.atLeast) ? null : rs;
};
console.log(`${n} seeds, times in µs from ${opts.start}: mean [95 % t interval]\n`);
console.log(`| figure | ${variants.map((v) => v.label).join(" | ")} |`);
console.log(`|---|${variants.map(() => "---").join("|")}|`);
for (const f of FIGURES) {
  const cells = variants.map((v) => {
    const rs = valuesOf(v.label, f);
    return rs === null
      ? "none"
      : fmt(
          meanInterval(rs.map((r) => r.v)),
          rs.some((r) => r.atLeast),
        );
  });
  console.log(`| ${LABEL[f]} | ${cells.join(" | ")} |`);
}
console.log("\npaired differences (b − a, same seeds), µs: mean [95 % t interval]\n");
console.log("| figure | b − a | difference |");
console.log("|---|---|---|");
for (const f of FIGURES) {
  for (let i = 0; i < variants.length; i++) {
    for (let j = i + 1; j < variants.length; j++) {
      const a = valuesOf(variants[i].label, f);
      const b = valuesOf(variants[j].label, f);
      if (a === null || b === null) continue;
      const d = pairedDifference(
        a.map((r) => r.v),
        b.map((r) => r.v),
      );
      const bounded = a.some((r) => r.atLeast) || b.some((r) => r.atLeast) ? " (a bound is involved)" : "";
      console.log(`| ${LABEL[f]} | ${variants[j].label} − ${variants[i].label} | ${fmt(d)}${bounded} |`);
    }
  }
}
