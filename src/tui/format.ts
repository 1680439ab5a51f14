// Pure text helpers for the dashboard: fixed-width numbers, bars, sparklines and truncation. Everything
// here returns plain strings of a known width, so a view can lay out columns without measuring anything.

import { formatRate, formatSize } from "../device/units.js";

const SPARK = "▁▂▃▄▅▆▇█";
const BAR_FULL = "█";
const BAR_EMPTY = "░";

/** Cuts `text` to `width` columns, marking the cut with "…". */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (text.length <= width) return text;
  if (width === 1) return "…";
  return `${text.slice(0, width - 1)}…`;
}

/** Left-aligned in exactly `width` columns (truncated when longer). */
export function padRight(text: string, width: number): string {
  return truncate(text, width).padEnd(Math.max(0, width));
}

/** Right-aligned in exactly `width` columns (truncated when longer). */
export function padLeft(text: string, width: number): string {
  return truncate(text, width).padStart(Math.max(0, width));
}

/** A fraction as a whole percentage ("97%"); "-" when unknown. */
export function formatPercent(fraction: number | null): string {
  if (fraction === null || !Number.isFinite(fraction)) return "-";
  return `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}

/** Bytes, short ("1.21MB", "0B"). */
export function formatBytes(bytes: number): string {
  return formatSize(Math.max(0, Math.round(bytes)));
}

/** Bits per second, short, without the unit ("57.98G"); "-" when unknown. */
export function formatBps(bps: number | null): string {
  if (bps === null || !Number.isFinite(bps)) return "-";
  if (bps < 1) return "0";
  return formatRate(bps);
}

/** A counter, compact for narrow columns ("621", "12.3k", "4.5M"). */
export function formatCount(n: number): string {
  if (n < 10_000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e5 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`;
}

/**
 * Emulated time for the status line and the event log, µs resolution: "842.117us" below a millisecond,
 * "13.846ms" below a second, then "12.345678s". Emulated time in a live lab runs from the lab's start.
 */
export function formatEmulated(ns: number): string {
  if (ns < 1e6) return `${(ns / 1e3).toFixed(3)}us`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(3)}ms`;
  return `${(ns / 1e9).toFixed(6)}s`;
}

/** A horizontal bar of `width` cells filled to `fraction` (0..1); at least one cell shows for any use. */
export function bar(fraction: number, width: number): string {
  if (width <= 0) return "";
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  let full = Math.round(f * width);
  if (full === 0 && f > 0) full = 1;
  return BAR_FULL.repeat(full) + BAR_EMPTY.repeat(width - full);
}

/** One block character for a level 0..1 (" " for nothing, "▁".."█" otherwise). */
export function level(fraction: number): string {
  if (!(fraction > 0)) return " ";
  const i = Math.min(SPARK.length - 1, Math.floor(Math.min(1, fraction) * SPARK.length));
  return SPARK[i]!;
}

/**
 * The last `width` values as a sparkline, scaled to `max` (or to the largest value shown); zero is blank, so
 * idle stays quiet. Missing history is padded on the left so the newest sample is always in the last column.
 */
export function sparkline(values: readonly number[], width: number, max?: number): string {
  if (width <= 0) return "";
  const shown = values.slice(-width);
  const top = max ?? Math.max(0, ...shown);
  const cells = shown.map((v) => (top > 0 && v > 0 ? level(v / top) : " "));
  return " ".repeat(width - cells.length) + cells.join("");
}

/**
 * DCQCN's α in five columns: ".081", "1.000", "0", and small values by their order of magnitude ("1e-4"
 * for 1.2e-4), which live NICs show between congestion episodes and three decimals would hide.
 */
export function formatAlpha(alpha: number): string {
  if (!(alpha > 0)) return "0";
  if (alpha >= 0.001) return alpha.toFixed(3).replace(/^0\./, ".");
  return `1e${Math.floor(Math.log10(alpha))}`;
}

/** "node:eth3" -> "node" and 3. */
export function splitEndpoint(endpoint: string): { node: string; port: number } {
  const i = endpoint.lastIndexOf(":eth");
  if (i < 0) return { node: endpoint, port: 0 };
  return { node: endpoint.slice(0, i), port: Number(endpoint.slice(i + 4)) };
}
