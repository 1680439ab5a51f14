// The help overlay: every key, and what the markers mean. Two columns when the screen is wide.
import type { ReactElement } from "react";
import { ABBREVIATIONS } from "../abbreviations.js";
import { padRight } from "../format.js";
import { KEY_HELP, MARKER_HELP } from "../key-map.js";
import { type Segment, seg } from "../segments.js";
import { Tone } from "../theme.js";
import { Lines } from "./Lines.js";

function block(title: string, rows: readonly (readonly [string, string])[], keyWidth: number): Segment[][] {
  return [
    [seg(title, Tone.Heading)],
    ...rows.map(([k, what]) => [seg(` ${padRight(k, keyWidth)} `, Tone.Accent), seg(what)]),
  ];
}

/** The overlay's lines at a size. */
export function helpLines(width: number, height: number): Segment[][] {
  const keyWidth = 20;
  const blocks = [
    ...KEY_HELP.map((g) => block(g.title, g.keys, keyWidth)),
    block("markers (also without colour)", MARKER_HELP, 13),
    block("abbreviations (all times emulated)", ABBREVIATIONS, 17),
  ];
  const title: Segment[] = [
    seg("rocelab testbed: keys", Tone.Heading),
    seg("   (Esc or ? closes)", Tone.Dim),
  ];
  const oneColumn = [title, [], ...blocks.flatMap((b) => [...b, []])];
  if (oneColumn.length <= height || width < 110) {
    // Narrow screens drop the blank lines between groups before anything else.
    return oneColumn.length <= height ? oneColumn : [title, ...blocks.flat()];
  }
  const half = Math.floor(width / 2);
  const left = [blocks[0]!, blocks[1]!, blocks[3]!].flatMap((b) => [...b, []]);
  const right = [blocks[2]!, blocks[4]!, blocks[5]!, blocks[6]!].flatMap((b) => [...b, []]);
  const rows: Segment[][] = [title, []];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const l = left[i] ?? [];
    const text = l.map((s) => s.text).join("");
    rows.push([...l, seg(" ".repeat(Math.max(1, half - text.length))), ...(right[i] ?? [])]);
  }
  return rows;
}

export interface HelpOverlayProps {
  readonly width: number;
  readonly height: number;
  /** First line shown (↑ ↓ PgUp PgDn scroll a help longer than the screen). */
  readonly top?: number;
}

/** The lines shown from `top`, with a last line saying where and how to scroll when they do not fit. */
export function helpPage(width: number, height: number, top: number): { lines: Segment[][]; max: number } {
  const all = helpLines(width, height);
  if (all.length <= height) return { lines: all, max: 0 };
  const page = Math.max(1, height - 1);
  const max = all.length - page;
  const first = Math.max(0, Math.min(top, max));
  const lines = all.slice(first, first + page);
  lines.push([
    seg(
      `lines ${first + 1}-${first + page} of ${all.length}   ↑↓ PgUp PgDn scroll   Esc or ? closes`,
      Tone.Dim,
    ),
  ]);
  return { lines, max };
}

/** The help overlay. */
export function HelpOverlay({ width, height, top = 0 }: HelpOverlayProps): ReactElement {
  return <Lines lines={helpPage(width, height, top).lines} width={width} height={height} />;
}
