// `rocelab compare --runtime live --runs N`: every variant N times in the live lab, one run after another
// (two labs never share the machine: they would take each other's cores and change each other's results),
// each run in a lab of its own name that is taken down when the run ends, whether it succeeded or not
// (run-live.ts). Run r of every variant gets the simulator's seed r (WRED draws, workload draws, start
// jitter, ECMP hash seeds: variants.ts), so the runs are paired as in the simulator; what the live lab adds
// on top is its own scheduling. The figures and their analysis are the simulator's (metrics.ts,
// analysis.ts).

import type { ClockMode } from "../../lab/live/clock-plan.js";
import { loadScenario } from "../../scenario/scenario.js";
import { runScenarioLive } from "../run-live.js";
import { analyse, type RunResult } from "./analysis.js";
import type { CompareOutcome } from "./compare.js";
import { measure } from "./metrics.js";
import { applyJob, type CompareJob } from "./variants.js";

export interface LiveCompareOptions {
  readonly dilation: number;
  readonly autoDilation?: boolean;
  readonly clock?: ClockMode;
  /** Run i (from 1) runs in the lab `${labPrefix}${i}`; at most 16 characters in all (names.ts). */
  readonly labPrefix: string;
  onRun?(done: number, total: number, lab: string): void;
  onProgress?(line: string): void;
}

/** The lab name of run `i` (1-based). */
export function liveRunLab(prefix: string, i: number): string {
  return `${prefix}${i}`;
}

export async function runLiveComparison(
  jobs: readonly CompareJob[],
  opts: LiveCompareOptions,
): Promise<CompareOutcome> {
  const runs: RunResult[] = [];
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    const lab = liveRunLab(opts.labPrefix, i + 1);
    const sc = applyJob(loadScenario(job.variant.file), job);
    const report = await runScenarioLive(sc, {
      lab,
      dilation: opts.dilation,
      ...(opts.autoDilation ? { autoDilation: true } : {}),
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    runs.push({
      variant: job.variant.label,
      seed: job.seed,
      values: measure(report, job.metrics, sc.topology),
    });
    opts.onRun?.(i + 1, jobs.length, lab);
  }
  const variants = [...new Set(jobs.map((j) => j.variant.label))];
  return { runs, metrics: analyse(variants, runs) };
}
