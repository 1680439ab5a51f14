// Turns the runs of a comparison into what it reports: per metric and variant the mean over seeds with its
// 95 % interval (stats.ts), and per metric and pair of variants the paired difference with its interval
// and a verdict. A verdict names a direction only where the interval of the difference excludes 0, and
// never says a variant is lower on a figure whose values are only lower bounds (unfinished flows).

import { formatDuration, formatRate, formatSize } from "../../device/units.js";
import { type MetricDef, type MetricValue, metricDefsOf } from "./metrics.js";
import { type Interval, meanInterval, pairedDifference, sideOfZero } from "./stats.js";

/** One run's figures. */
export interface RunResult {
  readonly variant: string;
  readonly seed: number;
  readonly values: Readonly<Record<string, MetricValue | null>>;
}

export interface VariantStat {
  readonly variant: string;
  /** Per seed, in seed order. */
  readonly values: readonly number[];
  readonly interval: Interval;
  /** Some run's value is only a lower bound (an unfinished flow reached the percentile). */
  readonly atLeast: boolean;
  /** Flows per run the figure is over, mean over the seeds (figures of a flow-size bucket). */
  readonly flows?: number;
}

export interface PairVerdict {
  readonly a: string;
  readonly b: string;
  /** b − a per seed. */
  readonly difference: Interval;
  /** −1: b lower than a; 1: b higher; 0: no difference at this N, or not decidable. */
  readonly direction: -1 | 0 | 1;
  /** |mean difference| exceeds the larger of the two variants' seed-to-seed standard deviations. */
  readonly beyondSeedScatter: boolean;
  readonly text: string;
}

export interface MetricComparison extends MetricDef {
  readonly variants: readonly VariantStat[];
  readonly pairs: readonly PairVerdict[];
}

export function formatValue(unit: MetricDef["unit"], v: number): string {
  if (v < 0) return `−${formatValue(unit, -v)}`;
  switch (unit) {
    case "ns":
      return formatDuration(Math.round(v));
    case "bps":
      return `${formatRate(v)}b/s`;
    case "bytes":
      return formatSize(Math.round(v));
    case "ratio":
      return v.toFixed(2);
    default:
      return Number.isInteger(v) ? String(v) : v.toFixed(1);
  }
}

function signed(unit: MetricDef["unit"], v: number): string {
  return `${v < 0 ? "−" : "+"}${formatValue(unit, Math.abs(v))}`;
}

function verdict(m: MetricDef, a: VariantStat, b: VariantStat): PairVerdict {
  const d = pairedDifference(a.values, b.values);
  const side = sideOfZero(d);
  const ci = `paired 95 % CI of ${b.variant} − ${a.variant}: ${signed(m.unit, d.lo)} … ${signed(m.unit, d.hi)}`;
  const scatter = Math.max(a.interval.sd, b.interval.sd);
  const beyond = Math.abs(d.mean) > scatter;
  const base = { a: a.variant, b: b.variant, difference: d, beyondSeedScatter: beyond };
  if (side === 0)
    return {
      ...base,
      direction: 0,
      text: `${m.label}: no difference at this N (${d.n} seeds; ${ci})`,
    };
  // The one said to be lower must have exact values: a lower bound could hide a larger true value.
  const lower = side < 0 ? b : a;
  const higher = side < 0 ? a : b;
  if (lower.atLeast)
    return {
      ...base,
      direction: 0,
      text: `${m.label}: undecided: ${lower.variant}'s values are lower bounds (unfinished flows), so it cannot be called lower (${ci})`,
    };
  const size = beyond
    ? `larger than a change of seed (seed-to-seed sd ${formatValue(m.unit, scatter)})`
    : `consistent in sign but within the seed-to-seed scatter (sd ${formatValue(m.unit, scatter)})`;
  return {
    ...base,
    direction: side,
    text: `${m.label}: ${lower.variant} lower than ${higher.variant} by ${formatValue(m.unit, Math.abs(d.mean))} on average, ${ci}; ${size}`,
  };
}

/**
 * Per metric: every variant's statistics and the verdicts of every pair (each later variant against each
 * earlier one). Metrics that do not apply to every run (null or absent in some: a workload only some
 * variants run) are left out.
 */
export function analyse(variants: readonly string[], runs: readonly RunResult[]): MetricComparison[] {
  const out: MetricComparison[] = [];
  for (const m of metricDefsOf(runs)) {
    const stats: VariantStat[] = [];
    let applies = true;
    for (const v of variants) {
      const mine = runs.filter((r) => r.variant === v).sort((x, y) => x.seed - y.seed);
      const vals = mine.map((r) => r.values[m.id] ?? null);
      if (vals.length === 0 || vals.some((x) => x === null)) {
        applies = false;
        break;
      }
      const values = vals.map((x) => x!.value);
      const counts = vals.map((x) => x!.n);
      stats.push({
        variant: v,
        values,
        interval: meanInterval(values),
        atLeast: vals.some((x) => x!.atLeast),
        ...(counts.every((c) => c !== undefined)
          ? { flows: counts.reduce((a, c) => a + c!, 0) / counts.length }
          : {}),
      });
    }
    if (!applies) continue;
    const pairs: PairVerdict[] = [];
    for (let i = 0; i < stats.length; i++)
      for (let j = i + 1; j < stats.length; j++) pairs.push(verdict(m, stats[i]!, stats[j]!));
    out.push({ ...m, variants: stats, pairs });
  }
  return out;
}

/**
 * Metrics some runs have and others lack, so they are not compared (a flow-size bucket without flows in
 * some run, a workload only some variants run); a metric no run has a value for is not listed.
 */
export function leftOutMetrics(
  runs: readonly RunResult[],
  compared: readonly MetricComparison[],
): MetricDef[] {
  const done = new Set(compared.map((m) => m.id));
  return metricDefsOf(runs).filter(
    (m) => !done.has(m.id) && runs.some((r) => r.values[m.id] !== undefined && r.values[m.id] !== null),
  );
}

/** "1.2 ms [1.1 ms … 1.3 ms]" with "≥" when the values are lower bounds. */
export function cellText(m: MetricDef, s: VariantStat): string {
  const ge = s.atLeast ? "≥ " : "";
  const i = s.interval;
  return i.n < 2 || i.lo === i.hi
    ? `${ge}${formatValue(m.unit, i.mean)}`
    : `${ge}${formatValue(m.unit, i.mean)} [${formatValue(m.unit, i.lo)} … ${formatValue(m.unit, i.hi)}]`;
}
