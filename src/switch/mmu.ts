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
//
// Two accountings (`buffer.mmu`). "default": every (port, PG) reserve and every lossless PG's headroom
// leave the shared pool, and a packet gives back exactly what it was charged (reserve, shared or headroom)
// when it leaves. "hpcc-ns3": HPCC's SwitchMmu as written: the pool loses one reserve and one headroom per
// port, the threshold is the integer ⌊α × free⌋, a departing packet empties its PG's headroom first, and
// XOFF is due whenever the PG's shared use is at the threshold (also at 0 of 0). See docs/switch.md.

import { PRIORITIES } from "../wire/pfc.js";
import { DropReason } from "./drops.js";

/** How the MMU accounts (features/buffer.ts documents both). */
export const MmuMode = {
  Default: "default",
  HpccNs3: "hpcc-ns3",
} as const;
export type MmuMode = (typeof MmuMode)[keyof typeof MmuMode];

/** The buffer as the MMU sees it (features/buffer.ts owns the section). */
export interface MmuBuffer {
  /** Accounting: rocelab's (default) or HPCC's ns-3 SwitchMmu. */
  readonly mmu: MmuMode;
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

/**
 * HPCC's ns-3 headroom per port (simulation/scratch/third.cc): three one-way bandwidth-delay products,
 * `rate * delay / 8 / 1e9 * 3` in integer arithmetic (delay in ns).
 */
export function hpccNs3HeadroomBytes(rateBps: number, delayNs: number): number {
  return Math.floor((rateBps * delayNs) / 8 / 1e9) * 3;
}

/**
 * The shared pool: the buffer less the reserves and the headroom. Default: a reserve per (port, priority
 * group) and a headroom per (port, lossless PG), `headroomPerPort` indexed by port number. hpcc-ns3: one
 * reserve per port in use and one headroom per port (SwitchMmu::ConfigNPort), though each (port, queue)
 * may use a reserve. Never below 0 (HPCC's unsigned arithmetic wraps around instead: docs/fidelity.md).
 */
export function sharedPoolBytes(
  mode: MmuMode,
  size: number,
  reserve: number,
  headroomPerPort: ArrayLike<number>,
  losslessPgs: number,
  portsInUse: number,
): number {
  let headroomTotal = 0;
  for (let port = 0; port < headroomPerPort.length; port++) headroomTotal += headroomPerPort[port]!;
  if (mode === MmuMode.HpccNs3) return Math.max(0, size - portsInUse * reserve - headroomTotal);
  // Every index up to the highest port number has its reserve (port 0, unused, too).
  const ports = headroomPerPort.length;
  return Math.max(0, size - ports * PRIORITIES * reserve - headroomTotal * losslessPgs);
}

// The per-(port, priority) state, one row of CELL Float64 slots per index port × PRIORITIES + p: the
// ingress PG's bytes, its headroom use and that use's peak, and the egress queue's bytes and their peak.
// One array with the slots of an index side by side, because an admit or a release touches one ingress and
// one egress row, and in a fabric of many switches each row is a cache miss of its own. PG_BYTES: the
// ingress PG's bytes outside headroom (reserve + shared).
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
  /** `buffer.mmu` is hpcc-ns3. */
  private hpcc: boolean;
  /** Ports configured (numbers may leave gaps: port 0 is never one). */
  private portsInUse: number;

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
    this.hpcc = buffer.mmu === MmuMode.HpccNs3;
    this.portsInUse = numPorts;
    this.recomputePool();
  }

  /** New buffer sizes (the current occupancy is kept); `portsInUse`: how many ports are configured. */
  setBuffer(buffer: MmuBuffer, headroomPerPort: readonly number[], portsInUse = this.numPorts): void {
    this.buffer = buffer;
    this.portsInUse = portsInUse;
    this.hpcc = buffer.mmu === MmuMode.HpccNs3;
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
    let losslessPgs = 0;
    for (let p = 0; p < PRIORITIES; p++) if (this.losslessMask & (1 << p)) losslessPgs++;
    const { mmu, size, reserve } = this.buffer;
    this.sharedPool = sharedPoolBytes(mmu, size, reserve, this.headroomSize, losslessPgs, this.portsInUse);
  }

  /**
   * hpcc-ns3: the most shared buffer one PG may use before XOFF, now: ⌊α × (free shared buffer)⌋
   * (SwitchMmu::GetPfcThreshold, a right shift by pfc_a_shift), or a static `pfc.xoff` less the reserve.
   */
  sharedLimit(): number {
    if (!this.dynamicXoff) return (this.pfc.xoff as number) - this.buffer.reserve;
    return Math.floor(this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes));
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

  /** Restarts every high-water mark from the present level (a run's time 0: lab/stats-since.ts). */
  clearPeaks(): void {
    const c = this.cells;
    for (let i = 0; i < c.length; i += CELL) {
      c[i + HEADROOM_PEAK] = c[i + PG_HEADROOM]!;
      c[i + EGRESS_PEAK] = c[i + EGRESS_BYTES]!;
    }
    this.sharedPeakBytes = this.sharedUsedBytes;
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
    if (inPort >= 0 && protectedPg && this.hpcc) {
      headroom = this.admitHpcc((inPort * PRIORITIES + pg) * CELL, this.headroomSize[inPort]!, bytes);
      if (headroom < 0) return DropReason.HeadroomExhausted;
    } else if (inPort >= 0) {
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

  /**
   * SwitchMmu::CheckIngressAdmission and UpdateIngressAdmission for a PFC-protected PG at cell row `i`:
   * drop (-1) only when the packet fits neither the headroom nor under the threshold; else reserve while
   * the PG's use stays within it, headroom when its shared use would pass the threshold, shared otherwise.
   * Returns the headroom share of the charge.
   */
  private admitHpcc(i: number, headroomSize: number, bytes: number): number {
    const c = this.cells;
    const reserve = this.buffer.reserve;
    const before = c[i + PG_BYTES]!;
    const limit = this.sharedLimit();
    if (bytes + c[i + PG_HEADROOM]! > headroomSize && bytes + Math.max(0, before - reserve) > limit)
      return -1;
    const after = before + bytes;
    if (after > reserve && after - reserve > limit) {
      c[i + PG_HEADROOM]! += bytes;
      this.headroomUsedBytes += bytes;
      if (c[i + PG_HEADROOM]! > c[i + HEADROOM_PEAK]!) c[i + HEADROOM_PEAK] = c[i + PG_HEADROOM]!;
      return bytes;
    }
    const shared = Math.max(0, Math.min(bytes, after - reserve));
    c[i + PG_BYTES] = after;
    this.reserveUsedBytes += bytes - shared;
    this.sharedUsedBytes += shared;
    if (this.sharedUsedBytes > this.sharedPeakBytes) this.sharedPeakBytes = this.sharedUsedBytes;
    return 0;
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
    if (this.hpcc) {
      this.releaseHpcc(i, bytes);
      return;
    }
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

  /** SwitchMmu::RemoveFromIngressAdmission: what leaves empties the headroom, then shared, then reserve. */
  private releaseHpcc(i: number, bytes: number): void {
    const c = this.cells;
    const fromHeadroom = Math.min(c[i + PG_HEADROOM]!, bytes);
    c[i + PG_HEADROOM]! -= fromHeadroom;
    this.headroomUsedBytes -= fromHeadroom;
    const rest = bytes - fromHeadroom;
    const before = c[i + PG_BYTES]!;
    const fromShared = Math.min(rest, Math.max(0, before - this.buffer.reserve));
    c[i + PG_BYTES] = before - rest;
    this.sharedUsedBytes -= fromShared;
    this.reserveUsedBytes -= rest - fromShared;
  }

  /** Should (port, pg) assert XOFF now? (Only meaningful for PFC-protected PGs.) */
  shouldXoff(port: number, pg: number): boolean {
    const c = this.cells;
    const i = (port * PRIORITIES + pg) * CELL;
    if (c[i + PG_HEADROOM]! > 0) return true;
    // HPCC's CheckShouldPause: shared use at the threshold, 0 of 0 included (an empty pool pauses at once).
    if (this.hpcc) return Math.max(0, c[i + PG_BYTES]! - this.buffer.reserve) >= this.sharedLimit();
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
    if (this.hpcc) {
      const shared = Math.max(0, c[i + PG_BYTES]! - this.buffer.reserve);
      return shared === 0 || shared + offset <= this.sharedLimit();
    }
    if (this.dynamicXoff) {
      const shared = Math.max(0, c[i + PG_BYTES]! - this.buffer.reserve);
      return shared === 0 || shared + offset <= this.pfc.alpha * (this.sharedPool - this.sharedUsedBytes);
    }
    return c[i + PG_BYTES]! + offset <= (this.pfc.xoff as number);
  }
}
