// The bottom line: runtime and lab, emulated time, dilation, preset, and how the last action went.
import type { ReactElement } from "react";
import { formatEmulated } from "../format.js";
import { useTheme } from "../hooks/use-theme.js";
import { type Segment, seg } from "../segments.js";
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
  // What always shows: where and when. The last action's outcome takes the rest of the line.
  const narrow = width < 110;
  const out: Segment[] = [
    seg(` ${state.runtime} `, Tone.Selected),
    seg(` ${state.lab} `, Tone.Heading),
    seg(` t=${s ? formatEmulated(s.now) : "-"} `),
    seg(narrow ? ` x${s ? s.dilation : "-"} ` : ` dilation ${s ? s.dilation : "-"} `),
    seg(narrow ? ` ${state.preset} ` : ` preset ${state.preset} `),
  ];
  // Synced live clocks: what a busy machine has cost so far (the lab waits rather than drops).
  if (s?.behindNs !== undefined && s.behindNs >= 1000 && !narrow) {
    out.push(seg(` behind ${formatEmulated(s.behindNs)} `, Tone.Dim));
  }
  if (state.paused) out.push(seg(` ${marker(theme, "PAUSED")} `, Tone.Warn));
  if (s && s.status !== "running" && !state.paused) out.push(seg(` lab ${s.status} `, Tone.Warn));
  out.push(seg("│ ", Tone.Dim));
  const a = state.lastAction;
  if (!a) out.push(seg("i incast  l link  k kill  t preset  ? help", Tone.Dim));
  else if (a.state === "error") out.push(seg(`ERROR: ${a.text}`, Tone.Bad));
  else if (a.state === "ok") out.push(seg(`ok: ${a.text}`, Tone.Good));
  else out.push(seg(a.text, Tone.Accent));
  return <Line segments={out} width={width} />;
}
