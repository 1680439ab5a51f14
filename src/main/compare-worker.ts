// A worker thread of `rocelab compare`: carries out the runs it is sent, one at a time, and posts each
// run's figures.

import { parentPort } from "node:worker_threads";
import { runJob } from "../run/compare/compare.js";
import type { CompareJob } from "../run/compare/variants.js";

parentPort?.on("message", (job: CompareJob) => {
  try {
    parentPort!.postMessage({ ok: true, result: runJob(job) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: (e as Error).stack ?? String(e) });
  }
});
