// Charts of a scenario report. `rocelab run` writes report.json, long-format CSV time series and events.jsonl;
// this module turns their text into vega-lite specs and renders them to SVG with vega, headless (renderer
// "none": no canvas, no browser). Pure: it reads nothing from disk and writes nothing; the plot command
// (src/cli/plot-command.ts) does the file work.
//
// Every chart keeps to at most MAX_SERIES series and says in its title which ones it picked and why, because
// a fabric has hundreds of queues and QPs and a chart of all of them shows nothing. Time axes are in µs for
// runs up to 2 ms and in ms beyond; sizes in decimal KB or MB (as scenario files write them); rates in Gb/s.

import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { Report } from "./report.js";

/** The text of a report directory's files (undefined: the file is missing). */
export interface ReportFiles {
  readonly report: Report;
  /** queue-depth.csv: t_ns, device, port, queue, bytes. */
  readonly queueDepth?: string;
  /** pause-state.csv: t_ns, device, port, queue, paused (sampled; events.jsonl is exact and preferred). */
  readonly pauseState?: string;
  /** qp-rate.csv: t_ns, host, qpn, metric (rate_bps | alpha), value. */
  readonly qpRate?: string;
  /** flow-rate.csv: t_ns, host, qpn, goodput_bps (acknowledged payload over the sample before t). */
  readonly flowRate?: string;
  /** events.jsonl: one telemetry event per line (paused-on / paused-off give exact pause intervals). */
  readonly events?: string;
}

/** One chart: the SVG file it becomes, its title and its vega-lite spec. */
export interface PlotSpec {
  readonly file: string;
  readonly title: string;
  readonly spec: TopLevelSpec;
}

/** The charts a report yields, and the ones it cannot (with the reason). */
export interface PlotPlan {
  readonly plots: readonly PlotSpec[];
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
}

/** File names of the charts, in DIR/plots/. */
export const PLOT_FILES = {
  queueDepth: "queue-depth.svg",
  pfcPause: "pfc-pause.svg",
  dcqcn: "dcqcn-rate.svg",
  goodput: "goodput.svg",
  fctCdf: "fct-cdf.svg",
} as const;

/** Most series one chart shows (more lines than this are unreadable). */
export const MAX_SERIES = 8;

/** Chart body size, px. */
const WIDTH = 720;
const HEIGHT = 260;
/** Step series longer than this are thinned (keeping each bin's extremes) so the SVGs stay small. */
const MAX_POINTS = 400;
/** Goodput is averaged over about this many bins of the run (per-sample rates of a few packets are noise). */
const GOODPUT_BINS = 120;
const SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";

interface Scale {
  /** Axis label of the unit. */
  readonly unit: string;
  /** Base units (ns, bytes) per displayed unit. */
  readonly per: number;
}

/** µs for runs up to 2 ms, ms beyond. */
export function timeScale(spanNs: number): Scale {
  return spanNs <= 2e6 ? { unit: "µs", per: 1e3 } : { unit: "ms", per: 1e6 };
}

/** KB below 1 MB, MB from there (decimal, as the scenario files write sizes). */
export function sizeScale(maxBytes: number): Scale {
  return maxBytes >= 1e6 ? { unit: "MB", per: 1e6 } : { unit: "KB", per: 1e3 };
}

interface Row {
  readonly t: number;
  /** The key columns between t and the value, joined with " ". */
  readonly key: string;
  readonly cols: readonly string[];
  readonly value: number;
}

/** Parses a long-format series (t first, value last, key columns between). */
export function parseSeries(text: string | undefined): Row[] {
  if (!text) return [];
  const lines = text.split("\n");
  const rows: Row[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const cells = line.split(",");
    const t = Number(cells[0]);
    const value = Number(cells[cells.length - 1]);
    if (!Number.isFinite(t) || !Number.isFinite(value)) continue;
    const cols = cells.slice(1, -1);
    rows.push({ t, key: cols.join(" "), cols, value });
  }
  return rows;
}

