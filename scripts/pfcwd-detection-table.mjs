#!/usr/bin/env node
// The PFC watchdog's detection time against its configuration, measured in the simulator: for each
// (detectionTime, pollInterval), the PFC storm of docs/experiments/pfc-deadlock/storm-watchdog.yaml (storm
// from 100 µs) and the routing-loop deadlock of loop-watchdog-drop.yaml (from the moment the cycle of
// pauses closed), the time until the watchdog first declared a storm. Prints a Markdown table (needs dist/: npm run
// build). SONiC's bound: detection within detectionTime + pollInterval.
//
//   node scripts/pfcwd-detection-table.mjs

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const exp = join(root, "docs", "experiments", "pfc-deadlock");
const { runScenarioSim } = await import(join(root, "dist", "run", "run-sim.js"));
const { loadScenario } = await import(join(root, "dist", "scenario", "scenario.js"));

const CONFIGS = [
  ["200us", "50us"],
  ["400us", "100us"],
  ["400us", "200us"],
  ["800us", "100us"],
  ["800us", "400us"],
];
const us = (t) => Number(t.replace("us", "")) * 1000;

const work = mkdtempSync(join(tmpdir(), "rocelab-pfcwd-"));
/** Emulated ns from `from(events)` to the first storm, running `file` with the watchdog times replaced. */
function detection(file, detect, poll, from, durationNs) {
  const doc = parse(readFileSync(join(exp, file), "utf8"));
  doc.topology = doc.topology === "default" ? "default" : join(exp, doc.topology);
  doc.duration = `${durationNs / 1000}us`;
  doc.timeline = doc.timeline.filter((s) => s.at === undefined || us(String(s.at)) < durationNs);
  Object.assign(doc.overrides.switches.pfcWatchdog, { detectionTime: detect, pollInterval: poll });
  const path = join(work, file);
  writeFileSync(path, stringify(doc));
  const events = [];
  runScenarioSim(loadScenario(path), {
    onEvent: (e) => {
      if (e.kind === "pfc-storm" || e.kind === "paused-on") events.push(e);
    },
  });
  const storm = events.find((e) => e.kind === "pfc-storm");
  return storm === undefined ? null : storm.t - from(events);
}

const rows = [];
try {
  for (const [detect, poll] of CONFIGS) {
    const bound = us(detect) + us(poll);
    const d = bound + us(poll) + 200_000;
    const storm = detection("storm-watchdog.yaml", detect, poll, () => 100_000, d);
    const ring = ["s1", "s2", "s3", "s4"];
    // The deadlock is complete when the last of the four ring egress ports (eth1) has been paused.
    const cycleClosed = (ev) =>
      Math.max(
        ...ring.map((n) => ev.find((e) => e.kind === "paused-on" && e.device === n && e.port === 1).t),
      );
    const loop = detection("loop-watchdog-drop.yaml", detect, poll, cycleClosed, d + 100_000);
    const f = (ns) => (ns === null ? "not detected" : `${(ns / 1000).toFixed(1)} µs`);
    rows.push(`| ${detect} | ${poll} | ${bound / 1000} µs | ${f(storm)} | ${f(loop)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(
  "| detectionTime | pollInterval | bound (detection + poll) | storm detected after | deadlock detected after |",
);
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(r);
