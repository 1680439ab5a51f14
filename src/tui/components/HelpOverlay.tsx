// The help overlay: every key, and what the markers mean. Two columns when the screen is wide.
import type { ReactElement } from "react";
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
  const right = [blocks[2]!, blocks[4]!, blocks[5]!].flatMap((b) => [...b, []]);
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
}

/** The help overlay. */
export function HelpOverlay({ width, height }: HelpOverlayProps): ReactElement {
  return <Lines lines={helpLines(width, height)} width={width} height={height} />;
}
