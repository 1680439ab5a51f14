// Waiting for a workload to finish: `rocelab inject incast --wait` polls the lab's flow report (the
// NICs' completion records) until every flow of the workload has completed, or the real-time limit passes.
// Starting a workload only posts it; its flows end later in emulated time, which on a busy machine with
// synced clocks can be many real seconds away.

import type { FlowReport } from "./flow-report.js";

export interface WorkloadProgress {
  readonly workload: string;
  /** The workload's flows, completed or not. */
  readonly flows: readonly FlowReport[];
  readonly completed: number;
  /** Flows that ended with an error. */
  readonly failed: number;
  /** True when every flow ended (completed or failed); false when the limit passed first (or the lab has no such workload). */
  readonly done: boolean;
}

export function workloadProgress(report: readonly FlowReport[], workload: string): WorkloadProgress {
  const flows = report.filter((f) => f.workload === workload);
  const completed = flows.filter((f) => f.outcome === "completed").length;
  const failed = flows.filter((f) => f.outcome === "failed").length;
  return {
    workload,
    flows,
    completed,
    failed,
    done: flows.length > 0 && completed + failed === flows.length,
  };
}

export interface WaitOptions {
  /** Real milliseconds to wait at most. */
  readonly timeoutMs: number;
  /**
   * Real milliseconds between two reads of the flow report (default 1000: each read asks every device
   * for its stats, CPU the devices of a busy machine need).
   */
  readonly pollMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly clock?: () => number;
}

/** Reads the flow report (`flows`) until the workload is done or `timeoutMs` passed; the last reading. */
export async function waitForWorkload(
  flows: () => Promise<readonly FlowReport[]>,
  workload: string,
  o: WaitOptions,
): Promise<WorkloadProgress> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const clock = o.clock ?? (() => performance.now());
  const deadline = clock() + o.timeoutMs;
  for (;;) {
    const p = workloadProgress(await flows(), workload);
    if (p.done || clock() >= deadline) return p;
    await sleep(Math.min(o.pollMs ?? 1000, Math.max(0, deadline - clock())));
  }
}
