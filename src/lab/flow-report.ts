// A flow as a lab reports it, whichever runtime ran it: what the NICs' completion records say of one
// message (its endpoints, its QP, when it started and ended). Runs collect these into report.json
// (src/report/), `inject --wait` reads them, the TUI shows them.

import type { WcStatusName } from "../nic/transport/work-completion.js";

export interface FlowReport {
  readonly id: number;
  readonly workload: string;
  readonly src: string;
  readonly dst: string;
  readonly op: string;
  /** The requester's QP number. */
  readonly qp: number;
  readonly bytes: number;
  readonly startNs: number;
  /** When it completed or failed; null while unfinished. */
  readonly endNs: number | null;
  /** Completed only (failed and unfinished flows have none, so FCT statistics never mix them in). */
  readonly fctNs: number | null;
  readonly goodputBps: number | null;
  readonly retransmits: number;
  /** How it ended: its work completion succeeded, failed with `error`, or there is none yet. */
  readonly outcome: FlowOutcome;
  /** The work completion's error (work-completion.ts: retry_exceeded, remote_access, ..., stopped), or null. */
  readonly error: FlowError | null;
  /** How often it was posted again on a new QP pair after failing (`onError: reconnect`); absent: never. */
  readonly reconnects?: number;
}

export type FlowOutcome = "completed" | "failed" | "unfinished";
export type FlowError = Exclude<WcStatusName, "success">;
