// One egress queue as a ring of rows: a queued packet is one row of a Float64Array (the PacketMeta fields
// that must survive the wait, and the frame's length) plus its frame, written from and read back into a
// PacketMeta, so queueing allocates nothing per packet. Row-major because a packet is pushed and shifted
// one row at a time: its fields share one or two cache lines instead of one line in each of eight
// column arrays, which is what a fabric of many switches, none of them in cache, pays for. The rings of
// one port keep their lengths side by side in one Int32Array (`counts`) so that the scheduler reads every
// queue's length from one place. The ring doubles when full (rarely: it keeps its size for the rest of
// the run).

import type { PacketMeta } from "./packet-meta.js";

const EMPTY = new Uint8Array(0);

// Row layout, in Float64 slots.
const IN_PORT = 0;
const PG = 1;
const HEADROOM = 2;
const L3 = 3;
const MAC = 4;
/**
 * CE mark (bit 0), remarked 802.1p + 1 (bits 1..4), remarked DSCP + 1 (bits 5..11), verified (bit 12,
 * PacketMeta.verified); 0: none of them.
 */
const MARK = 5;
const ENQUEUED_AT = 6;
const LENGTH = 7;
const ROW = 8;

export class QueueRing {
  private frames: Uint8Array[];
  private rows: Float64Array;
  private head = 0;
  private mask: number;

  /**
   * @param counts where this ring keeps its length (shared by the rings of one port), at `slot`; by
   *   default a counter of its own.
   */
  constructor(
    capacity = 16,
    private readonly counts: Int32Array = new Int32Array(1),
    private readonly slot = 0,
  ) {
    const n = 1 << Math.ceil(Math.log2(Math.max(2, capacity)));
    this.mask = n - 1;
    this.frames = new Array<Uint8Array>(n).fill(EMPTY);
    this.rows = new Float64Array(n * ROW);
  }

  get length(): number {
    return this.counts[this.slot]!;
  }

  /** Bytes of the oldest packet's frame (0 when empty). */
  headLength(): number {
    return this.counts[this.slot]! > 0 ? this.rows[this.head * ROW + LENGTH]! : 0;
  }

  push(m: PacketMeta): void {
    const count = this.counts[this.slot]!;
    if (count > this.mask) this.grow(count);
    const i = (this.head + count) & this.mask;
    this.frames[i] = m.frame;
    const r = this.rows;
    const o = i * ROW;
    r[o + IN_PORT] = m.inPort;
    r[o + PG] = m.pg;
    r[o + HEADROOM] = m.headroom;
    r[o + L3] = m.l3;
    r[o + MAC] = m.nextHopMac;
    r[o + MARK] =
      (m.mark ? 1 : 0) | ((m.remarkDot1p + 1) << 1) | ((m.remarkDscp + 1) << 5) | (m.verified ? 0x1000 : 0);
    r[o + ENQUEUED_AT] = m.enqueuedAt;
    r[o + LENGTH] = m.frame.length;
    this.counts[this.slot] = count + 1;
  }

  /** Removes the oldest packet into `m` (its queue and out-port are the caller's); false when empty. */
  shift(m: PacketMeta): boolean {
    const count = this.counts[this.slot]!;
    if (count === 0) return false;
    const i = this.head;
    const frame = this.frames[i]!;
    this.frames[i] = EMPTY;
    const r = this.rows;
    const o = i * ROW;
    m.frame = frame;
    m.length = r[o + LENGTH]!;
    m.inPort = r[o + IN_PORT]!;
    m.pg = r[o + PG]!;
    m.headroom = r[o + HEADROOM]!;
    m.l3 = r[o + L3]!;
    m.nextHopMac = r[o + MAC]!;
    const mark = r[o + MARK]!;
    m.mark = (mark & 1) === 1;
    m.remarkDot1p = ((mark >>> 1) & 0xf) - 1;
    m.remarkDscp = ((mark >>> 5) & 0x7f) - 1;
    m.verified = (mark & 0x1000) !== 0;
    m.enqueuedAt = r[o + ENQUEUED_AT]!;
    this.head = (i + 1) & this.mask;
    this.counts[this.slot] = count - 1;
    return true;
  }

  private grow(count: number): void {
    const old = this.mask + 1;
    const n = old * 2;
    const frames = new Array<Uint8Array>(n).fill(EMPTY);
    const rows = new Float64Array(n * ROW);
    for (let k = 0; k < count; k++) {
      const from = (this.head + k) & this.mask;
      frames[k] = this.frames[from]!;
      rows.set(this.rows.subarray(from * ROW, from * ROW + ROW), k * ROW);
    }
    this.frames = frames;
    this.rows = rows;
    this.head = 0;
    this.mask = n - 1;
  }
}
