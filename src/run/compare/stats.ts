// The statistics of `rocelab compare`: the mean of a metric over seeds with a Student-t 95 % confidence
// interval, and the same for the paired difference between two variants run with the same seeds.
//
// Why t and not the bootstrap: a comparison runs 5 to 20 seeds, and at such sizes the percentile bootstrap
// interval is too narrow (it behaves like a z interval with the standard error shrunk by √((n−1)/n)), as
// Hesterberg shows ("What Teachers Should Know About the Bootstrap", The American Statistician 69(4), 2015,
// §3.4). The t interval is exact for normal data and robust to moderate skew at these sizes; the
// quantiles are those of the NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2
// (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm). Pairing by seed (both variants see
// the same seed: the same WRED draws, start jitter and ECMP hash seeds) removes the part of the
// seed-to-seed scatter the variants share (common random numbers; the paired t interval of the handbook's
// §7.3.1, https://www.itl.nist.gov/div898/handbook/prc/section3/prc31.htm).

/** t(0.975, df) for df = 1..30, then 40, 60, 120 (NIST e-Handbook table 1.3.6.7.2). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The 97.5 % quantile of Student's t with `df` degrees of freedom (two-sided 95 %). */
export function t975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`degrees of freedom must be >= 1, not ${df}`);
  if (df <= 30) return T975[df - 1]!;
  if (df <= 40) return 2.021;
  if (df <= 60) return 2.0;
  if (df <= 120) return 1.98;
  return 1.96;
}

export interface Interval {
  readonly n: number;
  readonly mean: number;
  readonly median: number;
  /** Sample standard deviation (n − 1): the scatter from one seed to the next. */
  readonly sd: number;
  /** 95 % confidence interval of the mean (t); equal to the mean when n = 1 or every value is the same. */
  readonly lo: number;
  readonly hi: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Mean, median, standard deviation and the t 95 % interval of the mean. */
export function meanInterval(values: readonly number[]): Interval {
  const n = values.length;
  if (n === 0) throw new RangeError("no values");
  const mean = values.reduce((a, v) => a + v, 0) / n;
  if (n === 1) return { n, mean, median: mean, sd: 0, lo: mean, hi: mean };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { n, mean, median: median(values), sd, lo: mean - half, hi: mean + half };
}

/** The interval of the per-seed differences b[i] − a[i] (same seed i in both). */
export function pairedDifference(a: readonly number[], b: readonly number[]): Interval {
  if (a.length !== b.length)
    throw new RangeError(`paired samples differ in length: ${a.length}, ${b.length}`);
  return meanInterval(a.map((v, i) => b[i]! - v));
}

/** Whether an interval lies wholly on one side of 0: 1 above, −1 below, 0 when it contains 0. */
export function sideOfZero(i: Interval): -1 | 0 | 1 {
  if (i.n < 2) return 0;
  if (i.lo > 0) return 1;
  if (i.hi < 0) return -1;
  return 0;
}