interface Point {
  readonly t: number;
  readonly v: number;
}

function groupBy<T>(items: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of items) {
    const k = key(x);
    let list = out.get(k);
    if (list === undefined) {
      list = [];
      out.set(k, list);
    }
    list.push(x);
  }
  return out;
}

/**
 * A series that records only changes, as a step function: its points plus one at `endNs` holding the last
 * value, thinned to about MAX_POINTS by keeping, per time bin, the lowest and highest point and the last one
 * (so peaks survive and the line continues from the right value).
 */
export function stepPoints(points: readonly Point[], endNs: number): Point[] {
  if (points.length === 0) return [];
  const all = [...points];
  const last = all[all.length - 1]!;
  if (last.t < endNs) all.push({ t: endNs, v: last.v });
  if (all.length <= MAX_POINTS) return all;
  const t0 = all[0]!.t;
  const bins = Math.floor(MAX_POINTS / 3);
  const width = (endNs - t0) / bins || 1;
  const out: Point[] = [];
  let i = 0;
  while (i < all.length) {
    const bin = Math.floor((all[i]!.t - t0) / width);
    let j = i;
    let lo = i;
    let hi = i;
    while (j < all.length && Math.floor((all[j]!.t - t0) / width) === bin) {
      if (all[j]!.v < all[lo]!.v) lo = j;
      if (all[j]!.v > all[hi]!.v) hi = j;
      j++;
    }
    for (const k of [...new Set([i, lo, hi, j - 1])].sort((a, b) => a - b)) out.push(all[k]!);
    i = j;
  }
  return out;
}

function baseConfig() {
  return {
    // No ARIA attributes on marks, axes and legends (they double the SVG's size); renderSvg gives every
    // chart a <title> instead, the accessible name of a standalone SVG.
    aria: false,
    font: "DejaVu Sans, Helvetica, Arial, sans-serif",
    title: { anchor: "start" as const, fontSize: 14, subtitleFontSize: 11, subtitleColor: "#555" },
    axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: "#e6e6e6" },
    legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 260 },
    view: { stroke: "#bbb" },
  };
}

function title(text: string, subtitle: string) {
  return { text, subtitle };
}

interface LineChart {
  readonly title: string;
  readonly subtitle: string;
  readonly values: readonly { t: number; v: number; series: string }[];
  readonly x: string;
  readonly y: string;
  readonly legend: string;
  /** Series in legend order. */
  readonly order: readonly string[];
  readonly step: boolean;
  readonly logX?: boolean;
  readonly yDomain?: readonly [number, number];
}

function lineSpec(c: LineChart): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: title(c.title, c.subtitle),
    width: WIDTH,
    height: HEIGHT,
    data: { values: c.values as { t: number; v: number; series: string }[] },
    mark: { type: "line", interpolate: c.step ? "step-after" : "linear", strokeWidth: 1.3, clip: true },
    encoding: {
      x: {
        field: "t",
        type: "quantitative",
        title: c.x,
        ...(c.logX ? { scale: { type: "log" as const } } : {}),
      },
      y: {
        field: "v",
        type: "quantitative",
        title: c.y,
        ...(c.yDomain ? { scale: { domain: [...c.yDomain] } } : {}),
      },
      color: {
        field: "series",
        type: "nominal",
        title: c.legend,
        sort: [...c.order],
        scale: { scheme: "tableau10" },
      },
    },
    config: baseConfig(),
  };
}

/** The scenario's name (its description is often longer than the chart is wide). */
function subtitleOf(r: Report): string {
  return `scenario ${r.scenario}`;
}

