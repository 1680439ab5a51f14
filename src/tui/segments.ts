// A screen line as styled segments. Views build lines of segments with known widths; the Line component
// draws them. Fitting a line to the screen width happens here, so nothing ever wraps.

import type { Tone } from "./theme.js";

export interface Segment {
  readonly text: string;
  readonly tone?: Tone;
}

/** Shorthand for a segment. */
export function seg(text: string, tone?: Tone): Segment {
  return tone ? { text, tone } : { text };
}

/** The line's width in columns. */
export function lineWidth(segments: readonly Segment[]): number {
  return segments.reduce((w, s) => w + s.text.length, 0);
}

/** The line cut to `width` columns ("…" marks the cut). */
export function fitLine(segments: readonly Segment[], width: number): Segment[] {
  if (lineWidth(segments) <= width) return [...segments];
  const out: Segment[] = [];
  let left = width;
  for (const s of segments) {
    if (left <= 0) break;
    if (s.text.length < left) {
      out.push(s);
      left -= s.text.length;
    } else {
      const cut = s.text.slice(0, Math.max(0, left - 1));
      out.push({ ...s, text: `${cut}…` });
      left = 0;
    }
  }
  return out;
}

/** The plain text of a line (tests, the headless summary). */
export function lineText(segments: readonly Segment[]): string {
  return segments.map((s) => s.text).join("");
}

/** The size of a view's scrolling list: its rows and how many fit (what the scroll keys need). */
export interface ViewLayout {
  readonly rows: number;
  readonly page: number;
}

/** A view's lines, and its scrolling list's size. */
export interface ViewLines extends ViewLayout {
  readonly lines: Segment[][];
}
