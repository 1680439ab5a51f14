// One egress queue as a struct-of-arrays ring: a queued packet is a row of typed-array columns (and its
// frame), written from and read back into a PacketMeta, so queueing allocates nothing per packet. The ring
// doubles when full (rarely: it keeps its size for the rest of the run).

import type { PacketMeta } from "./packet-meta.js";

const EMPTY = new Uint8Array(0);

export class QueueRing {
  private frames: Uint8Array[];
  private inPort: Int32Array;
  private pg: Uint8Array;
  private headroom: Float64Array;
  private l3: Int32Array;
  private mac: Float64Array;
  private mark: Uint8Array;
  private enqueuedAt: Float64Array;
  private head = 0;
  private count = 0;
  private mask: number;

  constructor(capacity = 16) {
    const n = 1 << Math.ceil(Math.log2(Math.max(2, capacity)));
    this.mask = n - 1;
    this.frames = new Array<Uint8Array>(n).fill(EMPTY);
    this.inPort = new Int32Array(n);
    this.pg = new Uint8Array(n);
    this.headroom = new Float64Array(n);
    this.l3 = new Int32Array(n);
    this.mac = new Float64Array(n);
    this.mark = new Uint8Array(n);
    this.enqueuedAt = new Float64Array(n);
  }

  get length(): number {
    return this.count;
  }

  /** Bytes of the oldest packet's frame (0 when empty). */
  headLength(): number {
    return this.count > 0 ? this.frames[this.head]!.length : 0;
  }

  push(m: PacketMeta): void {
    if (this.count > this.mask) this.grow();
    const i = (this.head + this.count) & this.mask;
    this.frames[i] = m.frame;
    this.inPort[i] = m.inPort;
    this.pg[i] = m.pg;
    this.headroom[i] = m.headroom;
    this.l3[i] = m.l3;
    this.mac[i] = m.nextHopMac;
    this.mark[i] = m.mark ? 1 : 0;
    this.enqueuedAt[i] = m.enqueuedAt;
    this.count++;
  }

  /** Removes the oldest packet into `m` (its queue and out-port are the caller's); false when empty. */
  shift(m: PacketMeta): boolean {
    if (this.count === 0) return false;
    const i = this.head;
    const frame = this.frames[i]!;
    this.frames[i] = EMPTY;
    m.frame = frame;
    m.length = frame.length;
    m.inPort = this.inPort[i]!;
    m.pg = this.pg[i]!;
    m.headroom = this.headroom[i]!;
    m.l3 = this.l3[i]!;
    m.nextHopMac = this.mac[i]!;
    m.mark = this.mark[i] === 1;
    m.enqueuedAt = this.enqueuedAt[i]!;
    this.head = (i + 1) & this.mask;
    this.count--;
    return true;
  }

  private grow(): void {
    const n = (this.mask + 1) * 2;
    const old = this.mask + 1;
    const order = (i: number): number => (this.head + i) & this.mask;
    const frames = new Array<Uint8Array>(n).fill(EMPTY);
    for (let i = 0; i < this.count; i++) frames[i] = this.frames[order(i)]!;
    this.frames = frames;
    const copy = <A extends Int32Array | Uint8Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(n);
      for (let i = 0; i < this.count; i++) b[i] = a[(this.head + i) % old]!;
      return b;
    };
    this.inPort = copy(this.inPort, (k) => new Int32Array(k));
    this.pg = copy(this.pg, (k) => new Uint8Array(k));
    this.headroom = copy(this.headroom, (k) => new Float64Array(k));
    this.l3 = copy(this.l3, (k) => new Int32Array(k));
    this.mac = copy(this.mac, (k) => new Float64Array(k));
    this.mark = copy(this.mark, (k) => new Uint8Array(k));
    this.enqueuedAt = copy(this.enqueuedAt, (k) => new Float64Array(k));
    this.head = 0;
    this.mask = n - 1;
  }
}
