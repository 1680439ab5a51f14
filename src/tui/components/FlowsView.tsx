// Flows and QPs: every QP of every host with its DCQCN rate, target and α, goodput (with a sparkline), the
// CNPs it handled or sent, and whether it is sending, receiving, paused or in the error state; `v` shows
// the paths instead, then how every flow ended (flow-status-lines.ts).
import type { ReactElement } from "react";
import { flowOutcomes } from "../flow-outcomes.js";
import { flowPathLines } from "../flow-path-lines.js";
import { flowStatusLines } from "../flow-status-lines.js";
import { formatBps, formatCount } from "../format.js";
import { qpHeader, qpLine } from "../qp-lines.js";
import { type Segment, seg, type ViewLines } from "../segments.js";
import type { DashboardState } from "../store.js";
import { type Theme, Tone } from "../theme.js";
import type { FlowsMode } from "../ui-state.js";
import { ScrolledLines, type ScrolledViewProps } from "./ScrolledLines.js";

function summary(state: DashboardState, shown: string): Segment[] {
  const qps = state.qps;
  const tx = qps.filter((q) => q.role === "tx");
  const rx = qps.filter((q) => q.role === "rx");
  // A sender with nothing posted or unacknowledged has finished, whatever its DCQCN rate says.
  const sending = tx.filter((q) => q.pending > 0 || q.inflight > 0).length;
  const done = tx.length - sending;
  const goodput = rx.reduce((a, q) => a + (q.goodputBps ?? 0), 0);
  const cnps = tx.reduce((a, q) => a + q.cnpHandled, 0);
  const failed = flowOutcomes(state.snapshot).failed;
  return [
    seg(
      `${qps.length} QPs: ${sending} sending${done > 0 ? `, ${done} done` : ""}, ${rx.length} receiving   delivered `,
    ),
    seg(`${formatBps(goodput)}b/s`, goodput > 0 ? Tone.Accent : Tone.Dim),
    seg("   CNPs handled "),
    seg(formatCount(cnps), cnps > 0 ? Tone.Warn : Tone.Dim),
    ...(failed > 0
      ? [seg(`   ${failed} flow${failed === 1 ? "" : "s"} FAILED (v twice: which)`, Tone.Bad)]
      : []),
    seg(shown, Tone.Dim),
    seg("   v: paths", Tone.Dim),
  ];
}

/** The flows view's lines; `top` is the first QP shown. */
export function flowsLines(
  state: DashboardState,
  top: number,
  width: number,
  height: number,
  theme: Theme,
): ViewLines {
  const qps = state.qps;
  const page = Math.max(1, height - 3);
  const first = Math.max(0, Math.min(top, qps.length - page));
  const shown = qps.length > page ? `   (${first + 1}-${Math.min(qps.length, first + page)} shown, ↑↓)` : "";
  const lines: Segment[][] = [summary(state, shown), [], qpHeader(state, width, theme)];
  if (qps.length === 0) {
    lines.push([seg(" no QPs yet: press i to start an incast, u for background UDP", Tone.Dim)]);
  }
  for (const q of qps.slice(first, first + page)) lines.push(qpLine(q, state, width, theme));
  return { lines: lines.slice(0, height), rows: qps.length, page };
}

export interface FlowsViewProps extends ScrolledViewProps {
  /** Rates (DCQCN, goodput), paths (routes through the fabric and class) or status; `v` switches. */
  readonly mode?: FlowsMode;
}

/** The flows view (the QP list scrolls). */
export function FlowsView({ mode = "rates", ...props }: FlowsViewProps): ReactElement {
  const linesOf = mode === "paths" ? flowPathLines : mode === "status" ? flowStatusLines : flowsLines;
  return <ScrolledLines {...props} linesOf={linesOf} />;
}
