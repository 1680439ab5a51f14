// The lab's dilation over time: how many real ns one emulated ns lasts, as a list of segments. A lab whose
// dilation never changes has one segment; `--dilation auto` and `rocelab dilation N` add one per change.
//
// Emulated time is continuous across a change: a segment starts at a real instant (ns since the lab's
// epoch) and at the emulated time the previous segment had reached there, so
//     emulated(real) = startEmu + floor((real - startReal) / factor)   for the segment in force at `real`.
// The supervisor writes segments that start a little in the future (CHANGE_LEAD_NS), so every process of
// the lab reads the change before it takes effect and all of them switch at the same real instant, the
// free-running clocks as well as the synchronised ones.
//
// Layout (a Float64Array, shared between the lab's processes through the native addon's mapShared, or a
// private one): word 0 is the number of segments ever written; segment i occupies words 1 + 3(i mod
// SEGMENTS) … +2: startReal, startEmu, factor. A writer fills a segment before it bumps the count (x86
// keeps stores in order), so a reader never sees a half-written one.

/** Segments kept (a ring: the oldest are overwritten; readers only look at the last few). */
export const SEGMENTS = 256;
/** How far ahead of the writer's now a change takes effect, real ns. */
export const CHANGE_LEAD_NS = 50e6;
/** Bounds of a dilation. */
export const MIN_DILATION = 1;
export const MAX_DILATION = 1e6;

export function dilationTableBytes(): number {
  return (1 + 3 * SEGMENTS) * 8;
}

export class DilationTimeline {
  /** Index of the segment last found in force (readers move forward from it). */
  private cur = 0;
  /**
   * The segment in force at the last look, copied out for the per-frame path: it holds while no segment
   * has been written since (`seenCount`) and real time is within [segFrom, segEnd).
   */
  private seenCount = -1;
  private segFrom = 0;
  private segStart = 0;
  private segEnd = 0;
  private segEmu = 0;
  private segFactor = 1;

  constructor(readonly words: Float64Array) {
    if (words.length < 1 + 3 * SEGMENTS) throw new Error("dilation table too small");
    if (!(words[0]! >= 1)) throw new Error("dilation table not initialised");
  }

  /** A timeline of its own with one segment: dilation `factor` from the epoch on. */
  static fixed(factor: number): DilationTimeline {
    return DilationTimeline.format(new ArrayBuffer(dilationTableBytes()), factor);
  }

  /** Initialises a (shared) buffer with dilation `factor` from the epoch on. */
  static format(buffer: ArrayBuffer, factor: number): DilationTimeline {
    checkFactor(factor);
    const w = new Float64Array(buffer, 0, 1 + 3 * SEGMENTS);
    w.fill(0);
    w[3] = factor;
    w[0] = 1;
    return new DilationTimeline(w);
  }

  /** Segments written so far. */
  get count(): number {
    return this.words[0]!;
  }

  /** The dilation in force at real ns `real`. */
  factor(real: number): number {
    if (this.inCached(real)) return this.segFactor;
    return this.words[this.base(this.find(real)) + 2]!;
  }

  /** Emulated ns (integer) at real ns since the epoch. */
  emulated(real: number): number {
    if (this.inCached(real)) return this.segEmu + Math.floor((real - this.segStart) / this.segFactor);
    const b = this.base(this.find(real));
    const w = this.words;
    return w[b + 1]! + Math.floor((real - w[b]!) / w[b + 2]!);
  }

  /**
   * Whether `real` falls in the segment copied out at the last look, and no segment was written since
   * (every clock read looks here, once or more per forwarded frame: the search and the modulo were ~3 %
   * of a switch process's time).
   */
  private inCached(real: number): boolean {
    return this.words[0] === this.seenCount && real >= this.segFrom && real < this.segEnd;
  }

  /** The real ns since the epoch at which emulated ns `e` is reached (the schedule as known now). */
  realAt(e: number): number {
    const w = this.words;
    const count = w[0]!;
    let i = count - 1;
    const oldest = Math.max(0, count - SEGMENTS);
    while (i > oldest && w[this.base(i) + 1]! > e) i--;
    const b = this.base(i);
    return w[b]! + (e - w[b + 1]!) * w[b + 2]!;
  }

  /**
   * Writer (the supervisor): from real ns `at` on, dilation is `factor`. `at` must not be earlier than the
   * last segment's start.
   */
  change(at: number, factor: number): void {
    checkFactor(factor);
    const w = this.words;
    const count = w[0]!;
    const last = this.base(count - 1);
    if (at < w[last]!) throw new Error("a dilation change cannot start before the one in force");
    const startEmu = this.emulated(at);
    const b = this.base(count);
    w[b] = at;
    w[b + 1] = startEmu;
    w[b + 2] = factor;
    w[0] = count + 1;
  }

  /** Every segment still kept, oldest first. */
  segments(): { startReal: number; startEmu: number; factor: number }[] {
    const out: { startReal: number; startEmu: number; factor: number }[] = [];
    const count = this.words[0]!;
    for (let i = Math.max(0, count - SEGMENTS); i < count; i++) {
      const b = this.base(i);
      out.push({ startReal: this.words[b]!, startEmu: this.words[b + 1]!, factor: this.words[b + 2]! });
    }
    return out;
  }

  private base(i: number): number {
    return 1 + 3 * (i % SEGMENTS);
  }

  /** Index of the segment in force at `real`. */
  private find(real: number): number {
    const w = this.words;
    const count = w[0]!;
    const oldest = Math.max(0, count - SEGMENTS);
    let i = Math.max(this.cur, oldest);
    while (i + 1 < count && w[this.base(i + 1)]! <= real) i++;
    while (i > oldest && w[this.base(i)]! > real) i--;
    // Only the clock's own now moves the cursor forward for good; a look into the past does not.
    if (i > this.cur) this.cur = i;
    const b = this.base(i);
    this.seenCount = count;
    // The oldest kept segment stands for everything before it too (as the search treats it).
    this.segFrom = i === oldest ? Number.NEGATIVE_INFINITY : w[b]!;
    this.segStart = w[b]!;
    this.segEnd = i + 1 < count ? w[this.base(i + 1)]! : Number.POSITIVE_INFINITY;
    this.segEmu = w[b + 1]!;
    this.segFactor = w[b + 2]!;
    return i;
  }
}

function checkFactor(factor: number): void {
  if (!(factor >= MIN_DILATION && factor <= MAX_DILATION))
    throw new Error(`dilation must be between ${MIN_DILATION} and ${MAX_DILATION}, got ${factor}`);
}

/** A clock's dilation as its creator gives it: a fixed number or the lab's timeline. */
export type Dilation = number | DilationTimeline;

export function asTimeline(d: Dilation): DilationTimeline {
  return typeof d === "number" ? DilationTimeline.fixed(d) : d;
}
