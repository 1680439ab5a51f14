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

import { PRIORITIES } from "../wire/pfc.js";
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

// The per-(port, priority) state, one row of CELL Float64 slots per index port × PRIORITIES + p: the
// ingress PG's bytes, its headroom use and that use's peak, and the egress queue's bytes and their peak.
// One array with the slots of an index side by side, because an admit or a release touches one ingress and
// one egress row, and in a fabric of many switches each row is a cache miss of its own.
/** Non-headroom bytes of the ingress PG: reserve + shared. */
const PG_BYTES = 0;
const PG_HEADROOM = 1;
const HEADROOM_PEAK = 2;
const EGRESS_BYTES = 3;
const EGRESS_PEAK = 4;
const CELL = 5;

export class Mmu {
  private readonly cells: Float64Array;
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
    this.cells = new Float64Array(numPorts * PRIORITIES * CELL);
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
    return this.cells[(port * PRIORITIES + pg) * CELL + PG_BYTES]!;
  }

  pgHeadroomUsed(port: number, pg: number): number {
    return this.cells[(port * PRIORITIES + pg) * CELL + PG_HEADROOM]!;
  }

  egressDepth(port: number, queue: number): number {
    return this.cells[(port * PRIORITIES + queue) * CELL + EGRESS_BYTES]!;
  }

  /** High-water mark of (port, pg)'s headroom use, at index port × PRIORITIES + pg. */
  headroomPeak(index: number): number {
    return this.cells[index * CELL + HEADROOM_PEAK]!;
  }

  /** High-water mark of the egress queue at index port × PRIORITIES + queue. */
  egressPeak(index: number): number {
    return this.cells[index * CELL + EGRESS_PEAK]!;
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
    const c = this.cells;
    const e = (outPort * PRIORITIES + queue) * CELL;
    const protectedPg = this.pfcProtected(pg);
    if (!protectedPg) {
      // Lossy queue (or PFC off): dynamic egress threshold on the queue.
      const limit = this.buffer.lossyAlpha * (this.sharedPool - this.sharedUsedBytes);
      if (c[e + EGRESS_BYTES]! + bytes > limit + this.buffer.reserve) return DropReason.EgressLimit;
    }
    let headroom = 0;
    if (inPort >= 0) {
      const i = (inPort * PRIORITIES + pg) * CELL;
      const before = c[i + PG_BYTES]!;
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
          if (c[i + PG_HEADROOM]! + bytes > this.headroomSize[inPort]!) return DropReason.HeadroomExhausted;
          headroom = bytes;
        } else if (poolFull) {
          return DropReason.BufferFull;
        }
      }
      if (headroom > 0) {
        c[i + PG_HEADROOM]! += headroom;
        this.headroomUsedBytes += headroom;
        if (c[i + PG_HEADROOM]! > c[i + HEADROOM_PEAK]!) c[i + HEADROOM_PEAK] = c[i + PG_HEADROOM]!;
      } else {
        c[i + PG_BYTES] = after;
        this.reserveUsedBytes += Math.min(after, reserve) - Math.min(before, reserve);
        this.sharedUsedBytes += sharedDelta;
        if (this.sharedUsedBytes > this.sharedPeakBytes) this.sharedPeakBytes = this.sharedUsedBytes;
      }
    } else {
      // Originated by the switch: charge the shared pool directly.
      if (this.sharedUsedBytes + bytes > this.sharedPool) return DropReason.BufferFull;
      this.sharedUsedBytes += bytes;
    }
    c[e + EGRESS_BYTES]! += bytes;
    if (c[e + EGRESS_BYTES]! > c[e + EGRESS_PEAK]!) c[e + EGRESS_PEAK] = c[e + EGRESS_BYTES]!;
    return headroom;
  }

  /** Gives back what `admit` charged, when the packet leaves (or is flushed). */
  release(inPort: number, pg: number, outPort: number, queue: number, bytes: number, headroom: number): void {
    const c = this.cells;
    c[(outPort * PRIORITIES + queue) * CELL + EGRESS_BYTES]! -= bytes;
    if (inPort < 0) {
      this.sharedUsedBytes -= bytes;
      return;
    }
    const i = (inPort * PRIORITIES + pg) * CELL;
    if (headroom > 0) {
      c[i + PG_HEADROOM]! -= headroom;
      this.headroomUsedBytes -= headroom;
      return;
    }
    const reserve = this.buffer.reserve;
    const before = c[i + PG_BYTES]!;
    const after = before - bytes;
    c[i + PG_BYTES] = after;
    this.reserveUsedBytes -= Math.min(before, reserve) - Math.min(after, reserve);
    this.sharedUsedBytes -= Math.max(0, before - reserve) - Math.max(0, after - reserve);
  }

  /** Should (port, pg) assert XOFF now? (Only meaningful for PFC-protected PGs.) */
  shouldXoff(port: number, pg: number): boolean {
    const c = this.cells;
    const i = (port * PRIORITIES + pg) * CELL;
    if (c[i + PG_HEADROOM]! > 0) return true;
    if (this.dynamicXoff) {
      const shared = Math.max(0, c[i + PG_BYTES]! - this.buffer.reserve);
      return shared > 0 && shared >= this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return c[i + PG_BYTES]! >= (this.pfc.xoff as number);
  }

  /** May (port, pg) release its upstream (XON)? */
  shouldXon(port: number, pg: number): boolean {
    const c = this.cells;
    const i = (port * PRIORITIES + pg) * CELL;
    if (c[i + PG_HEADROOM]! > 0) return false;
    const offset = this.pfc.resumeOffset;
    if (this.dynamicXoff) {
      const shared = Math.max(0, c[i + PG_BYTES]! - this.buffer.reserve);
      return shared === 0 || shared + offset <= this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return c[i + PG_BYTES]! + offset <= (this.pfc.xoff as number);
  }
}
