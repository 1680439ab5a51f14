// The congestion-control state a QP's algorithm keeps beside its rate, as rows of qp-rate.csv (metric
// column): HPCC's window (and DCTCP's, when `dctcp.window` is set), TIMELY's RTT sample, HPCC's utilisation estimate U. Declared once for
// both ways a run records series — from device stats (series-recorder.ts, the live runtime) and straight
// from the NIC cores (series-sampler.ts, the simulator) — and for the chart that draws them
// (cc-plots.ts). A QP gets a metric's rows from the first sample at which its value is not 0, so runs of
// algorithms that keep none of them (DCQCN, none) write no such rows.

import type { QpCc } from "../nic/cc/cc.js";
import type { QpStats } from "../nic/stats-types.js";

export interface QpCcSeries {
  /** The metric column of qp-rate.csv. */
  readonly metric: string;
  /** Axis title of its chart panel. */
  readonly axis: string;
  /** Displayed value per recorded unit (bytes to KB, ns to µs). */
  readonly per: number;
  readonly fromStats: (q: QpStats) => number;
  readonly fromCc: (cc: QpCc | null) => number;
}

export const QP_CC_SERIES: readonly QpCcSeries[] = [
  {
    metric: "window_bytes",
    axis: "window (KB; HPCC, DCTCP with dctcp.window)",
    per: 1e3,
    fromStats: (q) => q.windowBytes,
    fromCc: (cc) => cc?.window ?? 0,
  },
  {
    metric: "rtt_ns",
    axis: "RTT sample (µs; TIMELY)",
    per: 1e3,
    fromStats: (q) => q.rttNs,
    fromCc: (cc) => cc?.rtt ?? 0,
  },
  {
    metric: "utilisation",
    axis: "utilisation estimate U (HPCC)",
    per: 1,
    fromStats: (q) => q.utilisation,
    fromCc: (cc) => cc?.util ?? 0,
  },
];
