// What `rocelab compare` measures in each run: figures of the report's summary, FCT percentiles of the
// small flows, and — when a run has more than one workload — FCT percentiles and unfinished flows of each
// workload by its name (the mice and the elephants apart), and with buckets the FCT slowdown per flow size
// (slowdown.ts). Every value says whether it is only a lower bound (an FCT percentile that an unfinished flow
// reached: report/flow-stats.ts), so a verdict never calls a variant faster on a figure that hides flows
// still running.

import type { FlowReport } from "../../lab/flow-report.js";
import { dueFlows, fctPercentiles } from "../../report/flow-stats.js";
import { flowIdealFctNs } from "../../report/ideal-fct.js";
import type { Report } from "../../report/report.js";
import type { Topology } from "../../scenario/topology.js";
import type { MetricDef, MetricValue } from "./metric-def.js";
import { slowdownBucket, slowdownMetricDef, slowdownValues } from "./slowdown.js";

export type { MetricDef, MetricValue } from "./metric-def.js";

export interface MetricOptions {
  /** Also FCT percentiles of the flows of at most this many bytes ("mice"). */
  readonly smallBytes?: number;
  /**
   * FCT slowdown by flow size (slowdown.ts): the upper ends of the size buckets, bytes; absent: none. Needs
   * the run's topology (the ideal FCT of each flow's path).
   */
  readonly buckets?: readonly number[];
}

type Extract = (r: Report, o: MetricOptions) => MetricValue | null;

const exact = (value: number): MetricValue => ({ value, atLeast: false });

function fctOf(flows: readonly FlowReport[], end: number, p: "p50" | "p99"): MetricValue | null {
  const f = fctPercentiles(dueFlows(flows, end), end);
  return f === null ? null : { value: f[p], atLeast: f.atLeast[p] };
}

const small = (r: Report, o: MetricOptions) => r.flows.filter((f) => f.bytes <= (o.smallBytes ?? 0));

const METRICS: readonly (MetricDef & { readonly extract: Extract })[] = [
  {
    id: "goodput",
    label: "goodput (every delivered byte)",
    unit: "bps",
    better: "higher",
    extract: (r) => exact(r.summary.goodputBps),
  },
  {
    id: "unfinished",
    label: "flows unfinished at the end",
    unit: "count",
    better: "lower",
    extract: (r) => exact(r.summary.flowsUnfinished),
  },
  {
    id: "failed",
    label: "flows failed (work completion with an error)",
    unit: "count",
    better: "lower",
    extract: (r) => exact(r.summary.flowsFailed ?? 0),
  },
  {
    id: "fct-p50",
    label: "FCT p50 (all flows)",
    unit: "ns",
    better: "lower",
    extract: (r) => fctOf(r.flows, r.durationNs, "p50"),
  },
  {
    id: "fct-p99",
    label: "FCT p99 (all flows)",
    unit: "ns",
    better: "lower",
    extract: (r) => fctOf(r.flows, r.durationNs, "p99"),
  },
  {
    id: "small-fct-p50",
    label: "FCT p50 (small flows)",
    unit: "ns",
    better: "lower",
    extract: (r, o) => (o.smallBytes === undefined ? null : fctOf(small(r, o), r.durationNs, "p50")),
  },
  {
    id: "small-fct-p99",
    label: "FCT p99 (small flows)",
    unit: "ns",
    better: "lower",
    extract: (r, o) => (o.smallBytes === undefined ? null : fctOf(small(r, o), r.durationNs, "p99")),
  },
  {
    id: "latency-p99",
    label: "packet latency p99",
    unit: "ns",
    better: "lower",
    extract: (r) => exact(r.summary.latencyNs.p99),
  },
  {
    id: "queue-peak",
    label: "deepest switch queue",
    unit: "bytes",
    better: "lower",
    extract: (r) => exact(r.summary.queuePeakBytes),
  },
  {
    id: "pause-frames",
    label: "PFC pause frames sent",
    unit: "count",
    better: "lower",
    extract: (r) => exact(r.summary.pauseFramesTx),
  },
  {
    id: "pause-time",
    label: "time paused (sum over queues)",
    unit: "ns",
    better: "lower",
    extract: (r) => exact(r.summary.pauseTimeNs),
  },
  {
    id: "ecn-marked",
    label: "packets marked CE",
    unit: "count",
    better: null,
    extract: (r) => exact(r.summary.ecnMarked),
  },
  {
    id: "cnp-sent",
    label: "CNPs sent",
    unit: "count",
    better: null,
    extract: (r) => exact(r.summary.cnpSent),
  },
  {
    id: "lossless-drops",
    label: "lossless drops",
    unit: "count",
    better: "lower",
    extract: (r) => exact(r.summary.drops.lossless),
  },
  {
    id: "load-balance",
    label: "load balance max/mean (fabric links)",
    unit: "ratio",
    better: "lower",
    extract: (r) => (r.loadBalance && r.loadBalance.links > 0 ? exact(r.loadBalance.figure) : null),
  },
];

