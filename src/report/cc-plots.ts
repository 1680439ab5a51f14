// The window / RTT / utilisation chart of the congestion-control family (qp-cc-series.ts): per QP, what its
// algorithm keeps beside the rate — HPCC's window (DCTCP's when dctcp.window is set), TIMELY's RTT samples, HPCC's utilisation
// estimate U — one panel per quantity the run recorded, the same QPs in each.

import {
  baseConfig,
  groupBy,
  MAX_SERIES,
  PALETTE,
  PLOT_FILES,
  type PlotSpec,
  parseSeries,
  type ReportFiles,
  SCHEMA,
  stepPoints,
  subtitleOf,
  timeScale,
  title,
  WIDTH,
} from "./plot-kit.js";
import { QP_CC_SERIES } from "./qp-cc-series.js";

export function ccStatePlot(files: ReportFiles): PlotSpec | string {
  const rows = parseSeries(files.qpRate);
  if (rows.length === 0) return "no qp-rate.csv";
  const r = files.report;
  const metrics = new Set(QP_CC_SERIES.map((c) => c.metric));
  const mine = rows.filter((x) => metrics.has(x.cols[2]!));
  if (mine.length === 0)
    return "no QP kept a window, an RTT or a utilisation estimate (cc: hpcc, timely or dctcp with dctcp.window keep them)";
  const byQp = groupBy(mine, (x) => `${x.cols[0]} qp${x.cols[1]}`);
  // The QPs whose state moved most (rows are changes), then by name; the same QPs in every panel.
  const ranked = [...byQp]
    .map(([key, list]) => ({ key, changes: list.length }))
    .sort((a, b) => b.changes - a.changes || a.key.localeCompare(b.key, undefined, { numeric: true }));
  const chosen = ranked.slice(0, MAX_SERIES).map((c) => c.key);
  chosen.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const ts = timeScale(r.durationNs);
  const panels = QP_CC_SERIES.flatMap((c) => {
    const values: { t: number; v: number; series: string }[] = [];
    for (const key of chosen) {
      const points = (byQp.get(key) ?? [])
        .filter((x) => x.cols[2] === c.metric)
        .map((x) => ({ t: x.t, v: x.value }));
      for (const p of stepPoints(points, r.durationNs))
        values.push({ t: p.t / ts.per, v: p.v / c.per, series: key });
    }
    if (values.length === 0) return [];
    return [
      {
        width: WIDTH,
        height: 180,
        data: { values },
        mark: { type: "line" as const, interpolate: "step-after" as const, strokeWidth: 1.2, clip: true },
        encoding: {
          x: { field: "t", type: "quantitative" as const, title: `time (${ts.unit})` },
          y: { field: "v", type: "quantitative" as const, title: c.axis },
          color: {
            field: "series",
            type: "nominal" as const,
            title: "host, QP",
            sort: chosen,
            scale: { domain: chosen, range: [...PALETTE] },
          },
        },
      },
    ];
  });
  const text =
    ranked.length > chosen.length
      ? `Congestion-control state per QP: the ${chosen.length} most changing of ${ranked.length} QPs`
      : `Congestion-control state per QP: all ${ranked.length} QPs that keep one`;
  return {
    file: PLOT_FILES.ccState,
    title: text,
    spec: {
      $schema: SCHEMA,
      title: title(
        text,
        `${subtitleOf(r)} (sampled every ${r.sampleNs / 1e3} µs; window: HPCC, DCTCP with a window; RTT: TIMELY; U: HPCC)`,
      ),
      vconcat: panels,
      config: baseConfig(),
    },
  };
}
