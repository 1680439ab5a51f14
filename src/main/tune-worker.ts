// A worker thread of the tuner: evaluates the trials it is sent, one at a time, and posts each result.

import { parentPort } from "node:worker_threads";
import { evaluate, type Trial } from "../run/tune/evaluate.js";

parentPort?.on("message", (trial: Trial) => {
  try {
    parentPort!.postMessage({ ok: true, result: evaluate(trial) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: (e as Error).stack ?? String(e) });
  }
});