/** Egress queue depth of the ports whose queues got deepest. */
function queueDepthPlot(files: ReportFiles): PlotSpec | string {
  const rows = parseSeries(files.queueDepth);
  if (rows.length === 0) return "no queue-depth.csv";
  const byKey = groupBy(rows, (r) => r.key);
  const peaks = [...byKey].map(([key, list]) => ({ key, peak: Math.max(...list.map((r) => r.value)) }));
  const used = peaks.filter((p) => p.peak > 0).sort((a, b) => b.peak - a.peak || a.key.localeCompare(b.key));
  if (used.length === 0) return "every switch queue stayed empty";
  const chosen = used.slice(0, Math.min(6, MAX_SERIES));
  const r = files.report;
  const ts = timeScale(r.durationNs);
  const ss = sizeScale(chosen[0]!.peak);
  const values: { t: number; v: number; series: string }[] = [];
  const order: string[] = [];
  for (const { key } of chosen) {
    const [device, port, queue] = key.split(" ");
    const label = `${device} ${port} q${queue}`;
    order.push(label);
    const pts = stepPoints(
      byKey.get(key)!.map((x) => ({ t: x.t, v: x.value })),
      r.durationNs,
    );
    for (const p of pts) values.push({ t: p.t / ts.per, v: p.v / ss.per, series: label });
  }
  const text =
    used.length > chosen.length
      ? `Egress queue depth: the ${chosen.length} deepest of ${used.length} queues that held data`
      : `Egress queue depth: all ${used.length} queues that held data`;
  return {
    file: PLOT_FILES.queueDepth,
    title: text,
    spec: lineSpec({
      title: text,
      subtitle: `${subtitleOf(r)} (sampled every ${r.sampleNs / 1e3} µs)`,
      values,
      x: `time (${ts.unit})`,
      y: `queue depth (${ss.unit})`,
      legend: "switch, port, queue",
      order,
      step: true,
    }),
  };
}

interface PauseInterval {
  readonly row: string;
  readonly device: string;
  readonly start: number;
  readonly end: number;
}

/** Exact pause intervals from paused-on / paused-off events (what a peer's PFC held, per port and priority). */
export function pauseIntervalsFromEvents(events: string, endNs: number): PauseInterval[] {
  const open = new Map<string, { device: string; start: number }>();
  const out: PauseInterval[] = [];
  for (const line of events.split("\n")) {
    if (!line.includes('"paused-o')) continue;
    let e: { kind?: string; device?: string; port?: number; priority?: number; t?: number };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.device === undefined || e.t === undefined) continue;
    const row = `${e.device} eth${e.port} p${e.priority}`;
    if (e.kind === "paused-on") {
      if (!open.has(row)) open.set(row, { device: e.device, start: e.t });
    } else if (e.kind === "paused-off") {
      const o = open.get(row);
      if (o) {
        out.push({ row, device: o.device, start: o.start, end: e.t });
        open.delete(row);
      }
    }
  }
  for (const [row, o] of open) out.push({ row, device: o.device, start: o.start, end: endNs });
  return out;
}

/** Pause intervals from the sampled pause-state.csv (switch egress queues only). */
function pauseIntervalsFromSeries(text: string | undefined, endNs: number): PauseInterval[] {
  const out: PauseInterval[] = [];
  for (const [key, list] of groupBy(parseSeries(text), (r) => r.key)) {
    const [device, port, queue] = key.split(" ");
    let start = -1;
    for (const r of list) {
      if (r.value > 0 && start < 0) start = r.t;
      else if (r.value === 0 && start >= 0) {
        out.push({ row: `${device} ${port} q${queue}`, device: device!, start, end: r.t });
        start = -1;
      }
    }
    if (start >= 0) out.push({ row: `${device} ${port} q${queue}`, device: device!, start, end: endNs });
  }
  return out;
}

