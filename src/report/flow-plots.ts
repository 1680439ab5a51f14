// The host-side charts: DCQCN rate and α per QP, goodput per QP, and the flow completion time CDF.

import {
  baseConfig,
  GOODPUT_BINS,
  groupBy,
  lineSpec,
  MAX_SERIES,
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

/** DCQCN current rate and α of the QPs the reaction point changed most often. */
export function dcqcnPlot(files: ReportFiles): PlotSpec | string {
  const rows = parseSeries(files.qpRate);
  if (rows.length === 0) return "no qp-rate.csv";
  const r = files.report;
  const rate = groupBy(
    rows.filter((x) => x.cols[2] === "rate_bps"),
    (x) => `${x.cols[0]} qp${x.cols[1]}`,
  );
  const alpha = groupBy(
    rows.filter((x) => x.cols[2] === "alpha"),
    (x) => `${x.cols[0]} qp${x.cols[1]}`,
  );
  const active = [...rate]
    .filter(([, list]) => list.length > 1)
    .map(([key, list]) => ({ key, changes: list.length }))
    .sort((a, b) => b.changes - a.changes || a.key.localeCompare(b.key, undefined, { numeric: true }));
  if (active.length === 0) return "no QP changed its rate (DCQCN off, or no congestion feedback)";
  const chosen = active.slice(0, MAX_SERIES);
  chosen.sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }));
  const ts = timeScale(r.durationNs);
  const rateValues: { t: number; v: number; series: string }[] = [];
  const alphaValues: { t: number; v: number; series: string }[] = [];
  for (const { key } of chosen) {
    for (const p of stepPoints(
      rate.get(key)!.map((x) => ({ t: x.t, v: x.value })),
      r.durationNs,
    )) {
      rateValues.push({ t: p.t / ts.per, v: p.v / 1e9, series: key });
    }
    for (const p of stepPoints(
      (alpha.get(key) ?? []).map((x) => ({ t: x.t, v: x.value })),
      r.durationNs,
    )) {
      alphaValues.push({ t: p.t / ts.per, v: p.v, series: key });
    }
  }
  const text =
    active.length > chosen.length
      ? `DCQCN per QP: rate and α of the ${chosen.length} most often changed of ${active.length} reacting QPs`
      : `DCQCN per QP: rate and α of all ${active.length} reacting QPs`;
  const order = chosen.map((c) => c.key);
  const panel = (values: typeof rateValues, y: string, domain?: [number, number]) => ({
    width: WIDTH,
    height: 200,
    data: { values },
    mark: { type: "line" as const, interpolate: "step-after" as const, strokeWidth: 1.2, clip: true },
    encoding: {
      x: { field: "t", type: "quantitative" as const, title: `time (${ts.unit})` },
      y: {
        field: "v",
        type: "quantitative" as const,
        title: y,
        ...(domain ? { scale: { domain } } : {}),
      },
      color: {
        field: "series",
        type: "nominal" as const,
        title: "host, QP",
        sort: order,
        scale: { scheme: "tableau10" },
      },
    },
  });
  return {
    file: PLOT_FILES.dcqcn,
    title: text,
    spec: {
      $schema: SCHEMA,
      title: title(text, `${subtitleOf(r)} (sampled every ${r.sampleNs / 1e3} µs)`),
      vconcat: [panel(rateValues, "current rate RC (Gb/s)"), panel(alphaValues, "α", [0, 1])],
      config: baseConfig(),
    },
  };
}

/**
 * Goodput per QP, averaged over bins of about 1/GOODPUT_BINS of the run. A flow-rate.csv value recorded at t
 * is the rate over the sample interval ending at t, and holds for the following samples until the next row.
 */
