// `rocelab compare`: runs every variant once per seed in the simulator, spread over worker threads (one per
// core by default; the compiled compare-worker.js, as the tuner does), and analyses the figures
// (analysis.ts). Every run is deterministic and results are kept in job order, so the same command gives
// the same numbers whatever the timing.

import { Worker } from "node:worker_threads";
import { entryPath } from "../../lab/live/paths.js";
import { loadScenario } from "../../scenario/scenario.js";
import { runScenarioSim } from "../run-sim.js";
import { analyse, type MetricComparison, type RunResult } from "./analysis.js";
import { measure } from "./metrics.js";
import { applyJob, type CompareJob } from "./variants.js";

/** One run of a comparison, in this thread. */
export function runJob(job: CompareJob): RunResult {
  const sc = applyJob(loadScenario(job.variant.file), job);
  const report = runScenarioSim(sc).report;
  return { variant: job.variant.label, seed: job.seed, values: measure(report, job.metrics, sc.topology) };
}

export interface CompareOutcome {
  readonly runs: readonly RunResult[];
  readonly metrics: readonly MetricComparison[];
}

export async function runComparison(
  jobs: readonly CompareJob[],
  threads: number,
  onRun?: (done: number, total: number) => void,
): Promise<CompareOutcome> {
  const results = new Array<RunResult>(jobs.length);
  let done = 0;
  const finished = (i: number, r: RunResult): void => {
    results[i] = r;
    onRun?.(++done, jobs.length);
  };
  if (threads <= 1) {
    for (let i = 0; i < jobs.length; i++) finished(i, runJob(jobs[i]!));
  } else {
    let next = 0;
    const runWorker = async (): Promise<void> => {
      const worker = new Worker(entryPath("main/compare-worker.js"));
      try {
        while (next < jobs.length) {
          const i = next++;
          const reply = await new Promise<{ ok: boolean; result?: RunResult; error?: string }>(
            (resolve, reject) => {
              const onError = (e: Error): void => reject(e);
              worker.once("error", onError);
              worker.once("message", (m) => {
                worker.off("error", onError);
                resolve(m);
              });
              worker.postMessage(jobs[i]!);
            },
          );
          if (!reply.ok)
            throw new Error(`${jobs[i]!.variant.label} seed ${jobs[i]!.seed} failed: ${reply.error}`);
          finished(i, reply.result!);
        }
      } finally {
        await worker.terminate();
      }
    };
    await Promise.all(Array.from({ length: Math.min(threads, jobs.length) }, runWorker));
  }
  const variants = [...new Set(jobs.map((j) => j.variant.label))];
  return { runs: results, metrics: analyse(variants, results) };
}