/** When each egress queue was held by its peer's PFC. */
function pfcPausePlot(files: ReportFiles): PlotSpec | string {
  const r = files.report;
  const exact = files.events !== undefined;
  const intervals = exact
    ? pauseIntervalsFromEvents(files.events!, r.durationNs)
    : pauseIntervalsFromSeries(files.pauseState, r.durationNs);
  if (intervals.length === 0) return "no PFC pause in this run";
  const rows = [...groupBy(intervals, (i) => i.row)].map(([row, list]) => ({
    row,
    device: list[0]!.device,
    first: Math.min(...list.map((i) => i.start)),
    total: list.reduce((a, i) => a + (i.end - i.start), 0),
  }));
  rows.sort((a, b) => a.first - b.first || a.row.localeCompare(b.row));
  // The first paused queue of each device, in the order the pause reached it (that is the hop-by-hop
  // propagation); then, if there is room, the queues paused longest.
  const chosen: typeof rows = [];
  const devices = new Set<string>();
  for (const x of rows) {
    if (chosen.length >= MAX_SERIES) break;
    if (!devices.has(x.device)) {
      devices.add(x.device);
      chosen.push(x);
    }
  }
  for (const x of [...rows].sort((a, b) => b.total - a.total)) {
    if (chosen.length >= MAX_SERIES) break;
    if (!chosen.includes(x)) chosen.push(x);
  }
  chosen.sort((a, b) => a.first - b.first || a.row.localeCompare(b.row));
  const names = new Set(chosen.map((c) => c.row));
  const ts = timeScale(r.durationNs);
  // A pause of a few ns is invisible at run scale: draw every interval at least 1/1500 of the run wide, and
  // merge intervals whose gap is narrower than that (invisible too; a pause storm would otherwise be
  // thousands of rectangles).
  const minWidth = r.durationNs / 1500;
  const values: { row: string; device: string; start: number; end: number }[] = [];
  for (const [row, list] of groupBy(
    intervals.filter((i) => names.has(i.row)),
    (i) => i.row,
  )) {
    list.sort((a, b) => a.start - b.start);
    let cur: { start: number; end: number } | null = null;
    const flush = () => {
      if (cur)
        values.push({ row, device: list[0]!.device, start: cur.start / ts.per, end: cur.end / ts.per });
    };
    for (const i of list) {
      const end = Math.max(i.end, i.start + minWidth);
      if (cur && i.start - cur.end < minWidth) cur.end = Math.max(cur.end, end);
      else {
        flush();
        cur = { start: i.start, end };
      }
    }
    flush();
  }
  const text =
    rows.length > chosen.length
      ? `PFC pause state: ${chosen.length} of ${rows.length} paused egress queues (the first paused on each device)`
      : `PFC pause state: all ${rows.length} paused egress queues`;
  const source = exact ? "paused-on/off events" : `pause-state.csv sampled every ${r.sampleNs / 1e3} µs`;
  return {
    file: PLOT_FILES.pfcPause,
    title: text,
    spec: {
      $schema: SCHEMA,
      title: title(text, `${subtitleOf(r)}; bars: time a peer's XOFF held the queue (${source})`),
      width: WIDTH,
      height: Math.max(120, chosen.length * 26),
      data: { values },
      mark: { type: "bar", clip: true },
      encoding: {
        x: {
          field: "start",
          type: "quantitative",
          title: `time (${ts.unit})`,
          scale: { domain: [0, r.durationNs / ts.per] },
        },
        x2: { field: "end" },
        y: {
          field: "row",
          type: "nominal",
          sort: chosen.map((c) => c.row),
          title: "device, port, priority",
        },
        color: { field: "device", type: "nominal", legend: null, scale: { scheme: "tableau10" } },
      },
      config: baseConfig(),
    },
  };
}

