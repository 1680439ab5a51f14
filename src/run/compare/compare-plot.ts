// compare.svg: one small chart per metric, each variant's mean over the seeds as a point and its 95 %
// confidence interval (Student t) as an error bar, so overlapping and separated intervals show at a glance.
// slowdown.svg: the FCT slowdown of each flow-size bucket (median and p99), the variants side by side.

import type { TopLevelSpec } from "vega-lite";
import { baseConfig, PALETTE, SCHEMA, title, WIDTH } from "../../report/plot-kit.js";
import type { MetricComparison } from "./analysis.js";
import { bucketLabel, slowdownBucket } from "./slowdown.js";

const SCALE: Record<MetricComparison["unit"], { per: number; unit: string }> = {
  ns: { per: 1e3, unit: "µs" },
  bps: { per: 1e9, unit: "Gb/s" },
  bytes: { per: 1e3, unit: "KB" },
  count: { per: 1, unit: "" },
  ratio: { per: 1, unit: "" },
};

export function compareSpec(all: readonly MetricComparison[], seeds: number): TopLevelSpec {
  const metrics = all.filter((m) => slowdownBucket(m.id) === null);
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

/** The slowdown charts, or null when the comparison has no slowdown bucket. */
export function slowdownSpec(metrics: readonly MetricComparison[], seeds: number): TopLevelSpec | null {
  const panels = (["p50", "p99"] as const).flatMap((stat) => {
    const mine = metrics.filter((m) => slowdownBucket(m.id)?.stat === stat);
    if (mine.length === 0) return [];
    const order = mine.map((m) => bucketLabel(slowdownBucket(m.id)!.bucket));
    const values = mine.flatMap((m, i) =>
      m.variants.map((v) => ({
        size: order[i],
        variant: v.variant,
        mean: v.interval.mean,
        lo: v.interval.lo,
        hi: v.interval.hi,
      })),
    );
    const x = {
      field: "size",
      type: "ordinal" as const,
      sort: order,
      title: "flow size (bytes)",
      axis: { labelAngle: -45 },
    };
    const xOffset = { field: "variant", type: "nominal" as const, sort: null };
    const color = {
      field: "variant",
      type: "nominal" as const,
      sort: null,
      scale: { range: [...PALETTE] },
      title: null,
    };
    const ge = mine.some((m) => m.variants.some((v) => v.atLeast)) ? " (≥: unfinished flows)" : "";
    const y = {
      field: "mean",
      type: "quantitative" as const,
      scale: { type: "log" as const },
      title: `FCT slowdown, ${stat === "p50" ? "median" : "p99"}${ge}`,
    };
    return [
      {
        width: WIDTH,
        height: 220,
        data: { values },
        layer: [
          {
            mark: { type: "rule" as const },
            encoding: { x, xOffset, color, y: { ...y, field: "lo" }, y2: { field: "hi" } },
          },
          { mark: { type: "point" as const, filled: true }, encoding: { x, xOffset, color, y } },
        ],
      },
    ];
  });
  if (panels.length === 0) return null;
  return {
    $schema: SCHEMA,
    title: title(
      "FCT slowdown by flow size: mean over seeds with 95 % confidence intervals",
      `${seeds} seeds per variant; slowdown = FCT / ideal FCT alone on an idle path (at least 1); error bars: Student t interval of the mean`,
    ),
    vconcat: panels,
    config: baseConfig(),
  } as TopLevelSpec;
}
