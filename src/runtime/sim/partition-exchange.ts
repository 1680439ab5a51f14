// The shared memory between the workers of a parallel simulator run (run/sim-parallel.ts): frames that
// cross from one partition to another, as bytes, and the barrier that closes each time window.
//
// Every ordered pair of workers (from, to) has two frame buffers, one per window parity: in window k the
// sender appends to buffer k mod 2; after the window's barrier the receiver reads it. A worker can be at
// most one window ahead of another (the barrier), so it writes buffer k mod 2 again only in window k + 2,
// after the receiver has read it. The earliest next event of each worker (including the arrival times of
// the frames it sent) is published per parity beside them, so after the barrier every worker computes the
// same next global event time, and so the same next window.

import { copyFrame } from "../../wire/frame-alloc.js";

/** Bytes of each frame buffer (a window's frames from one worker to another). */
export const EXCHANGE_BUFFER_BYTES = 16 * 1024 * 1024;
/**
 * Frame record: arrival (f64), link (u32), link generation (u32), length (u32), side (u8), verified (u8:
 * the sender's DeviceEnv.transmit flag), padding.
 */
const RECORD_HEAD = 24;
const COUNT = 0;
const GEN = 1;
const ABORT = 2;
/** Spins before sleeping in the barrier (the other worker is usually a few µs away). */
const SPINS = 20_000;

/** What the coordinator makes and every worker gets (structured-cloned: the buffers are shared). */
export interface ExchangeMemory {
  readonly parts: number;
  /** Int32: barrier count, barrier generation, abort flag. */
  readonly control: SharedArrayBuffer;
  /** Float64 [parity][worker]: the worker's earliest next event after its window. */
  readonly next: SharedArrayBuffer;
  /** Float64 [worker]: its emulated clock (for progress). */
  readonly clocks: SharedArrayBuffer;
  /** [from * parts + to][parity]: frames in flight from one worker to another. */
  readonly frames: readonly (readonly [SharedArrayBuffer, SharedArrayBuffer])[];
}

export function createExchangeMemory(parts: number, bufferBytes = EXCHANGE_BUFFER_BYTES): ExchangeMemory {
  const frames: [SharedArrayBuffer, SharedArrayBuffer][] = [];
  for (let i = 0; i < parts * parts; i++) {
    const from = Math.floor(i / parts);
    const to = i % parts;
    const size = from === to ? 8 : bufferBytes;
    frames.push([new SharedArrayBuffer(size), new SharedArrayBuffer(size)]);
  }
  return {
    parts,
    control: new SharedArrayBuffer(16),
    next: new SharedArrayBuffer(16 * parts),
    clocks: new SharedArrayBuffer(8 * parts),
    frames,
  };
}

/** Raised in a worker when another one failed (its own error says why). */
export class ExchangeAborted extends Error {}

/** A frame taken from another worker. */
export type Incoming = (
  link: number,
  side: 0 | 1,
  arrival: number,
  gen: number,
  frame: Uint8Array,
  verified: boolean,
) => void;

export class Exchange {
  private readonly control: Int32Array;
  private readonly next: Float64Array;
  readonly clocks: Float64Array;
  private parity = 0;
  private minSent = Number.POSITIVE_INFINITY;
  private readonly out: DataView[][];
  private readonly outBytes: Uint8Array[][];
  private readonly used: number[];
  /** Frames sent to other workers so far. */
  sent = 0;

  constructor(
    private readonly mem: ExchangeMemory,
    private readonly self: number,
  ) {
    this.control = new Int32Array(mem.control);
    this.next = new Float64Array(mem.next);
    this.clocks = new Float64Array(mem.clocks);
    this.out = [0, 1].map((p) => mem.frames.map((pair) => new DataView(pair[p]!)));
    this.outBytes = [0, 1].map((p) => mem.frames.map((pair) => new Uint8Array(pair[p]!)));
    this.used = new Array<number>(mem.parts).fill(8);
  }

