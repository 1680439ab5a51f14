// Tables built from one column list, so headers and rows always line up: each cell is padded (or cut) to
// its column's width, keeping its tone.

import { padLeft, padRight } from "./format.js";
import { type Segment, seg } from "./segments.js";
import { Tone } from "./theme.js";

export interface Column<T> {
  readonly header: string;
  readonly width: number;
  readonly align?: "left" | "right";
  cell(row: T): Segment;
}

function pad<T>(col: Column<T>, text: string): string {
  return col.align === "right" ? padLeft(text, col.width) : padRight(text, col.width);
}

/** The header line (one leading space, one space between columns). */
export function tableHeader<T>(columns: readonly Column<T>[]): Segment[] {
  return [seg(` ${columns.map((c) => pad(c, c.header)).join(" ")}`, Tone.Heading)];
}

/** One row; `lead` is the one-character gutter (a selection mark, or a space). */
export function tableRow<T>(columns: readonly Column<T>[], row: T, lead: Segment = seg(" ")): Segment[] {
  const out: Segment[] = [lead];
  columns.forEach((c, i) => {
    if (i > 0) out.push(seg(" "));
    const s = c.cell(row);
    out.push({ ...s, text: pad(c, s.text) });
  });
  return out;
}
