// The cells of sim-vs-ns3's outcome tables (ns3-fidelity.ts): ours over HPCC's per metric, over seeds —
// ratios of means with a Welch test, paired per-seed ratios with a Student t interval, and spreads.

import { fmt, fmtInt } from "./common.js";

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Whether two sets of per-seed figures have means further apart than twice the standard error of their
 * difference (Welch's, about 95 %). Figures that do not vary with the seed (congestion control off) have
 * no spread, so any difference between them counts; with fewer than two seeds on a side, nothing does.
 */
export function meansDiffer(a: readonly number[], b: readonly number[]): boolean {
  if (a.length < 2 || b.length < 2) return false;
  const ma = mean(a);
  const mb = mean(b);
  if (!Number.isFinite(ma) || !Number.isFinite(mb)) return ma !== mb;
  const v = (xs: readonly number[], m: number): number =>
    xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
  const se = Math.sqrt(v(a, ma) / a.length + v(b, mb) / b.length);
  return Math.abs(ma - mb) > 2 * se;
}

/**
 * Ours over HPCC's, of the means over seeds: "1.03", "=" (both 0), or both figures when one is 0; "*" when
 * the means differ by more than the seeds' spread explains (`meansDiffer`).
 */
export function ratioCell(ours: readonly number[], theirs: readonly number[]): string {
  const a = mean(ours);
  const b = mean(theirs);
  const star = meansDiffer(ours, theirs) ? "*" : "";
  if (!Number.isFinite(a) || !Number.isFinite(b))
    return a === b ? "=" : `${fmtValue(a)} / ${fmtValue(b)}${star}`;
  if (a === 0 && b === 0) return "=";
  if (a === 0 || b === 0) return `${fmtValue(a)} / ${fmtValue(b)}${star}`;
  return `${fmt(a / b, 2)}${star}`;
}

/** Student's t at 97.5 % for n − 1 degrees of freedom (n = 2..31; 2.0 beyond). */
const T975 = [
  Number.NaN,
  Number.NaN,
  12.71,
  4.3,
  3.18,
  2.78,
  2.57,
  2.45,
  2.36,
  2.31,
  2.26,
  2.23,
  2.2,
  2.18,
  2.16,
  2.14,
  2.13,
  2.12,
  2.11,
  2.1,
  2.09,
  2.09,
  2.08,
  2.07,
  2.07,
  2.06,
  2.06,
  2.06,
  2.05,
  2.05,
  2.05,
  2.04,
];

/**
 * Paired seeds: the mean of ours / HPCC's per seed with its 95 % interval, "1.04 (0.97–1.11)", "*" when
 * the interval leaves out 1; a seed where either is unfinished (+∞) or both are 0 is shown as such.
 */
export function pairedRatioCell(ours: readonly number[], theirs: readonly number[]): string {
  if ([...ours, ...theirs].every((x) => Number.isNaN(x))) return "no flow";
  const n = Math.min(ours.length, theirs.length);
  const r: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = ours[i]!;
    const b = theirs[i]!;
    // A seed whose flow list has no flow in this size bucket (the same list in both): not a pair.
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (!Number.isFinite(a) || !Number.isFinite(b))
      return `${fmtValue(mean(ours))} / ${fmtValue(mean(theirs))}`;
    if (a === 0 && b === 0) continue;
    if (a === 0 || b === 0) {
      const star = meansDiffer(ours, theirs) ? "*" : "";
      return `${fmtValue(mean(ours))} / ${fmtValue(mean(theirs))}${star}`;
    }
    r.push(a / b);
  }
  if (r.length === 0) return "=";
  const m = mean(r);
  if (r.length < 2) return fmt(m, 2);
  const sd = Math.sqrt(r.reduce((acc, x) => acc + (x - m) ** 2, 0) / (r.length - 1));
  const half = (T975[r.length] ?? 2) * (sd / Math.sqrt(r.length));
  const star = m - half > 1 || m + half < 1 ? "*" : "";
  return `${fmt(m, 2)} (${fmt(m - half, 2)}–${fmt(m + half, 2)})${star}`;
}

function fmtValue(x: number): string {
  if (x === Number.POSITIVE_INFINITY) return "unfinished";
  return Math.abs(x) >= 100 ? fmtInt(x) : fmt(x, 2);
}

/** "mean (min–max)" over seeds, or the single value when they agree. */
export function spreadCell(xs: readonly number[], scale = 1, digits = 0): string {
  // A size bucket no flow fell in (a short --arrivals window draws few large flows).
  if (xs.length > 0 && xs.every((x) => Number.isNaN(x))) return "no flow";
  // Seeds without a flow in the bucket are left out of its mean and range.
  const v = xs.filter((x) => !Number.isNaN(x)).map((x) => x / scale);
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  const f = (x: number): string =>
    x === Number.POSITIVE_INFINITY ? "unfinished" : digits === 0 ? fmtInt(x) : fmt(x, digits);
  return lo === hi ? f(lo) : `${f(mean(v))} (${f(lo)}–${f(hi)})`;
}