/** DCQCN current rate and α of the QPs the reaction point changed most often. */
function dcqcnPlot(files: ReportFiles): PlotSpec | string {
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
function goodputPlot(files: ReportFiles): PlotSpec | string {
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
      subtitle: `${subtitleOf(r)}; acknowledged payload averaged over ${width / 1e3} µs bins`,
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

/** CDF of flow completion times, one line per workload. */
function fctCdfPlot(files: ReportFiles): PlotSpec | string {
  const r = files.report;
  const done = r.flows.filter((f) => f.fctNs !== null);
  if (done.length < 2) return `${done.length} completed flow${done.length === 1 ? "" : "s"}: no distribution`;
  const groups = [...groupBy(done, (f) => f.workload)].sort((a, b) => b[1].length - a[1].length);
  let shown = groups.map(([w, list]) => ({ label: w, fcts: list.map((f) => f.fctNs!) }));
  if (shown.length > MAX_SERIES) {
    const rest = shown.slice(MAX_SERIES - 1).flatMap((g) => g.fcts);
    shown = [
      ...shown.slice(0, MAX_SERIES - 1),
      { label: `${groups.length - MAX_SERIES + 1} other workloads`, fcts: rest },
    ];
  }
  const all = done.map((f) => f.fctNs!);
  const max = Math.max(...all);
  const min = Math.min(...all);
  const ts = timeScale(max);
  const values: { t: number; v: number; series: string }[] = [];
  for (const g of shown) {
    const sorted = [...g.fcts].sort((a, b) => a - b);
    const n = sorted.length;
    // At most ~1000 points per line: the CDF at evenly spaced ranks (and always the last one).
    const stride = Math.max(1, Math.floor(n / 1000));
    const label = `${g.label} (${n} flows)`;
    values.push({ t: sorted[0]! / ts.per, v: 0, series: label });
    for (let i = 0; i < n; i += stride)
      values.push({ t: sorted[i]! / ts.per, v: (i + 1) / n, series: label });
    values.push({ t: sorted[n - 1]! / ts.per, v: 1, series: label });
  }
  const logX = min > 0 && max / min >= 100;
  const text =
    groups.length > shown.length
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
      y: "fraction of flows",
      legend: "workload",
      order: shown.map((g) => `${g.label} (${g.fcts.length} flows)`),
      step: true,
      logX,
      yDomain: [0, 1],
    }),
  };
}

/** The charts this report supports, as vega-lite specs (pure and synchronous). */
export function planPlots(files: ReportFiles): PlotPlan {
  const plots: PlotSpec[] = [];
  const skipped: { file: string; reason: string }[] = [];
  const builders: [string, (f: ReportFiles) => PlotSpec | string][] = [
    [PLOT_FILES.queueDepth, queueDepthPlot],
    [PLOT_FILES.pfcPause, pfcPausePlot],
    [PLOT_FILES.dcqcn, dcqcnPlot],
    [PLOT_FILES.goodput, goodputPlot],
    [PLOT_FILES.fctCdf, fctCdfPlot],
  ];
  for (const [file, build] of builders) {
    const result = build(files);
    if (typeof result === "string") skipped.push({ file, reason: result });
    else plots.push(result);
  }
  return { plots, skipped };
}

/** Renders a vega-lite spec to an SVG document, headless, with the chart's title as the SVG's <title>. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  const t = spec.title;
  const text =
    typeof t === "string" ? t : t && typeof t === "object" && "text" in t ? String(t.text) : "chart";
  const open = svg.indexOf(">") + 1;
  // Vega still puts WAI-ARIA graphics roles on its group and title elements; HTML linters (Biome checks the
  // committed SVGs) read a role on <g> as an interactive element made non-interactive. The <title> names
  // the chart for assistive technology instead.
  const body = svg.slice(open).replace(/ role="graphics-(?:object|symbol|document)"/g, "");
  return `${svg.slice(0, open)}<title>${escapeXml(text)}</title>${body}`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Every chart of a report, rendered: file name (in DIR/plots/), title and SVG text. */
export async function renderPlots(files: ReportFiles): Promise<{
  readonly rendered: readonly (PlotSpec & { readonly svg: string })[];
  readonly skipped: PlotPlan["skipped"];
}> {
  const plan = planPlots(files);
  const rendered: (PlotSpec & { svg: string })[] = [];
  for (const p of plan.plots) rendered.push({ ...p, svg: await renderSvg(p.spec) });
  return { rendered, skipped: plan.skipped };
}