export function goodputPlot(files: ReportFiles): PlotSpec | string {
  const rows = parseSeries(files.flowRate);
  if (rows.length === 0) return "no flow-rate.csv";
  const r = files.report;
  const sample = r.sampleNs;
  const end = r.durationNs;
  const width = Math.max(sample, niceDuration(end / GOODPUT_BINS));
  const nbins = Math.ceil(end / width);
  const series = new Map<string, Float64Array>();
  for (const [key, list] of groupBy(rows, (x) => `${x.cols[0]} qp${x.cols[1]}`)) {
    const bits = new Float64Array(nbins);
    for (let i = 0; i < list.length; i++) {
      const from = Math.max(0, list[i]!.t - sample);
      const to = i + 1 < list.length ? list[i + 1]!.t - sample : end;
      const bps = list[i]!.value;
      if (bps <= 0 || to <= from) continue;
      for (let b = Math.floor(from / width); b < nbins && b * width < to; b++) {
        const overlap = Math.min(to, (b + 1) * width) - Math.max(from, b * width);
        if (overlap > 0) bits[b]! += (bps * overlap) / 1e9;
      }
    }
    if (bits.some((x) => x > 0)) series.set(key, bits);
  }
  if (series.size === 0) return "no payload was acknowledged";
  const totals = [...series].map(([key, bits]) => ({ key, bits: bits.reduce((a, x) => a + x, 0) }));
  totals.sort((a, b) => b.bits - a.bits || a.key.localeCompare(b.key, undefined, { numeric: true }));
  const many = series.size > 1;
  const chosen = totals.slice(0, many ? MAX_SERIES - 1 : 1);
  const ts = timeScale(end);
  const values: { t: number; v: number; series: string }[] = [];
  const push = (label: string, bits: Float64Array) => {
    for (let b = 0; b < nbins; b++) {
      const w = Math.min(width, end - b * width);
      values.push({ t: (b * width) / ts.per, v: w > 0 ? (bits[b]! * 1e9) / w / 1e9 : 0, series: label });
    }
    values.push({ t: end / ts.per, v: values[values.length - 1]!.v, series: label });
  };
  const order: string[] = [];
  if (many) {
    const sum = new Float64Array(nbins);
    for (const bits of series.values()) for (let b = 0; b < nbins; b++) sum[b]! += bits[b]!;
    push("all QPs (sum)", sum);
    order.push("all QPs (sum)");
  }
  for (const c of chosen) {
    push(c.key, series.get(c.key)!);
    order.push(c.key);
  }
  const text = many
    ? `Goodput per QP: the ${chosen.length} busiest of ${series.size} sending QPs, and the sum of all`
    : "Goodput of the only sending QP";
  return {
    file: PLOT_FILES.goodput,
    title: text,
    spec: lineSpec({
      title: text,
      // ACKs come back in bunches (coalesced, and released together after a pause), so a short bin can
      // credit more payload than the receiver's link carried in it; the subtitle says so.
      subtitle: `${subtitleOf(r)}; acknowledged payload averaged over ${width / 1e3} µs bins (by ACK time: bunched ACKs can lift a bin above the receiver's line rate)`,
      values,
      x: `time (${ts.unit})`,
      y: "goodput (Gb/s)",
      legend: "requester host, QP",
      order,
      step: true,
    }),
  };
}

/** 1, 2 or 5 × a power of ten, at least `ns`. */
function niceDuration(ns: number): number {
  if (ns <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(ns));
  for (const m of [1, 2, 5, 10]) if (m * p >= ns) return m * p;
  return 10 * p;
}

/**
 * CDF of flow completion times, one line per workload, as a fraction of every flow of the workload: flows
 * that did not complete within the run are counted in the denominator, so their line stops below 1.
 */
export function fctCdfPlot(files: ReportFiles): PlotSpec | string {
  const r = files.report;
  const done = r.flows.filter((f) => f.fctNs !== null);
  if (done.length < 2)
    return `${done.length} completed flow${done.length === 1 ? "" : "s"} of ${r.flows.length}: no distribution`;
  const totals = new Map<string, number>();
  for (const f of r.flows) totals.set(f.workload, (totals.get(f.workload) ?? 0) + 1);
  const groups = [...groupBy(done, (f) => f.workload)].sort((a, b) => b[1].length - a[1].length);
  let shown = groups.map(([w, list]) => ({
    label: w,
    fcts: list.map((f) => f.fctNs!),
    total: totals.get(w) ?? list.length,
  }));
  if (shown.length > MAX_SERIES) {
    const others = shown.slice(MAX_SERIES - 1);
    shown = [
      ...shown.slice(0, MAX_SERIES - 1),
      {
        label: `${groups.length - MAX_SERIES + 1} other workloads`,
        fcts: others.flatMap((g) => g.fcts),
        total: others.reduce((a, g) => a + g.total, 0),
      },
    ];
  }
  const seriesLabel = (g: (typeof shown)[number]) =>
    g.fcts.length === g.total
      ? `${g.label} (${g.total} flows)`
      : `${g.label} (${g.fcts.length} of ${g.total} flows completed)`;
  const all = done.map((f) => f.fctNs!);
  const max = Math.max(...all);
  const min = Math.min(...all);
  const ts = timeScale(max);
  const values: { t: number; v: number; series: string }[] = [];
  for (const g of shown) {
    const sorted = [...g.fcts].sort((a, b) => a - b);
    const n = sorted.length;
    // Every rank: lineSpec thins the line to the chart's pixel columns (lowest and highest point of each).
    const label = seriesLabel(g);
    values.push({ t: sorted[0]! / ts.per, v: 0, series: label });
    for (let i = 0; i < n; i++) values.push({ t: sorted[i]! / ts.per, v: (i + 1) / g.total, series: label });
  }
  const logX = min > 0 && max / min >= 100;
  const unfinished = r.flows.length - done.length;
  const text =
    unfinished > 0
      ? `Flow completion time CDF: ${done.length} of ${r.flows.length} flows completed; ${unfinished} unfinished when the run ended (the lines stop below 1)`
      : groups.length > shown.length
        ? `Flow completion time CDF: ${done.length} flows, the ${MAX_SERIES - 1} largest workloads and the rest`
        : `Flow completion time CDF: ${done.length} completed flows by workload`;
  return {
    file: PLOT_FILES.fctCdf,
    title: text,
    spec: lineSpec({
      title: text,
      subtitle: `${subtitleOf(r)}; FCT = completion − post time`,
      values,
      x: `flow completion time (${ts.unit}${logX ? ", log scale" : ""})`,
      y: unfinished > 0 ? "fraction of all flows (unfinished ones included)" : "fraction of flows",
      legend: "workload",
      order: shown.map(seriesLabel),
      step: true,
      logX,
      yDomain: [0, 1],
    }),
  };
}
