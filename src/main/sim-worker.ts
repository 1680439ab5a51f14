// A worker thread of a parallel simulator run (run/sim-parallel.ts): runs its partition, posts what it
// found, then answers the coordinator's one question (the flow report, from every host's records).

import { parentPort, workerData } from "node:worker_threads";
import { flowReport, type PartitionJob, type PartitionRun, runPartition } from "../run/sim-partition-run.js";
import { Exchange, ExchangeAborted } from "../runtime/sim/partition-exchange.js";

const job = workerData as PartitionJob;
let run: PartitionRun | null = null;
try {
  run = runPartition(job);
  parentPort!.postMessage({ ok: true, result: run.result });
} catch (e) {
  // Stop the other workers waiting at the barrier for this one (unless it is one of them).
  if (!(e instanceof ExchangeAborted)) new Exchange(job.memory, job.self).abort();
  parentPort!.postMessage({ ok: false, aborted: e instanceof ExchangeAborted, error: (e as Error).message });
}
parentPort!.on("message", (msg: { records: Parameters<typeof flowReport>[1] }) => {
  try {
    parentPort!.postMessage({ ok: true, flows: flowReport(run!, msg.records) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: (e as Error).message });
  }
});
