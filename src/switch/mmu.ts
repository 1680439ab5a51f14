// The shared-buffer memory management unit: who may occupy how much of the switch's buffer, and when a
// lossless priority group must pause its upstream.
//
// The model follows HPCC's ns-3 switch MMU (github.com/alibaba-edu/High-Precision-Congestion-Control,
// simulation/src/point-to-point/model/switch-mmu.cc), itself a Broadcom-style design:
//   * every (ingress port, priority group) has a small guaranteed reserve;
//   * above it, packets use a shared pool whose per-PG limit is a dynamic threshold
//     α × (free shared buffer) (Choudhury-Hahne) or, in static mode, a fixed byte count;
//   * a PFC-protected PG over its threshold asserts XOFF, and what keeps arriving while the pause travels
//     upstream lands in that PG's private headroom; only a full headroom drops a lossless packet;
//   * XON when the headroom is empty and use is `resumeOffset` below the threshold;
//   * lossy queues are bounded at egress by a dynamic threshold α × (free shared buffer).
// Sizes are bytes of frame as carried in memory (no cell rounding).

import { PRIORITIES } from "./config.js";
import { DropReason } from "./drops.js";

/** The buffer as the MMU sees it (features/buffer.ts owns the section). */
export interface MmuBuffer {
  /** Total shared-memory buffer, bytes. */
  readonly size: number;
  /** Guaranteed bytes per (ingress port, priority group). */
  readonly reserve: number;
  /** Dynamic-threshold α for lossy queues. */
  readonly lossyAlpha: number;
}

/** The PFC thresholds as the MMU sees them (features/pfc.ts owns the section). */
export interface MmuPfc {
  readonly enabled: boolean;
  /** "dynamic": α × (free shared buffer); a number: static bytes of the PG's use. */
  readonly xoff: "dynamic" | number;
  readonly alpha: number;
  /** XON when use falls this far below the XOFF threshold (and headroom is empty), bytes. */
  readonly resumeOffset: number;
}

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

export class Mmu {
  /** Non-headroom bytes per (port, pg): reserve + shared. */
  private readonly pgBytes: Float64Array;
  private readonly pgHeadroom: Float64Array;
  private readonly egressBytes: Float64Array;
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
  private buffer: MmuBuffer;
  private pfc: MmuPfc;
  private dynamicXoff: boolean;

  constructor(
    private readonly numPorts: number,
    buffer: MmuBuffer,
    pfc: MmuPfc,
    headroomPerPort: readonly number[],
    private losslessMask: number,
  ) {
    const n = numPorts * PRIORITIES;
    this.pgBytes = new Float64Array(n);
    this.pgHeadroom = new Float64Array(n);
    this.egressBytes = new Float64Array(n);
    this.egressPeak = new Float64Array(n);
    this.headroomPeak = new Float64Array(n);
    this.headroomSize = Float64Array.from(headroomPerPort);
    this.buffer = buffer;
    this.pfc = pfc;
    this.dynamicXoff = pfc.xoff === "dynamic";
    this.recomputePool();
  }

  /** New buffer sizes (the current occupancy is kept). */
  setBuffer(buffer: MmuBuffer, headroomPerPort: readonly number[]): void {
    this.buffer = buffer;
    this.headroomSize = Float64Array.from(headroomPerPort);
    this.recomputePool();
  }

  /** New PFC thresholds. */
  setPfc(pfc: MmuPfc): void {
    this.pfc = pfc;
    this.dynamicXoff = pfc.xoff === "dynamic";
  }

  /** New set of lossless priorities (bit p): their headroom leaves the shared pool. */
  setLossless(mask: number): void {
    this.losslessMask = mask;
    this.recomputePool();
  }

  private recomputePool(): void {
    let headroomTotal = 0;
    let losslessPgs = 0;
    for (let p = 0; p < PRIORITIES; p++) if (this.losslessMask & (1 << p)) losslessPgs++;
    for (let port = 0; port < this.numPorts; port++) headroomTotal += this.headroomSize[port]! * losslessPgs;
    const reserveTotal = this.numPorts * PRIORITIES * this.buffer.reserve;
    this.sharedPool = Math.max(0, this.buffer.size - reserveTotal - headroomTotal);
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

  /** Bytes (port, pg) holds outside / inside its headroom. */
  pgUsed(port: number, pg: number): number {
    return this.pgBytes[port * PRIORITIES + pg]!;
  }

  pgHeadroomUsed(port: number, pg: number): number {
    return this.pgHeadroom[port * PRIORITIES + pg]!;
  }

  egressDepth(port: number, queue: number): number {
    return this.egressBytes[port * PRIORITIES + queue]!;
  }

  /** Is this PG protected by PFC (lossless priority with PFC on)? */
  pfcProtected(pg: number): boolean {
    return this.pfc.enabled && (this.losslessMask & (1 << pg)) !== 0;
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
      if (this.egressBytes[e]! + bytes > limit + this.buffer.reserve) return DropReason.EgressLimit;
    }
    let headroom = 0;
    if (inPort >= 0) {
      const i = inPort * PRIORITIES + pg;
      const before = this.pgBytes[i]!;
      const after = before + bytes;
      const reserve = this.buffer.reserve;
      const sharedDelta = Math.max(0, after - reserve) - Math.max(0, before - reserve);
      if (sharedDelta > 0) {
        const overThreshold = protectedPg
          ? this.dynamicXoff
            ? after - reserve > this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes)
            : after > (this.pfc.xoff as number)
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
    const reserve = this.buffer.reserve;
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
    if (this.dynamicXoff) {
      const shared = Math.max(0, this.pgBytes[i]! - this.buffer.reserve);
      return shared > 0 && shared >= this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return this.pgBytes[i]! >= (this.pfc.xoff as number);
  }

  /** May (port, pg) release its upstream (XON)? */
  shouldXon(port: number, pg: number): boolean {
    const i = port * PRIORITIES + pg;
    if (this.pgHeadroom[i]! > 0) return false;
    const offset = this.pfc.resumeOffset;
    if (this.dynamicXoff) {
      const shared = Math.max(0, this.pgBytes[i]! - this.buffer.reserve);
      return shared === 0 || shared + offset <= this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return this.pgBytes[i]! + offset <= (this.pfc.xoff as number);
  }
}
