// Thinning a series before it is drawn: a chart is WIDTH pixels wide, so a series of 10,000 samples draws
// most of them onto pixels that already have ink, and the SVG carries every one of them. Per pixel column
// only the lowest and the highest point change what the line looks like (the rest fall on the vertical
// stroke between them), so keeping those two — in their order — and the series' first and last point draws
// the same picture: a peak, a pause (a drop to 0) or a drop survives however narrow. This is the min/max
// half of M4 (Jugel et al., "M4: A Visualization-Oriented Time Series Data Aggregation", VLDB 2014,
// https://www.vldb.org/pvldb/vol7/p797-jugel.pdf), which adds each column's first and last point; here the
// neighbouring column's extremes stand in for them, at most one pixel away.

/** Most points a series keeps per pixel column (its lowest and its highest). */
export const POINTS_PER_COLUMN = 2;

export interface DecimateOptions {
  /** The chart's x range in the series' units (default: the series' own first and last t). */
  readonly from?: number;
  readonly to?: number;
  /** Where t lands on the axis before it is split into columns (Math.log10 for a log axis). */
  readonly axis?: (t: number) => number;
}

/**
 * The points of `points` (in their order, t not decreasing) that a chart `columns` pixels wide shows: per
 * column the lowest and the highest value (the first of each on ties), and always the first and the last
 * point. At most POINTS_PER_COLUMN × columns + 2 points; a series already that short comes back untouched.
 */
export function decimate<P extends { readonly t: number; readonly v: number }>(
  points: readonly P[],
  columns: number,
  opts: DecimateOptions = {},
): P[] {
  const n = points.length;
  if (n <= POINTS_PER_COLUMN * columns + 2 || columns < 1) return [...points];
  const axis = opts.axis ?? ((t: number) => t);
  const x0 = axis(opts.from ?? points[0]!.t);
  const span = axis(opts.to ?? points[n - 1]!.t) - x0;
  const column = (t: number) => {
    const c = span > 0 ? Math.floor(((axis(t) - x0) / span) * columns) : 0;
    return Number.isFinite(c) ? Math.min(columns - 1, Math.max(0, c)) : 0;
  };
  const out: P[] = [points[0]!];
  let i = 1;
  while (i < n - 1) {
    const c = column(points[i]!.t);
    let lo = i;
    let hi = i;
    let j = i + 1;
    for (; j < n - 1 && column(points[j]!.t) === c; j++) {
      if (points[j]!.v < points[lo]!.v) lo = j;
      if (points[j]!.v > points[hi]!.v) hi = j;
    }
    out.push(points[Math.min(lo, hi)]!);
    if (lo !== hi) out.push(points[Math.max(lo, hi)]!);
    i = j;
  }
  out.push(points[n - 1]!);
  return out;
}
