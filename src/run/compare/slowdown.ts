// FCT slowdown by flow size, as congestion-control papers plot it (HPCC, SIGCOMM 2019, and its analysis
// script, analysis/fct_analysis.py in https://github.com/alibaba-edu/High-Precision-Congestion-Control):
// every flow's FCT divided by its ideal FCT alone on an idle path (report/ideal-fct.ts), at least 1 as in
// that script, and per flow-size bucket the median and the p99 of it. A flow still running at the end of
// the run counts with its time so far (a lower bound: `≥`), never dropped — the percentile rules of
// report/flow-stats.ts.
//
// The default buckets are those HPCC's figures use for the web-search mix: fct_analysis.py cuts the flows,
// sorted by size, into 20 groups of 5 % each; for flows drawn from the web-search distribution those
// groups are the sizes between its 5 %, 10 %, …, 100 % quantiles (3.3 KB, 6.7 KB, 10 KB, … 30 MB).

import { formatSize, parseSize } from "../../device/units.js";
import type { FlowReport } from "../../lab/flow-report.js";
import { SIZE_DISTRIBUTIONS, sampleSize } from "../../nic/workloads.js";
import { censoredPercentile, dueFlows, type FctSample } from "../../report/flow-stats.js";
import type { MetricDef, MetricValue } from "./metric-def.js";

/** The upper ends of the web-search distribution's 5 % quantile bins, bytes. */
export const WEBSEARCH_BUCKETS: readonly number[] = Array.from({ length: 20 }, (_, i) =>
  sampleSize(SIZE_DISTRIBUTIONS.websearch!, (i + 1) / 20),
);

export class BucketError extends Error {
  override readonly name = "BucketError";
}

/**
 * `--buckets`: "websearch" (the default), "none", or ascending sizes "10KB,100KB,1MB" — the upper end of
 * each bucket (a flow of exactly that size falls in it); flows above the last one form a bucket of their own.
 */
export function parseBuckets(text: string): readonly number[] | null {
  const t = text.trim();
  if (t === "websearch") return WEBSEARCH_BUCKETS;
  if (t === "none") return null;
  const sizes = t.split(",").map((s) => s.trim());
  const edges = sizes.map(parseSize);
  const bad = sizes.find((_s, i) => edges[i] === null || edges[i]! <= 0);
  if (bad !== undefined || sizes.length === 0)
    throw new BucketError(
      `--buckets "${text}": "${bad ?? ""}" is not a size; expected websearch, none, or ascending sizes such as 10KB,100KB,1MB`,
    );
  for (let i = 1; i < edges.length; i++)
    if (edges[i]! <= edges[i - 1]!)
      throw new BucketError(`--buckets "${text}": sizes must ascend (${sizes[i]} after ${sizes[i - 1]})`);
  return edges as number[];
}

const PREFIX = "slowdown:";
const STATS = [
  { key: "p50", what: "median", q: 0.5 },
  { key: "p99", what: "p99", q: 0.99 },
] as const;

/** A bucket: flows of more than `lo` and at most `hi` bytes (hi null: no upper end). */
export interface SizeBucket {
  readonly lo: number;
  readonly hi: number | null;
}

export function bucketsOf(edges: readonly number[]): SizeBucket[] {
  const out: SizeBucket[] = edges.map((hi, i) => ({ lo: i === 0 ? 0 : edges[i - 1]!, hi }));
  out.push({ lo: edges[edges.length - 1] ?? 0, hi: null });
  return out;
}

export function bucketLabel(b: SizeBucket): string {
  if (b.hi === null) return `> ${formatSize(b.lo)}`;
  return b.lo === 0 ? `≤ ${formatSize(b.hi)}` : `${formatSize(b.lo)}–${formatSize(b.hi)}`;
}

const idOf = (b: SizeBucket, key: string) => `${PREFIX}${b.lo}:${b.hi ?? "inf"}:${key}`;

/** The bucket of a slowdown metric id, or null for any other metric. */
export function slowdownBucket(id: string): { readonly bucket: SizeBucket; readonly stat: string } | null {
  if (!id.startsWith(PREFIX)) return null;
  const [lo, hi, stat] = id.slice(PREFIX.length).split(":");
  return { bucket: { lo: Number(lo), hi: hi === "inf" ? null : Number(hi) }, stat: stat! };
}

function defOf(b: SizeBucket, s: (typeof STATS)[number]): MetricDef {
  return {
    id: idOf(b, s.key),
    label: `FCT slowdown ${s.what}, flows ${bucketLabel(b)}`,
    unit: "ratio",
    better: "lower",
  };
}

/** The metric definition of a slowdown id (slowdownBucket(id) not null). */
export function slowdownMetricDef(id: string): MetricDef {
  const { bucket, stat } = slowdownBucket(id)!;
  const s = STATS.find((x) => x.key === stat) ?? STATS[0];
  return defOf(bucket, s);
}

/**
 * Per bucket, the median and p99 slowdown of the flows due in the run (null for a bucket without flows:
 * compare leaves a bucket out when some run has none in it). `n` is how many flows each figure is over.
 */
export function slowdownValues(
  flows: readonly FlowReport[],
  runEndNs: number,
  idealNs: (f: FlowReport) => number | null,
  edges: readonly number[],
): [string, MetricValue | null][] {
  const samples = new Map<SizeBucket, FctSample[]>();
  const buckets = bucketsOf(edges);
  for (const f of dueFlows(flows, runEndNs)) {
    const ideal = idealNs(f);
    if (ideal === null || ideal <= 0) continue;
    const b = buckets.find((x) => f.bytes > x.lo && (x.hi === null || f.bytes <= x.hi))!;
    const censored = f.fctNs === null;
    const fct = censored ? Math.max(0, runEndNs - f.startNs) : f.fctNs!;
    // censoredPercentile reads only the order and the censored flags: `ns` carries the slowdown here.
    const list = samples.get(b) ?? [];
    list.push({ ns: Math.max(1, fct / ideal), censored });
    samples.set(b, list);
  }
  return buckets.flatMap((b) => {
    const sorted = (samples.get(b) ?? []).sort(
      (x, y) => x.ns - y.ns || Number(x.censored) - Number(y.censored),
    );
    return STATS.map((s): [string, MetricValue | null] => {
      if (sorted.length === 0) return [idOf(b, s.key), null];
      const p = censoredPercentile(sorted, s.q);
      return [idOf(b, s.key), { value: p.ns, atLeast: p.atLeast, n: sorted.length }];
    });
  });
}
