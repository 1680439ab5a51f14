// Flow statistics that count every flow. A flow that did not complete within the run is not dropped: its
// completion time is known to be at least the time it had been running when the run ended (a right-censored
// observation, as survival analysis calls it), and goodput counts the bytes the receivers accepted whether
// or not their message completed. A percentile whose rank reaches an unfinished flow is therefore only a
// lower bound, and says so (`atLeast`); with no flow at all there is no percentile (null), never a 0.

import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { FlowReport } from "../lab/flow-report.js";

/** A flow's completion time, or for an unfinished flow the lower bound the run's end puts on it. */
export interface FctSample {
  readonly ns: number;
  /** The flow did not complete: its FCT is at least `ns`. */
  readonly censored: boolean;
}

export interface FctPercentiles {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  /** Which percentiles are lower bounds: an unfinished flow sits at or below their rank. */
  readonly atLeast: { readonly p50: boolean; readonly p99: boolean; readonly p999: boolean };
}

/**
 * The flows that were due within the run: completed, or started (or due to start) before its end. A flow
 * whose start lies after the end of the run (a later round of a workload cut short by a shorter duration)
 * was never part of it and is not "unfinished".
 */
export function dueFlows(flows: readonly FlowReport[], runEndNs: number): FlowReport[] {
  return flows.filter((f) => f.endNs !== null || f.startNs < runEndNs);
}

/** Every flow's FCT sample; unfinished flows are censored at `runEndNs` (their FCT ≥ run end − start). */
export function fctSamples(flows: readonly FlowReport[], runEndNs: number): FctSample[] {
  return flows.map((f) =>
    f.fctNs !== null
      ? { ns: f.fctNs, censored: false }
      : { ns: Math.max(0, runEndNs - f.startNs), censored: true },
  );
}

/**
 * Nearest-rank percentile over every sample. Sorted by value, a completed flow before a censored one of the
 * same value (the censored one's true FCT is at least as large). The result is a lower bound when any
 * censored sample is at or below the rank: its true value could move above the rank and lift the result.
 */
export function censoredPercentile(
  sorted: readonly FctSample[],
  q: number,
): { readonly ns: number; readonly atLeast: boolean } {
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  let atLeast = false;
  for (let i = 0; i <= rank; i++) if (sorted[i]!.censored) atLeast = true;
  return { ns: sorted[rank]!.ns, atLeast };
}

/** p50, p99 and p99.9 of every flow's FCT, unfinished flows censored at the run's end; null with no flows. */
export function fctPercentiles(flows: readonly FlowReport[], runEndNs: number): FctPercentiles | null {
  if (flows.length === 0) return null;
  const sorted = fctSamples(flows, runEndNs).sort(
    (a, b) => a.ns - b.ns || Number(a.censored) - Number(b.censored),
  );
  const p50 = censoredPercentile(sorted, 0.5);
  const p99 = censoredPercentile(sorted, 0.99);
  const p999 = censoredPercentile(sorted, 0.999);
  return {
    p50: p50.ns,
    p99: p99.ns,
    p999: p999.ns,
    atLeast: { p50: p50.atLeast, p99: p99.atLeast, p999: p999.atLeast },
  };
}

/**
 * Payload bytes the receivers accepted in order, each byte once, over every QP of every NIC (WRITE/SEND at
 * the responder, READ responses at the requester): what the network delivered, finished messages or not.
 */
export function deliveredBytes(stats: readonly AnyDeviceStats[]): number {
  let bytes = 0;
  for (const s of stats) {
    if (s.kind !== "nic") continue;
    for (const q of s.detail?.qps ?? []) bytes += q.bytesDelivered + q.readBytesReceived;
  }
  return bytes;
}

/**
 * The span goodput is measured over: from the first flow's start to the last completion when every flow
 * completed, else to the end of the run (the unfinished ones were still sending). 0 with no flows.
 */
export function goodputSpanNs(flows: readonly FlowReport[], runEndNs: number): number {
  if (flows.length === 0) return 0;
  const start = Math.min(...flows.map((f) => f.startNs));
  const allDone = flows.every((f) => f.endNs !== null);
  const end = allDone ? Math.max(...flows.map((f) => f.endNs!)) : runEndNs;
  return Math.max(0, end - start);
}
