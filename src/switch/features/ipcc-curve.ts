// IPCC's "how many CNPs" decision for one queue and one period, pure. H3C's description of IPCC (H3C RoCE
// overview §1.4.3.6, docs/references.md) names four cases from the queue-length trend and the buffer
// occupancy:
//
//   length rising,  occupancy low   → a few CNPs (relieve the queue, do not over-slow the senders)
//   length rising,  occupancy high  → many CNPs (drain fast, cut the latency)
//   length falling, occupancy low   → none      (the queue drains by itself; keep the throughput)
//   length falling, occupancy high  → a few     (help it drain, gently)
//
// The curve turns each case into a fraction of the queue's active flows that get one CNP this period
// (rounded up, so any non-zero fraction notifies at least one flow). Below `minDepth` the queue is not
// congested and nothing is sent whatever the trend. "Rising" means the depth grew by more than
// `trendBytes` since the previous period; a flat queue (|Δ| ≤ trendBytes) counts as falling, since it is
// not getting worse. Occupancy is the queue's depth over the shared buffer pool (the share of the buffer
// this queue holds); "high" is at least `highOccupancy`.

export interface IpccCurve {
  /** Fractions (0..1) of the queue's flows notified per period, per case. */
  readonly risingLow: number;
  readonly risingHigh: number;
  readonly fallingLow: number;
  readonly fallingHigh: number;
  /** Occupancy (queue depth / shared pool) at or above which the buffer counts as highly occupied. */
  readonly highOccupancy: number;
  /** Depth below which the queue is not congested, bytes. */
  readonly minDepth: number;
  /** Growth over one period that counts as rising, bytes. */
  readonly trendBytes: number;
}

export const IpccCase = {
  Idle: "idle",
  RisingLow: "rising-low",
  RisingHigh: "rising-high",
  FallingLow: "falling-low",
  FallingHigh: "falling-high",
} as const;
export type IpccCase = (typeof IpccCase)[keyof typeof IpccCase];

/** Which of the four cases (or idle) a queue is in. */
export function ipccCase(depth: number, previousDepth: number, poolBytes: number, c: IpccCurve): IpccCase {
  if (depth < c.minDepth) return IpccCase.Idle;
  const rising = depth - previousDepth > c.trendBytes;
  const high = poolBytes > 0 && depth / poolBytes >= c.highOccupancy;
  if (rising) return high ? IpccCase.RisingHigh : IpccCase.RisingLow;
  return high ? IpccCase.FallingHigh : IpccCase.FallingLow;
}

/** How many of `flows` active flows get a CNP this period. */
export function ipccCnpCount(kase: IpccCase, flows: number, c: IpccCurve): number {
  if (flows <= 0) return 0;
  const f =
    kase === IpccCase.RisingHigh
      ? c.risingHigh
      : kase === IpccCase.RisingLow
        ? c.risingLow
        : kase === IpccCase.FallingHigh
          ? c.fallingHigh
          : kase === IpccCase.FallingLow
            ? c.fallingLow
            : 0;
  return f <= 0 ? 0 : Math.min(flows, Math.ceil(f * flows));
}
