// The shared-buffer memory management unit: who may occupy how much of the switch's buffer, and when a
// lossless priority group must pause its upstream.
//
// The model follows HPCC's ns-3 switch MMU (reference/switch.md §2.2), itself a Broadcom-style design:
//   * every (ingress port, priority group) has a small guaranteed reserve;
//   * above it, packets use a shared pool whose per-PG limit is a dynamic threshold
//     α × (free shared buffer) (Choudhury-Hahne) or, in static mode, a fixed byte count;
//   * a PFC-protected PG over its threshold asserts XOFF, and what keeps arriving while the pause travels
//     upstream lands in that PG's private headroom; only a full headroom drops a lossless packet;
//   * XON when the headroom is empty and use is `resumeOffset` below the threshold;
//   * lossy queues are bounded at egress by a dynamic threshold α × (free shared buffer).
// Sizes are bytes of frame as carried in memory (no cell rounding).

import type { BufferConfig, PfcConfig } from "./config.js";
import { PRIORITIES } from "./config.js";

export const DropReason = {
  /** A PFC-protected PG received more than its headroom after XOFF: the lossless promise broke. */
  HeadroomExhausted: "headroom_exhausted",
  /** A lossy (or PFC-disabled) queue reached its dynamic egress threshold. */
  EgressLimit: "egress_limit",
  /** The shared pool is completely used. */
  BufferFull: "buffer_full",
  /** WRED dropped a Not-ECT packet. */
  Wred: "wred",
  NoRoute: "no_route",
  TtlExpired: "ttl_expired",
  LinkDown: "link_down",
  ArpUnresolved: "arp_unresolved",
  Malformed: "malformed",
} as const;
export type DropReason = (typeof DropReason)[keyof typeof DropReason];

/** Headroom a lossless PG needs so that nothing is lost while its XOFF reaches the upstream. */
export function autoHeadroomBytes(
  rateBps: number,
  delayNs: number,
  maxFrameBytes: number,
  slackNs = 0,
): number {
  // After the switch decides XOFF: the PFC frame may wait for one frame already on our egress, crosses the
  // link (delay), and the upstream finishes the frame it is sending; meanwhile the upstream keeps sending
  // for a round trip. Add the packet that crossed the threshold and any configured reaction slack.
  const wireFrame = maxFrameBytes + 24; // + FCS, preamble, inter-frame gap
  const roundTripBytes = (2 * delayNs * rateBps) / 8e9;
  const slackBytes = (slackNs * rateBps) / 8e9;
  return Math.ceil(roundTripBytes + 3 * wireFrame + 84 + slackBytes);
}

export interface IngressCharge {
  /** Bytes of this packet charged to the PG's headroom (the rest to reserve/shared). */
  headroom: number;
}

export class Mmu {
  /** Non-headroom bytes per (port, pg): reserve + shared. */
  private readonly pgBytes: Float64Array;
  private readonly pgHeadroom: Float64Array;
  private readonly egressBytes: Float64Array;
  /** Whether XOFF is asserted per (port, pg). */
  readonly xoff: Uint8Array;
  /** Peak values, for reports. */
  readonly egressPeak: Float64Array;
  readonly headroomPeak: Float64Array;
  private sharedUsedBytes = 0;
  private headroomUsedBytes = 0;
  private reserveUsedBytes = 0;
  sharedPeakBytes = 0;
  private sharedPool = 0;
  /** Headroom of each port's lossless PGs, bytes. */
  private headroomSize: Float64Array;

  constructor(
    private readonly numPorts: number,
    private buffer: BufferConfig,
    private pfc: PfcConfig,
    headroomPerPort: readonly number[],
    private losslessMask: number,
  ) {
    const n = numPorts * PRIORITIES;
    this.pgBytes = new Float64Array(n);
    this.pgHeadroom = new Float64Array(n);
    this.egressBytes = new Float64Array(n);
    this.xoff = new Uint8Array(n);
    this.egressPeak = new Float64Array(n);
    this.headroomPeak = new Float64Array(n);
    this.headroomSize = Float64Array.from(headroomPerPort);
    this.recomputePool();
  }

  /** Applies new buffer/PFC settings (the current occupancy is kept). */
  reconfigure(
    buffer: BufferConfig,
    pfc: PfcConfig,
    headroomPerPort: readonly number[],
    losslessMask: number,
  ): void {
    this.buffer = buffer;
    this.pfc = pfc;
    this.headroomSize = Float64Array.from(headroomPerPort);
    this.losslessMask = losslessMask;
    this.recomputePool();
  }

  private recomputePool(): void {
    let headroomTotal = 0;
    let losslessPgs = 0;
    for (let p = 0; p < PRIORITIES; p++) if (this.losslessMask & (1 << p)) losslessPgs++;
    for (let port = 0; port < this.numPorts; port++) headroomTotal += this.headroomSize[port]! * losslessPgs;
    const reserveTotal = this.numPorts * PRIORITIES * this.buffer.reserveBytes;
    this.sharedPool = Math.max(0, this.buffer.sizeBytes - reserveTotal - headroomTotal);
  }

  get sharedPoolBytes(): number {
    return this.sharedPool;
  }

  get sharedUsed(): number {
    return this.sharedUsedBytes;
  }

  get headroomUsed(): number {
    return this.headroomUsedBytes;
  }

  get reserveUsed(): number {
    return this.reserveUsedBytes;
  }

  /** Total bytes held. */
  get used(): number {
    return this.sharedUsedBytes + this.headroomUsedBytes + this.reserveUsedBytes;
  }

  headroomOf(port: number): number {
    return this.headroomSize[port] ?? 0;
  }

