// `sim-vs-ns3 --fat-tree … --pooled`: the fat tree's slowdown quantiles over the flows of all seeds at
// once. A seed's p99 of a few hundred flows rests on its two or three slowest, so the per-seed ratios of
// the main table spread widely; pooling puts every seed's flows of a size bucket in one list per
// simulator and takes its quantile. Seeds are the independent unit (each is one flow list given to both
// simulators), so the interval is a cluster bootstrap over seeds: resample the seeds with replacement,
// the same seeds for both simulators, and take the 2.5th and 97.5th percentile of the ratio.

import { fmt, fmtInt } from "./common.js";

/** One value of a pool and the seed (cluster) it came from. */
interface Tagged {
  readonly v: number;
  readonly seed: number;
}

/** Every seed's values in one ascending list, each tagged with its seed's index. */
function merge(perSeed: readonly (readonly number[])[]): Tagged[] {
  return perSeed.flatMap((xs, seed) => xs.map((v) => ({ v, seed }))).sort((a, b) => a.v - b.v);
}

/**
 * The q quantile (nearest rank, as the per-seed table takes it) of the pool in which seed s's values
 * appear `counts[s]` times. NaN when the pool is empty.
 */
function weightedQuantile(
  pool: readonly Tagged[],
  sizes: readonly number[],
  counts: readonly number[],
  q: number,
): number {
  const total = sizes.reduce((a, n, s) => a + n * counts[s]!, 0);
  if (total === 0) return Number.NaN;
  const rank = Math.min(total, Math.max(1, Math.ceil(q * total)));
  let acc = 0;
  if (q >= 0.5) {
    // From the top: the rank-th smallest is the (total − rank + 1)-th largest; a p99 walks 1 % of the pool.
    const fromTop = total - rank + 1;
    for (let i = pool.length - 1; i >= 0; i--) {
      acc += counts[pool[i]!.seed]!;
      if (acc >= fromTop) return pool[i]!.v;
    }
  } else {
    for (const x of pool) {
      acc += counts[x.seed]!;
      if (acc >= rank) return x.v;
    }
  }
  return Number.NaN;
}

/** The q quantile of all seeds' values pooled (nearest rank). */
export function pooledQuantile(perSeed: readonly (readonly number[])[], q: number): number {
  return weightedQuantile(
    merge(perSeed),
    perSeed.map((xs) => xs.length),
    perSeed.map(() => 1),
    q,
  );
}

/** A small deterministic generator (mulberry32): the same intervals on every reprint. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PooledRatio {
  /** Ours over HPCC's, of the pooled quantiles. */
  readonly ratio: number;
  readonly ours: number;
  readonly theirs: number;
  /** 95 % cluster-bootstrap interval over seeds (percentile method). */
  readonly lo: number;
  readonly hi: number;
}

/** Resamples of the seeds the interval is drawn from. */
export const BOOTSTRAP_DRAWS = 2000;

/**
 * The pooled q quantile of ours over HPCC's, seed i of `ours` paired with seed i of `theirs` (the same
 * flow list), with a cluster bootstrap over the seeds for its interval.
 */
export function pooledRatio(
  ours: readonly (readonly number[])[],
  theirs: readonly (readonly number[])[],
  q: number,
  draws = BOOTSTRAP_DRAWS,
  rngSeed = 1,
): PooledRatio {
  const n = Math.min(ours.length, theirs.length);
  const a = ours.slice(0, n);
  const b = theirs.slice(0, n);
  const pa = merge(a);
  const pb = merge(b);
  const sa = a.map((xs) => xs.length);
  const sb = b.map((xs) => xs.length);
  const once = Array.from({ length: n }, () => 1);
  const o = weightedQuantile(pa, sa, once, q);
  const t = weightedQuantile(pb, sb, once, q);
  const rng = mulberry32(rngSeed);
  const rs: number[] = [];
  for (let d = 0; d < draws; d++) {
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) counts[Math.floor(rng() * n)]!++;
    const r = weightedQuantile(pa, sa, counts, q) / weightedQuantile(pb, sb, counts, q);
    // A resample without a flow of the bucket in either simulator says nothing about the ratio.
    if (!Number.isNaN(r)) rs.push(r);
  }
  rs.sort((x, y) => x - y);
  const pick = (p: number): number =>
    rs.length === 0 ? Number.NaN : rs[Math.min(rs.length - 1, Math.max(0, Math.ceil(p * rs.length) - 1))]!;
  return { ratio: o / t, ours: o, theirs: t, lo: pick(0.025), hi: pick(0.975) };
}

function value(x: number): string {
  if (x === Number.POSITIVE_INFINITY) return "unfinished";
  return Math.abs(x) >= 100 ? fmtInt(x) : fmt(x, 2);
}

/**
 * A cell of the pooled table: "1.02 (0.95–1.08)", "*" when the interval leaves out 1; both pooled figures
 * when either is unfinished (more than 1 − q of the pool did not finish); "no flow" for an empty bucket.
 */
export function pooledRatioCell(
  ours: readonly (readonly number[])[],
  theirs: readonly (readonly number[])[],
  q: number,
): string {
  const r = pooledRatio(ours, theirs, q);
  if (Number.isNaN(r.ours) && Number.isNaN(r.theirs)) return "no flow";
  if (!Number.isFinite(r.ours) || !Number.isFinite(r.theirs) || r.theirs === 0)
    return `${value(r.ours)} / ${value(r.theirs)}`;
  const star = r.lo > 1 || r.hi < 1 ? "*" : "";
  return `${fmt(r.ratio, 2)} (${fmt(r.lo, 2)}–${fmt(r.hi, 2)})${star}`;
}

/** What the pooled table's cells say, printed above it. */
export const POOLED_NOTE =
  "Pooled: each bucket's p50 and p99 over the flows of all seeds at once (per simulator), ours over HPCC's, " +
  `with a 95 % cluster-bootstrap interval over seeds (${fmtInt(BOOTSTRAP_DRAWS)} resamples of the seeds, the same ` +
  "seeds for both; * the interval leaves out 1):";

/** The fat-tree results' slowdowns per seed and bucket, as `metricsOf` keeps them (`Metrics.slowdowns`). */
interface Pooled {
  readonly name: string;
  readonly ns3: readonly { readonly slowdowns?: readonly (readonly number[])[] }[] | null;
  readonly ours: Readonly<Record<string, readonly { readonly slowdowns?: readonly (readonly number[])[] }[]>>;
}

/** Rows of the pooled table: per case and accounting, each bucket's p50 then p99 cell. */
export function pooledRows(results: readonly Pooled[], buckets: number): string[][] {
  const rows: string[][] = [];
  for (const r of results)
    for (const [m, ms] of Object.entries(r.ours)) {
      const theirs = r.ns3 ?? [];
      const kept = [...ms, ...theirs].every((x) => x.slowdowns !== undefined) && theirs.length > 0;
      const cells: string[] = [];
      for (let i = 0; i < buckets; i++)
        for (const q of [0.5, 0.99])
          cells.push(
            kept
              ? pooledRatioCell(
                  ms.map((x) => x.slowdowns![i]!),
                  theirs.map((x) => x.slowdowns![i]!),
                  q,
                )
              : "not saved",
          );
      rows.push([r.name, `mmu ${m}`, ...cells]);
    }
  return rows;
}
