// `rocelab tune`: evaluates the presets and the searched candidates, spread over worker threads (one per
// core by default; the compiled tune-worker.js, as live processes run dist/). Every trial is deterministic
// and results come back in candidate order, so a seed gives the same outcome whatever the timing.

import { Worker } from "node:worker_threads";
import { entryPath } from "../../lab/live/paths.js";
import { evaluate, type Trial } from "./evaluate.js";
import {
  type Candidate,
  PRESETS,
  paretoFront,
  recommend,
  searchCandidates,
  type TuneResult,
} from "./search.js";

export interface TuneOptions {
  readonly scenarioFile: string;
  readonly trials: number;
  readonly seed: number;
  /** Worker threads; 1 evaluates in this thread. */
  readonly jobs: number;
  readonly durationNs?: number;
  /** After each finished trial. */
  readonly onTrial?: (done: number, total: number, r: TuneResult) => void;
}

export interface TuneOutcome {
  /** In candidate order: the presets, then t1..tN. */
  readonly results: readonly TuneResult[];
  readonly front: readonly TuneResult[];
  readonly recommended: TuneResult | null;
}

export async function tune(opts: TuneOptions): Promise<TuneOutcome> {
  const candidates: Candidate[] = [...PRESETS, ...searchCandidates(opts.seed, opts.trials)];
  const trial = (candidate: Candidate): Trial => ({
    scenarioFile: opts.scenarioFile,
    candidate,
    ...(opts.durationNs !== undefined ? { durationNs: opts.durationNs } : {}),
  });
  const results = new Array<TuneResult>(candidates.length);
  let done = 0;
  const finished = (i: number, r: TuneResult): void => {
    results[i] = r;
    opts.onTrial?.(++done, candidates.length, r);
  };
  if (opts.jobs <= 1) {
    for (let i = 0; i < candidates.length; i++) finished(i, evaluate(trial(candidates[i]!)));
  } else {
    let next = 0;
    const runWorker = async (): Promise<void> => {
      const worker = new Worker(entryPath("main/tune-worker.js"));
      try {
        while (next < candidates.length) {
          const i = next++;
          const reply = await new Promise<{ ok: boolean; result?: TuneResult; error?: string }>(
            (resolve, reject) => {
              const onError = (e: Error): void => reject(e);
              worker.once("error", onError);
              worker.once("message", (m) => {
                worker.off("error", onError);
                resolve(m);
              });
              worker.postMessage(trial(candidates[i]!));
            },
          );
          if (!reply.ok) throw new Error(`trial ${candidates[i]!.name} failed: ${reply.error}`);
          finished(i, reply.result!);
        }
      } finally {
        await worker.terminate();
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.jobs, candidates.length) }, runWorker));
  }
  const front = paretoFront(results);
  return { results, front, recommended: recommend(front) };
}
