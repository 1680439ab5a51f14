// compare.svg: one small chart per metric, each variant's mean over the seeds as a point and its 95 %
// confidence interval (Student t) as an error bar, so overlapping and separated intervals show at a glance.

import type { TopLevelSpec } from "vega-lite";
import { baseConfig, SCHEMA, title, WIDTH } from "../../report/plot-kit.js";
import type { MetricComparison } from "./analysis.js";

const SCALE: Record<MetricComparison["unit"], { per: number; unit: string }> = {
  ns: { per: 1e3, unit: "µs" },
  bps: { per: 1e9, unit: "Gb/s" },
  bytes: { per: 1e3, unit: "KB" },
  count: { per: 1, unit: "" },
  ratio: { per: 1, unit: "" },
};

export function compareSpec(metrics: readonly MetricComparison[], seeds: number): TopLevelSpec {
  const charts = metrics.map((m) => {
    const s = SCALE[m.unit];
    const values = m.variants.map((v) => ({
      variant: v.variant,
      mean: v.interval.mean / s.per,
      lo: v.interval.lo / s.per,
      hi: v.interval.hi / s.per,
    }));
    const x = {
      field: "mean",
      type: "quantitative" as const,
      title: `${m.label}${s.unit ? ` (${s.unit})` : ""}${m.variants.some((v) => v.atLeast) ? ", ≥: unfinished flows" : ""}`,
      scale: { zero: false },
    };
    const y = { field: "variant", type: "nominal" as const, title: null, sort: null };
    return {
      width: WIDTH - 160,
      height: 18 * values.length,
      data: { values },
      layer: [
        {
          mark: { type: "rule" as const, color: "#4c78a8" },
          encoding: { x: { ...x, field: "lo" }, x2: { field: "hi" }, y },
        },
        { mark: { type: "point" as const, filled: true, color: "#4c78a8" }, encoding: { x, y } },
      ],
    };
  });
  return {
    $schema: SCHEMA,
    title: title(
      "Mean over seeds with 95 % confidence intervals",
      `${seeds} seeds per variant; error bars: Student t interval of the mean`,
    ),
    vconcat: charts,
    config: baseConfig(),
  } as TopLevelSpec;
}
