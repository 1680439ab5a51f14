// What a figure of `rocelab compare` is (metrics.ts lists them; slowdown.ts adds the per-size ones).

export interface MetricValue {
  readonly value: number;
  /** The true value is at least `value` (FCT percentiles reaching an unfinished flow). */
  readonly atLeast: boolean;
  /** How many flows the figure is over, for figures of a subset of the flows (a flow-size bucket). */
  readonly n?: number;
}

export interface MetricDef {
  readonly id: string;
  readonly label: string;
  /** How values print: "ns" durations, "bps" rates, "bytes", "count", "ratio". */
  readonly unit: "ns" | "bps" | "bytes" | "count" | "ratio";
  /** Which direction is better, when one is (ECN marks and CNPs are neither). */
  readonly better: "lower" | "higher" | null;
}
