// A flow record for report tests: an unfinished 1000-byte h1 -> h2 write from time 0, unless told otherwise.

import type { FlowReport } from "../../src/lab/flow-report.js";

export function flowReport(id: number, o: Partial<FlowReport> = {}): FlowReport {
  return {
    id,
    workload: "w",
    src: "h1",
    dst: "h2",
    op: "write",
    qp: 256,
    bytes: 1000,
    startNs: 0,
    endNs: null,
    fctNs: null,
    goodputBps: null,
    retransmits: 0,
    outcome: "unfinished",
    error: null,
    ...o,
  };
}

/** A flow that started at `startNs` and completed after `fctNs` (or is unfinished when `fctNs` is null). */
export function timedFlow(id: number, startNs: number, fctNs: number | null, o: Partial<FlowReport> = {}) {
  return flowReport(id, {
    startNs,
    endNs: fctNs === null ? null : startNs + fctNs,
    fctNs,
    outcome: fctNs === null ? "unfinished" : "completed",
    ...o,
  });
}
