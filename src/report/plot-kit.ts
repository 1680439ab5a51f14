// The shared kit of the report charts: what a report directory holds, the chart file names, axis scales,
// parsing the long-format CSV series, thinning series to the chart's pixels, and the common vega-lite look.

import type { TopLevelSpec } from "vega-lite";
import { decimate } from "./decimate.js";
import type { Report } from "./report.js";

/** The text of a report directory's files (undefined: the file is missing). */
export interface ReportFiles {
  readonly report: Report;
  /** queue-depth.csv: t_ns, device, port, queue, bytes. */
  readonly queueDepth?: string;
  /** pause-state.csv: t_ns, device, port, queue, paused (sampled; events.jsonl is exact and preferred). */
  readonly pauseState?: string;
  /** qp-rate.csv: t_ns, host, qpn, metric (rate_bps | alpha | qp-cc-series.ts's), value. */
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
  ccState: "cc-state.svg",
} as const;

/** Most series one chart shows (more lines than this are unreadable). */
export const MAX_SERIES = 8;

/**
 * Series colours: Okabe and Ito's colour-blind-safe set (blue, orange, green, vermillion, sky blue, reddish
 * purple, yellow, black), eight hues no two of which look alike — tableau10 put near-identical ones side by
 * side in the queue chart.
 */
export const PALETTE = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#56B4E9",
  "#CC79A7",
  "#F0E442",
  "#000000",
] as const;

/** Chart body size, px. */
export const WIDTH = 720;
const HEIGHT = 260;
/** Goodput is averaged over about this many bins of the run (per-sample rates of a few packets are noise). */
export const GOODPUT_BINS = 120;
export const SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";

export interface Scale {
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

export interface Row {
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

export interface Point {
  readonly t: number;
  readonly v: number;
}

export function groupBy<T>(items: readonly T[], key: (x: T) => string): Map<string, T[]> {
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
 * value, thinned to what a chart WIDTH pixels wide over the run (0 … endNs) shows (decimate: per pixel
 * column the lowest and the highest point, so peaks and drops survive).
 */
export function stepPoints(points: readonly Point[], endNs: number): Point[] {
  if (points.length === 0) return [];
  const all = [...points];
  const last = all[all.length - 1]!;
  if (last.t < endNs) all.push({ t: endNs, v: last.v });
  return decimate(all, WIDTH, { from: 0, to: endNs });
}

export function baseConfig() {
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

/**
 * Characters per title and subtitle line. Vega does not wrap a title: one long line widened the SVG to its
 * length (a 1,700 px pause chart), which the page then shrank to fit, chart and all. Headless, vega sizes
 * text by its estimate of 0.8 × font size per character (vega-scenegraph's textMetrics.estimateWidth), so
 * lines of at most WIDTH / (0.8 × size) characters keep the SVG as wide as the chart: 64 at 14 px, 81 at 11.
 */
const TITLE_CHARS = Math.floor(WIDTH / (0.8 * 14));
const SUBTITLE_CHARS = Math.floor(WIDTH / (0.8 * 11));

/** Breaks a text at spaces into lines of at most `chars` characters (a longer word keeps its own line). */
export function wrapText(text: string, chars: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "" || lines.length === 0) lines.push(line);
  return lines;
}

/** A chart title and subtitle, wrapped to the chart's width (vega-lite takes several lines as an array). */
export function title(text: string, subtitle: string) {
  return { text: wrapText(text, TITLE_CHARS), subtitle: wrapText(subtitle, SUBTITLE_CHARS) };
}

export interface LineChart {
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

/**
 * Each series of a line chart thinned to what the chart's WIDTH pixel columns show (decimate), over the x
 * range of all its series (log-spaced columns on a log axis): series by series, each in t order.
 */
export function thinLines<V extends { readonly t: number; readonly v: number; readonly series: string }>(
  values: readonly V[],
  logX = false,
): V[] {
  if (values.length <= 2 * WIDTH + 2) return [...values];
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const x of values) {
    if (logX && x.t <= 0) continue;
    from = Math.min(from, x.t);
    to = Math.max(to, x.t);
  }
  const opts = { from, to, ...(logX ? { axis: Math.log10 } : {}) };
  const bySeries = groupBy(values, (x) => x.series);
  return [...bySeries.values()].flatMap((list) =>
    decimate(
      [...list].sort((a, b) => a.t - b.t),
      WIDTH,
      opts,
    ),
  );
}

export function lineSpec(c: LineChart): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: title(c.title, c.subtitle),
    width: WIDTH,
    height: HEIGHT,
    data: { values: thinLines(c.values, c.logX) },
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
        scale: { range: [...PALETTE] },
      },
    },
    config: baseConfig(),
  };
}

/** The scenario's name (its description is often longer than the chart is wide). */
export function subtitleOf(r: Report): string {
  return `scenario ${r.scenario}`;
}
