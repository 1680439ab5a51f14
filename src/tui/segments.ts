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

/**
 * The line cut to `width` columns, at a word boundary where there is one: what stays on screen is whole
 * words, and "…" marks that something was left out (a word longer than the line is cut inside it).
 */
export function fitLine(segments: readonly Segment[], width: number): Segment[] {
  if (lineWidth(segments) <= width) return [...segments];
  if (width <= 0) return [];
  const text = lineText(segments);
  // Keep `keep` columns, then "…": after the last space that leaves room for it, unless the cut falls
  // between two words already.
  let keep = width - 1;
  if (text[keep] !== " " && text[keep - 1] !== " ") {
    const space = text.lastIndexOf(" ", keep - 1);
    if (space > 0 && text.slice(0, space).trim().length > 0) keep = space + 1;
  }
  const out: Segment[] = [];
  let left = keep;
  let tone: Tone | undefined;
  for (const s of segments) {
    if (left <= 0) break;
    const part = s.text.slice(0, left);
    out.push({ ...s, text: part });
    tone = s.tone;
    left -= part.length;
  }
  out.push(tone ? { text: "…", tone } : { text: "…" });
  return out;
}

/** The first of `variants` (longest first) that fits in `width`; else the last, cut as fitLine cuts. */
export function pickFit(variants: readonly (readonly Segment[])[], width: number): Segment[] {
  for (const v of variants) if (lineWidth(v) <= width) return [...v];
  return fitLine(variants.at(-1) ?? [], width);
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
