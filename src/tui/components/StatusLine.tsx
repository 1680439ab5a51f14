// The bottom line: runtime and lab, emulated time, dilation, preset, and how the last action went.
import type { ReactElement } from "react";
import { formatEmulated } from "../format.js";
import { useTheme } from "../hooks/use-theme.js";
import { lineWidth, type Segment, seg } from "../segments.js";
import type { DashboardState } from "../store.js";
import { marker, Tone } from "../theme.js";
import { Line } from "./Line.js";

/** The key hint when no action has been taken yet, longest first. */
const HINTS = ["i incast  l link  k kill  t preset  ? help", "i incast  l link  ? help", "? help"] as const;

export interface StatusLineProps {
  readonly state: DashboardState;
  readonly width: number;
}

/** The status line. */
export function StatusLine({ state, width }: StatusLineProps): ReactElement {
  const theme = useTheme();
  const s = state.snapshot;
  // What always shows: where and when, then the last action's outcome (the one piece of feedback), then
  // whichever of dilation, preset and lag still fit, in that order.
  const out: Segment[] = [
    seg(` ${state.runtime} `, Tone.Selected),
    seg(` ${state.lab} `, Tone.Heading),
    seg(` t=${s ? formatEmulated(s.now) : "-"} `),
  ];
  const flags: Segment[] = [];
  if (state.paused) flags.push(seg(` ${marker(theme, "PAUSED")} `, Tone.Warn));
  if (s && s.status !== "running" && !state.paused) flags.push(seg(` lab ${s.status} `, Tone.Warn));
  const a = state.lastAction;
  const feedback: Segment[] = [seg("│ ", Tone.Dim)];
  if (!a) feedback.push(seg(HINTS[0]!, Tone.Dim));
  else if (a.state === "error") feedback.push(seg(`ERROR: ${a.text}`, Tone.Bad));
  else if (a.state === "ok") feedback.push(seg(`ok: ${a.text}`, Tone.Good));
  else feedback.push(seg(a.text, Tone.Accent));
  // A long outcome takes the place of the lab's name, then of the runtime: the tab bar shows both.
  if (a)
    for (const drop of [1, 0])
      if (lineWidth(out) + lineWidth(flags) + lineWidth(feedback) > width) out.splice(drop, 1);
  // Each optional piece in words, else its short form (both in the help overlay), else left out.
  const behind = s?.behindNs !== undefined && s.behindNs >= 1000 ? formatEmulated(s.behindNs) : null;
  const optional: (readonly [Segment, Segment | null])[] = [
    [seg(` dilation ${s ? s.dilation : "-"} `), seg(` x${s ? s.dilation : "-"} `)],
    [seg(` preset ${state.preset} `), null],
    // Synced live clocks: what a busy machine has cost so far (the lab waits rather than drops).
    ...(behind !== null
      ? [[seg(` clock behind ${behind} `, Tone.Dim), seg(` behind ${behind} `, Tone.Dim)] as const]
      : []),
  ];
  // Without an outcome to show, the key hint is what gives way (it shortens to what is left below).
  let used = lineWidth(out) + lineWidth(flags) + (a ? lineWidth(feedback) : 2);
  for (const [long, short] of optional) {
    const o = used + long.text.length <= width ? long : short;
    if (o === null || used + o.text.length > width) continue;
    out.push(o);
    used += o.text.length;
  }
  // The key hint shortens to what is left of the line.
  if (!a) {
    const room = width - lineWidth(out) - lineWidth(flags) - 2;
    feedback[1] = seg(HINTS.find((h) => h.length <= room) ?? "", Tone.Dim);
  }
  out.push(...flags, ...feedback);
  return <Line segments={out} width={width} />;
}
