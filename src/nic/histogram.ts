// A log-linear histogram for latencies in nanoseconds: constant memory, O(1) record, mergeable.
//
// Values below 64 have a bucket each. Above, every power of two [2^e, 2^(e+1)) is split into 32 equal
// buckets, so a bucket is at most 1/32 of its lower bound wide and a percentile read from the bucket's
// midpoint is within ~1.6 % of the true value. Values are clamped to 2^32 − 1 ns (4.3 s), far beyond any
// one-way delay a fabric of this size produces; 896 counters cover the whole range.

// Buckets per power of two: 2^SUB_BITS.
const SUB_BITS = 5;
const SUB = 1 << SUB_BITS;
/** Largest value recorded exactly into its own bucket range (anything above is clamped here). */
const MAX_VALUE = 0xffff_ffff;
const BUCKETS = (32 - SUB_BITS + 1) * SUB;

/**
 * What a report needs from a histogram, in the histogram's unit (ns), plus the non-empty buckets so that
 * snapshots taken in different processes can be merged (`Histogram.fromSnapshot`).
 */
export interface HistogramSnapshot {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  /** [bucket index, count] of every non-empty bucket, ascending. */
  readonly buckets: readonly (readonly [number, number])[];
}

function bucketOf(value: number): number {
  const v = value <= 0 ? 0 : value >= MAX_VALUE ? MAX_VALUE : Math.floor(value);
  if (v < SUB) return v;
  const e = 31 - Math.clz32(v);
  return (e - SUB_BITS + 1) * SUB + ((v >>> (e - SUB_BITS)) - SUB);
}

/** Lower bound and width of bucket `i`. */
function bucketRange(i: number): { low: number; width: number } {
  if (i < SUB) return { low: i, width: 1 };
  const group = Math.floor(i / SUB);
  const e = group + SUB_BITS - 1;
  const width = 2 ** (e - SUB_BITS);
  return { low: (SUB + (i % SUB)) * width, width };
}

/** Log-linear histogram of non-negative values (ns), 896 buckets, ≤ 1.6 % error above 64. */
export class Histogram {
  private readonly counts = new Float64Array(BUCKETS);
  private n = 0;
  private sum = 0;
  private lo = Number.POSITIVE_INFINITY;
  private hi = 0;

  get count(): number {
    return this.n;
  }

  /** Records one value (ns; negative values count as 0). */
  record(value: number): void {
    this.counts[bucketOf(value)]!++;
    this.n++;
    const v = Math.max(value, 0);
    this.sum += v;
    if (v < this.lo) this.lo = v;
    if (v > this.hi) this.hi = v;
  }

  /** Adds every sample of `other` to this histogram. */
  merge(other: Histogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.n += other.n;
    this.sum += other.sum;
    if (other.lo < this.lo) this.lo = other.lo;
    if (other.hi > this.hi) this.hi = other.hi;
  }

  clear(): void {
    this.counts.fill(0);
    this.n = 0;
    this.sum = 0;
    this.lo = Number.POSITIVE_INFINITY;
    this.hi = 0;
  }

  /**
   * The value below which a fraction `q` (0..1) of the samples lie: the midpoint of the bucket holding the
   * sample of rank ⌈q·count⌉, clamped to the exact minimum and maximum. 0 when empty.
   */
  percentile(q: number): number {
    if (this.n === 0) return 0;
    const rank = Math.min(this.n, Math.max(1, Math.ceil(q * this.n)));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) {
        const { low, width } = bucketRange(i);
        const mid = low + (width - 1) / 2;
        return Math.min(this.hi, Math.max(this.lo, mid));
      }
    }
    return this.hi;
  }

  /** Rebuilds a histogram from a snapshot (percentiles then agree with the original's). */
  static fromSnapshot(s: HistogramSnapshot): Histogram {
    const h = new Histogram();
    for (const [i, c] of s.buckets) if (i >= 0 && i < BUCKETS) h.counts[i] = c;
    h.n = s.count;
    h.sum = s.mean * s.count;
    if (s.count > 0) {
      h.lo = s.min;
      h.hi = s.max;
    }
    return h;
  }

  snapshot(): HistogramSnapshot {
    const buckets: [number, number][] = [];
    for (let i = 0; i < BUCKETS; i++) if (this.counts[i]! > 0) buckets.push([i, this.counts[i]!]);
    return {
      count: this.n,
      min: this.n === 0 ? 0 : this.lo,
      mean: this.n === 0 ? 0 : this.sum / this.n,
      p50: this.percentile(0.5),
      p99: this.percentile(0.99),
      p999: this.percentile(0.999),
      max: this.hi,
      buckets,
    };
  }
}
