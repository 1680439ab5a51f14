// Re-runs a committed simulator experiment (docs/experiments) and compares its summary and flows with the
// committed report. The time series are sampled coarsely (they do not feed the summary), which keeps the
// run short; scripts/check-experiments.mjs compares the CSVs byte for byte at the committed sample.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Test } from "tap";
import type { Report } from "../../src/report/report.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { loadScenario } from "../../src/scenario/scenario.js";

export const EXPERIMENTS_DIR = "docs/experiments";

/**
 * Scenario file → the directory of its committed report: the table of scripts/check-experiments.mjs, read
 * from that script so that there is one list.
 */
export const EXPERIMENTS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    ...readFileSync("scripts/check-experiments.mjs", "utf8").matchAll(
      /^\s*\["([^"]+\.yaml)", "([^"]+)"\],?$/gm,
    ),
  ].map((m) => [m[1]!, m[2]!]),
);

/** Scenarios whose committed results come from live runs (docs/fidelity.md, load-balancing.md), not a sim report. */
export const LIVE_ONLY = (file: string): boolean =>
  file.startsWith("fidelity/") || file.startsWith("load-balancing/live/");

/**
 * Scenarios that are benchmarks, measured in docs/performance.md, with no committed report: the 128-host
 * fat tree takes a minute of CPU.
 */
export const BENCHMARK_ONLY: ReadonlySet<string> = new Set(["fat-tree-websearch.yaml"]);

/** Every committed experiment whose scenario file starts with `prefix`. */
export function experimentsUnder(prefix: string): string[] {
  return Object.keys(EXPERIMENTS).filter((f) => f.startsWith(prefix));
}

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
