// The help overlay: every key, what the markers mean and every abbreviation on screen. Two columns when the
// screen is wide enough for both side by side, else one that scrolls; no line is ever cut.
import type { ReactElement } from "react";
import { ABBREVIATIONS } from "../abbreviations.js";
import { padRight } from "../format.js";
import { KEY_HELP, MARKER_HELP } from "../key-map.js";
import { lineWidth, type Segment, seg } from "../segments.js";
import { Tone } from "../theme.js";
import { Lines } from "./Lines.js";

/** `text` in lines of at most `width` columns, broken between words (a longer word stays whole). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ").filter((w) => w.length > 0)) {
    if (line.length > 0 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line.length > 0 ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

interface Block {
  readonly title: string;
  readonly rows: readonly (readonly [string, string])[];
  readonly keyWidth: number;
}

/** A block's lines; with `width`, a description too long for it goes on under itself, never cut. */
function blockLines(b: Block, width = Number.POSITIVE_INFINITY): Segment[][] {
  const indent = b.keyWidth + 2;
  const out: Segment[][] = [[seg(b.title, Tone.Heading)]];
  for (const [k, what] of b.rows) {
    const [first = "", ...more] = wrapWords(what, Math.max(1, width - indent));
    out.push([seg(` ${padRight(k, b.keyWidth)} `, Tone.Accent), seg(first)]);
    for (const m of more) out.push([seg(" ".repeat(indent)), seg(m)]);
  }
  return out;
}

/** The widest line of blocks laid out unwrapped. */
function widest(blocks: readonly Block[]): number {
  return Math.max(...blocks.flatMap((b) => blockLines(b).map(lineWidth)));
}

/**
 * The overlay's lines at a size: everything on one screen when it fits; else two columns when the screen
 * is wide enough for the widest line of each side by side; else one column that scrolls (helpPage), its
 * descriptions wrapped under themselves so that no line is cut.
 */
export function helpLines(width: number, height: number): Segment[][] {
  const blocks: Block[] = [
    ...KEY_HELP.map((g) => ({ title: g.title, rows: g.keys, keyWidth: 20 })),
    { title: "markers (also without colour)", rows: MARKER_HELP, keyWidth: 13 },
    { title: "abbreviations (all times emulated)", rows: ABBREVIATIONS, keyWidth: 18 },
  ];
  const title: Segment[] = [
    seg("rocelab testbed: keys", Tone.Heading),
    seg("   (Esc or ? closes)", Tone.Dim),
  ];
  const spaced = (bs: readonly Block[], w?: number) => bs.flatMap((b) => [...blockLines(b, w), []]);
  const oneColumn = [title, [], ...spaced(blocks, width)];
  if (oneColumn.length <= height) return oneColumn;
  // Keys and markers on the left, the abbreviations on the right: about as many lines each.
  const leftBlocks = blocks.slice(0, -1);
  const rightBlocks = blocks.slice(-1);
  // The right column starts at the middle, or further left when its lines need the room, never closer
  // than two columns to the widest left line.
  const gap = 2;
  const at = Math.max(widest(leftBlocks) + gap, Math.min(Math.floor(width / 2), width - widest(rightBlocks)));
  if (at + widest(rightBlocks) > width) {
    // One scrolling column: the blank lines between groups go first.
    return [title, ...blocks.flatMap((b) => blockLines(b, width))];
  }
  const left = spaced(leftBlocks);
  const right = spaced(rightBlocks);
  const rows: Segment[][] = [title, []];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const l = left[i] ?? [];
    rows.push([...l, seg(" ".repeat(at - lineWidth(l))), ...(right[i] ?? [])]);
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
