// Re-runs a committed simulator experiment (a scenario under docs/experiments with a golden under
// test/golden, scripts/golden.mjs) and compares its summary and flows with the golden. The time series are
// sampled coarsely (they do not feed the summary), which keeps the run short; scripts/check-experiments.mjs
// compares the CSVs and events.jsonl byte for byte (by digest) at the scenario's own sample interval.
import { join } from "node:path";
import type { Test } from "tap";
import { listGoldens, readGolden } from "../../scripts/golden.mjs";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";

export const EXPERIMENTS_DIR = "docs/experiments";

/** Scenario file (relative to docs/experiments) → the golden file that holds its expected results. */
export const EXPERIMENTS: Readonly<Record<string, string>> = Object.fromEntries(
  listGoldens().map(({ file }) => [readGolden(file).scenario, file]),
);

/** Scenarios whose results come from live runs (docs/fidelity.md, load-balancing.md): no golden. */
export const LIVE_ONLY = (file: string): boolean =>
  file.startsWith("fidelity/") || file.startsWith("load-balancing/live/");

/**
 * Scenarios that are benchmarks, measured in docs/performance.md, with no golden: the 128-host fat tree
 * takes a minute of CPU.
 */
export const BENCHMARK_ONLY: ReadonlySet<string> = new Set(["fat-tree-websearch.yaml"]);

/** Every committed experiment whose scenario file starts with `prefix`. */
export function experimentsUnder(prefix: string): string[] {
  return Object.keys(EXPERIMENTS).filter((f) => f.startsWith(prefix));
}

export function checkExperiment(t: Test, file: string): void {
  const golden = EXPERIMENTS[file];
  if (golden === undefined) {
    t.fail(`${file} has no golden under test/golden`);
    return;
  }
  const want = readGolden(golden);
  const sc = loadScenario(join(EXPERIMENTS_DIR, file));
  const coarse = { ...sc, sampleNs: Math.max(sc.sampleNs, Math.round(sc.durationNs / 20)) };
  const got = runScenarioSim(coarse).report;
  t.strictSame(got.summary, want.summary, `${file}: summary`);
  t.strictSame(got.flows, want.flows, `${file}: flows`);
}
