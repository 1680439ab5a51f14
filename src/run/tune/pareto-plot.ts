// The tuner's chart: every trial as goodput against p99 FCT, the Pareto front joined up, the three threshold
// presets and the recommended point labelled; runs that lost lossless packets, crossed.

import type { TopLevelSpec } from "vega-lite";
import { baseConfig, SCHEMA, title, WIDTH } from "../../report/plot-kit.js";
import { feasible, type TuneResult } from "./search.js";

export function paretoSpec(
  scenario: string,
  results: readonly TuneResult[],
  front: readonly TuneResult[],
  recommended: TuneResult | null,
): TopLevelSpec {
  const onFront = new Set(front);
  const point = (r: TuneResult) => ({
    name: r.candidate.name,
    p99: r.p99FctNs / 1e3,
    goodput: r.goodputBps / 1e9,
    kind:
      r === recommended
        ? "recommended"
        : r.candidate.preset
          ? "preset"
          : !feasible(r)
            ? "lossless drops"
            : onFront.has(r)
              ? "Pareto front"
              : "searched",
  });
  const values = results.map(point);
  const frontValues = front.map(point);
  const labelled = values.filter((v) => v.kind === "preset" || v.kind === "recommended");
  const kinds = ["searched", "Pareto front", "preset", "recommended", "lossless drops"];
  const x = {
    field: "p99",
    type: "quantitative" as const,
    title: "p99 flow completion time (µs, log scale)",
    scale: { type: "log" as const },
  };
  const y = {
    field: "goodput",
    type: "quantitative" as const,
    title: "goodput (Gb/s)",
    scale: { zero: false },
  };
  return {
    $schema: SCHEMA,
    title: title(
      "Goodput against p99 FCT over the searched ECN, PFC and DCQCN settings",
      `scenario ${scenario}; ${results.length} trials, ${front.length} on the Pareto front (up and to the left is better)`,
    ),
    width: WIDTH,
    height: 380,
    layer: [
      {
        data: { values: frontValues },
        mark: { type: "line", color: "#4c78a8", strokeDash: [4, 3] },
        encoding: { x, y, order: { field: "p99" } },
      },
      {
        data: { values },
        mark: { type: "point", filled: true, size: 70 },
        encoding: {
          x,
          y,
          color: {
            field: "kind",
            type: "nominal",
            title: "trial",
            scale: { domain: kinds, range: ["#bbbbbb", "#4c78a8", "#e45756", "#54a24b", "#000000"] },
          },
          shape: {
            field: "kind",
            type: "nominal",
            scale: { domain: kinds, range: ["circle", "circle", "square", "diamond", "cross"] },
          },
        },
      },
      {
        data: { values: labelled },
        mark: { type: "text", align: "left", dx: 8, dy: -6, fontSize: 11 },
        encoding: { x, y, text: { field: "name" } },
      },
    ],
    config: baseConfig(),
  };
}