/** The metrics compare reports for every run, in table order. */
export const METRIC_DEFS: readonly MetricDef[] = METRICS.map(({ extract: _, ...d }) => d);

/** Per-workload metric ids are `workload:<name>:<key>`. */
const WORKLOAD_PREFIX = "workload:";
const PER_WORKLOAD = [
  { key: "fct-p50", what: "FCT p50", unit: "ns", p: "p50" },
  { key: "fct-p99", what: "FCT p99", unit: "ns", p: "p99" },
  { key: "unfinished", what: "flows unfinished", unit: "count", p: null },
] as const;

/** The metrics of one workload, by its name. */
export function workloadMetricDefs(workload: string): MetricDef[] {
  return PER_WORKLOAD.map((m) => ({
    id: `${WORKLOAD_PREFIX}${workload}:${m.key}`,
    label: `${m.what} (workload ${workload})`,
    unit: m.unit,
    better: "lower",
  }));
}

/** The workload a metric id belongs to, or null for a metric of the whole run. */
export function metricWorkload(id: string): string | null {
  if (!id.startsWith(WORKLOAD_PREFIX)) return null;
  return id.slice(WORKLOAD_PREFIX.length, id.lastIndexOf(":"));
}

/**
 * The metrics of a set of runs: every run's, then each workload's (in order of first appearance), then the
 * slowdown of each flow-size bucket (smallest first).
 */
export function metricDefsOf(
  runs: readonly { readonly values: Readonly<Record<string, unknown>> }[],
): MetricDef[] {
  const workloads = new Set<string>();
  const slowdown = new Set<string>();
  for (const r of runs)
    for (const id of Object.keys(r.values)) {
      const w = metricWorkload(id);
      if (w !== null) workloads.add(w);
      if (slowdownBucket(id) !== null) slowdown.add(id);
    }
  const bySize = [...slowdown].sort((a, b) => slowdownBucket(a)!.bucket.lo - slowdownBucket(b)!.bucket.lo);
  return [...METRIC_DEFS, ...[...workloads].flatMap(workloadMetricDefs), ...bySize.map(slowdownMetricDef)];
}

function workloadValues(r: Report): [string, MetricValue | null][] {
  const names = [...new Set(r.flows.map((f) => f.workload))];
  if (names.length < 2) return []; // one workload: the figures of all flows are its figures
  return names.flatMap((w) => {
    const flows = r.flows.filter((f) => f.workload === w);
    return PER_WORKLOAD.map((m): [string, MetricValue | null] => [
      `${WORKLOAD_PREFIX}${w}:${m.key}`,
      m.p === null
        ? exact(flows.filter((f) => f.outcome === "unfinished").length)
        : fctOf(flows, r.durationNs, m.p),
    ]);
  });
}

/**
 * Every metric's value in one run (null: the metric does not apply, e.g. no fabric links). The slowdown
 * buckets need the topology the run ran on.
 */
export function measure(
  r: Report,
  o: MetricOptions,
  topology?: Topology,
): Record<string, MetricValue | null> {
  const slowdown =
    o.buckets !== undefined && topology !== undefined
      ? slowdownValues(r.flows, r.durationNs, flowIdealFctNs(topology), o.buckets)
      : [];
  return Object.fromEntries([
    ...METRICS.map((m) => [m.id, m.extract(r, o)] as const),
    ...workloadValues(r),
    ...slowdown,
  ]);
}
