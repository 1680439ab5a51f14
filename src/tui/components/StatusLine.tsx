// The bottom line: runtime and lab, emulated time, dilation, preset, and how the last action went.
import type { ReactElement } from "react";
import { formatEmulated } from "../format.js";
import { useTheme } from "../hooks/use-theme.js";
import { lineWidth, type Segment, seg } from "../segments.js";
import type { DashboardState } from "../store.js";
import { marker, Tone } from "../theme.js";
import { Line } from "./Line.js";

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
  if (!a) feedback.push(seg("i incast  l link  k kill  t preset  ? help", Tone.Dim));
  else if (a.state === "error") feedback.push(seg(`ERROR: ${a.text}`, Tone.Bad));
  else if (a.state === "ok") feedback.push(seg(`ok: ${a.text}`, Tone.Good));
  else feedback.push(seg(a.text, Tone.Accent));
  const optional: Segment[] = [
    seg(` dilation ${s ? s.dilation : "-"} `),
    seg(` preset ${state.preset} `),
    // Synced live clocks: what a busy machine has cost so far (the lab waits rather than drops).
    ...(s?.behindNs !== undefined && s.behindNs >= 1000
      ? [seg(` behind ${formatEmulated(s.behindNs)} `, Tone.Dim)]
      : []),
  ];
  let used = lineWidth(out) + lineWidth(flags) + lineWidth(feedback);
  for (const o of optional) {
    // Without an outcome to show, the key hint is what gives way.
    if (a && used + o.text.length > width) break;
    out.push(o);
    used += o.text.length;
  }
  out.push(...flags, ...feedback);
  return <Line segments={out} width={width} />;
}