  /** Puts a frame for worker `to` in this window's buffer. */
  send(
    to: number,
    link: number,
    side: 0 | 1,
    arrival: number,
    gen: number,
    frame: Uint8Array,
    verified: boolean,
  ): void {
    const slot = this.self * this.mem.parts + to;
    const view = this.out[this.parity]![slot]!;
    const at = this.used[to]!;
    const end = at + RECORD_HEAD + ((frame.length + 7) & ~7);
    if (end > view.byteLength)
      throw new Error(
        `a window's frames from worker ${this.self} to ${to} exceed ${view.byteLength} bytes of shared memory`,
      );
    view.setFloat64(at, arrival, true);
    view.setUint32(at + 8, link, true);
    view.setUint32(at + 12, gen, true);
    view.setUint32(at + 16, frame.length, true);
    view.setUint8(at + 20, side);
    view.setUint8(at + 21, verified ? 1 : 0);
    this.outBytes[this.parity]![slot]!.set(frame, at + RECORD_HEAD);
    this.used[to] = end;
    if (arrival < this.minSent) this.minSent = arrival;
    this.sent++;
  }

  /**
   * Closes this window: publishes `nextLocal` (this worker's earliest queued event), waits for every worker,
   * hands the frames sent to this worker to `incoming`, and returns the earliest event of any worker.
   */
  closeWindow(nextLocal: number, incoming: Incoming): number {
    const parts = this.mem.parts;
    const p = this.parity;
    for (let to = 0; to < parts; to++) {
      if (to === this.self) continue;
      this.out[p]![this.self * parts + to]!.setInt32(0, this.used[to]!, true);
      this.used[to] = 8;
    }
    this.next[p * parts + this.self] = Math.min(nextLocal, this.minSent);
    this.minSent = Number.POSITIVE_INFINITY;
    this.barrier();
    let global = Number.POSITIVE_INFINITY;
    for (let from = 0; from < parts; from++) {
      global = Math.min(global, this.next[p * parts + from]!);
      if (from === this.self) continue;
      const slot = from * parts + this.self;
      const view = this.out[p]![slot]!;
      const bytes = this.outBytes[p]![slot]!;
      const used = view.getInt32(0, true);
      for (let at = 8; at < used; ) {
        const len = view.getUint32(at + 16, true);
        // A copy: the sender writes this buffer again two windows on, and the receiver owns its frames.
        // Into a slab (frame-alloc.ts), as every frame of a single-threaded run: a frame of its own costs
        // an off-heap allocation and external memory that drives the collector's full collections.
        const frame = copyFrame(bytes.subarray(at + RECORD_HEAD, at + RECORD_HEAD + len));
        incoming(
          view.getUint32(at + 8, true),
          view.getUint8(at + 20) as 0 | 1,
          view.getFloat64(at, true),
          view.getUint32(at + 12, true),
          frame,
          view.getUint8(at + 21) === 1,
        );
        at += RECORD_HEAD + ((len + 7) & ~7);
      }
    }
    this.parity = 1 - p;
    return global;
  }

  /** Tells every worker to stop (this one failed). */
  abort(): void {
    Atomics.store(this.control, ABORT, 1);
    Atomics.add(this.control, GEN, 1);
    Atomics.notify(this.control, GEN);
  }

  private barrier(): void {
    const c = this.control;
    if (Atomics.load(c, ABORT) !== 0) throw new ExchangeAborted("another worker of this run failed");
    const gen = Atomics.load(c, GEN);
    if (Atomics.add(c, COUNT, 1) === this.mem.parts - 1) {
      Atomics.store(c, COUNT, 0);
      Atomics.add(c, GEN, 1);
      Atomics.notify(c, GEN);
      return;
    }
    let spins = 0;
    while (Atomics.load(c, GEN) === gen) {
      if (++spins > SPINS) Atomics.wait(c, GEN, gen, 50);
    }
    if (Atomics.load(c, ABORT) !== 0) throw new ExchangeAborted("another worker of this run failed");
  }
}