  pgUse(port: number, pg: number): { bytes: number; headroom: number } {
    const i = port * PRIORITIES + pg;
    return { bytes: this.pgBytes[i]!, headroom: this.pgHeadroom[i]! };
  }

  egressDepth(port: number, queue: number): number {
    return this.egressBytes[port * PRIORITIES + queue]!;
  }

  /** Is this PG protected by PFC (lossless priority with PFC on)? */
  pfcProtected(pg: number): boolean {
    return this.pfc.enabled && (this.losslessMask & (1 << pg)) !== 0;
  }

  /** The XOFF threshold of a PG right now, in bytes of shared use (dynamic) or of PG use (static). */
  xoffThreshold(): number {
    const x = this.pfc.xoff;
    return x.mode === "dynamic" ? x.alpha * (this.sharedPool - this.sharedUsedBytes) : x.bytes;
  }

  /**
   * Admits `bytes` of priority `pg` arriving on `inPort` for egress (outPort, queue). Returns the headroom
   * share of the charge (>= 0), or a drop reason. `inPort` < 0: the switch originated the packet.
   */
  admit(inPort: number, pg: number, outPort: number, queue: number, bytes: number): number | DropReason {
    const e = outPort * PRIORITIES + queue;
    const protectedPg = this.pfcProtected(pg);
    if (!protectedPg) {
      // Lossy queue (or PFC off): dynamic egress threshold on the queue.
      const limit = this.buffer.lossyAlpha * (this.sharedPool - this.sharedUsedBytes);
      if (this.egressBytes[e]! + bytes > limit + this.buffer.reserveBytes) return DropReason.EgressLimit;
    }
    let headroom = 0;
    if (inPort >= 0) {
      const i = inPort * PRIORITIES + pg;
      const before = this.pgBytes[i]!;
      const after = before + bytes;
      const reserve = this.buffer.reserveBytes;
      const sharedDelta = Math.max(0, after - reserve) - Math.max(0, before - reserve);
      if (sharedDelta > 0) {
        const x = this.pfc.xoff;
        const overThreshold = protectedPg
          ? x.mode === "dynamic"
            ? after - reserve > x.alpha * (this.sharedPool - this.sharedUsedBytes)
            : after > x.bytes
          : false;
        const poolFull = this.sharedUsedBytes + sharedDelta > this.sharedPool;
        if (protectedPg && (overThreshold || poolFull)) {
          if (this.pgHeadroom[i]! + bytes > this.headroomSize[inPort]!) return DropReason.HeadroomExhausted;
          headroom = bytes;
        } else if (poolFull) {
          return DropReason.BufferFull;
        }
      }
      if (headroom > 0) {
        this.pgHeadroom[i]! += headroom;
        this.headroomUsedBytes += headroom;
        if (this.pgHeadroom[i]! > this.headroomPeak[i]!) this.headroomPeak[i] = this.pgHeadroom[i]!;
      } else {
        this.pgBytes[i] = after;
        this.reserveUsedBytes += Math.min(after, reserve) - Math.min(before, reserve);
        this.sharedUsedBytes += sharedDelta;
        if (this.sharedUsedBytes > this.sharedPeakBytes) this.sharedPeakBytes = this.sharedUsedBytes;
      }
    } else {
      // Originated by the switch: charge the shared pool directly.
      if (this.sharedUsedBytes + bytes > this.sharedPool) return DropReason.BufferFull;
      this.sharedUsedBytes += bytes;
    }
    this.egressBytes[e]! += bytes;
    if (this.egressBytes[e]! > this.egressPeak[e]!) this.egressPeak[e] = this.egressBytes[e]!;
    return headroom;
  }

  /** Gives back what `admit` charged, when the packet leaves (or is flushed). */
  release(inPort: number, pg: number, outPort: number, queue: number, bytes: number, headroom: number): void {
    this.egressBytes[outPort * PRIORITIES + queue]! -= bytes;
    if (inPort < 0) {
      this.sharedUsedBytes -= bytes;
      return;
    }
    const i = inPort * PRIORITIES + pg;
    if (headroom > 0) {
      this.pgHeadroom[i]! -= headroom;
      this.headroomUsedBytes -= headroom;
      return;
    }
    const reserve = this.buffer.reserveBytes;
    const before = this.pgBytes[i]!;
    const after = before - bytes;
    this.pgBytes[i] = after;
    this.reserveUsedBytes -= Math.min(before, reserve) - Math.min(after, reserve);
    this.sharedUsedBytes -= Math.max(0, before - reserve) - Math.max(0, after - reserve);
  }

  /** Should (port, pg) assert XOFF now? (Only meaningful for PFC-protected PGs.) */
  shouldXoff(port: number, pg: number): boolean {
    const i = port * PRIORITIES + pg;
    if (this.pgHeadroom[i]! > 0) return true;
    const x = this.pfc.xoff;
    if (x.mode === "dynamic") {
      const shared = Math.max(0, this.pgBytes[i]! - this.buffer.reserveBytes);
      return shared > 0 && shared >= x.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return this.pgBytes[i]! >= x.bytes;
  }

  /** May (port, pg) release its upstream (XON)? */
  shouldXon(port: number, pg: number): boolean {
    const i = port * PRIORITIES + pg;
    if (this.pgHeadroom[i]! > 0) return false;
    const x = this.pfc.xoff;
    const offset = this.pfc.resumeOffsetBytes;
    if (x.mode === "dynamic") {
      const shared = Math.max(0, this.pgBytes[i]! - this.buffer.reserveBytes);
      return shared === 0 || shared + offset <= x.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return this.pgBytes[i]! + offset <= x.bytes;
  }
}
