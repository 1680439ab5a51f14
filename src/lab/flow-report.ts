// A flow as a lab reports it, whichever runtime ran it: what the NICs' completion records say of one
// message (its endpoints, its QP, when it started and ended). Runs collect these into report.json
// (src/report/), `inject --wait` reads them, the TUI shows them.

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
  readonly endNs: number | null;
  readonly fctNs: number | null;
  readonly goodputBps: number | null;
  readonly retransmits: number;
}
