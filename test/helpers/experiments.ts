// Re-runs a committed simulator experiment (docs/experiments) and compares its summary and flows with the
// committed report. The time series are sampled coarsely (they do not feed the summary), which keeps the
// run short; scripts/check-experiments.mjs compares the CSVs byte for byte at the committed sample.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Test } from "tap";
import type { Report } from "../../src/lab/report/report.js";
import { runScenarioSim } from "../../src/lab/run-sim.js";
import { loadScenario } from "../../src/lab/scenario.js";

export const EXPERIMENTS_DIR = "docs/experiments";

/** Scenario file → the directory of its committed report (the table of scripts/check-experiments.mjs). */
export const EXPERIMENTS: Readonly<Record<string, string>> = {
  "incast-pfc.yaml": "incast/pfc",
  "incast-no-pfc.yaml": "incast/no-pfc",
  "incast-dcqcn.yaml": "incast/dcqcn",
  "threshold-table/aggressive.yaml": "threshold-table/aggressive",
  "threshold-table/balanced.yaml": "threshold-table/balanced",
  "threshold-table/conservative.yaml": "threshold-table/conservative",
  "ghost-latency/bad.yaml": "ghost-latency/bad",
  "ghost-latency/fixed.yaml": "ghost-latency/fixed",
  "default-incast.yaml": "default-incast",
};

/** Scenarios whose committed results come from live runs (docs/fidelity.md), not from a sim report. */
export const LIVE_ONLY: ReadonlySet<string> = new Set([
  "fidelity/incast-dcqcn.yaml",
  "fidelity/incast-pfc.yaml",
]);

export function checkExperiment(t: Test, file: string): void {
  const sc = loadScenario(join(EXPERIMENTS_DIR, file));
  const want = JSON.parse(
    readFileSync(join(EXPERIMENTS_DIR, EXPERIMENTS[file]!, "report.json"), "utf8"),
  ) as Report;
  const coarse = { ...sc, sampleNs: Math.max(sc.sampleNs, Math.round(sc.durationNs / 20)) };
  const got = runScenarioSim(coarse).report;
  t.same(got.summary, want.summary, `${file}: summary`);
  t.same(got.flows, want.flows, `${file}: flows`);
}
