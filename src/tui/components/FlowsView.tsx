// Flows and QPs: every QP of every host with its DCQCN rate, target and α, goodput (with a sparkline), the
// CNPs it handled or sent, and whether it is sending, receiving, paused or in the error state; `v` shows
// the paths instead, then how every flow ended (flow-status-lines.ts).
import type { ReactElement } from "react";
import { flowOutcomes } from "../flow-outcomes.js";
import { flowPathLines } from "../flow-path-lines.js";
import { flowStatusLines } from "../flow-status-lines.js";
import { formatBps, formatCount } from "../format.js";
import { qpHeader, qpLine } from "../qp-lines.js";
import { pickFit, type Segment, seg, type ViewLines } from "../segments.js";
import type { DashboardState } from "../store.js";
import { type Theme, Tone } from "../theme.js";
import type { FlowsMode } from "../ui-state.js";
import { ScrolledLines, type ScrolledViewProps } from "./ScrolledLines.js";

function summary(state: DashboardState, width: number, first: number, last: number): Segment[] {
  const qps = state.qps;
  const tx = qps.filter((q) => q.role === "tx");
  const rx = qps.filter((q) => q.role === "rx");
  // A sender with nothing posted or unacknowledged has finished, whatever its DCQCN rate says.
  const sending = tx.filter((q) => q.pending > 0 || q.inflight > 0).length;
  const done = tx.length - sending;
  const goodput = rx.reduce((a, q) => a + (q.goodputBps ?? 0), 0);
  const cnps = tx.reduce((a, q) => a + q.cnpHandled, 0);
  const failed = flowOutcomes(state.snapshot).failed;
  const scrolled = qps.length > last - first;
  const rate = seg(`${formatBps(goodput)}b/s`, goodput > 0 ? Tone.Accent : Tone.Dim);
  const cnp = seg(formatCount(cnps), cnps > 0 ? Tone.Warn : Tone.Dim);
  const long: Segment[] = [
    seg(
      `${qps.length} QPs: ${sending} sending${done > 0 ? `, ${done} done` : ""}, ${rx.length} receiving   delivered `,
    ),
    rate,
    seg("   CNPs handled "),
    cnp,
    ...(failed > 0
      ? [seg(`   ${failed} flow${failed === 1 ? "" : "s"} FAILED (v twice: which)`, Tone.Bad)]
      : []),
    seg(scrolled ? `   (${first + 1}-${last} shown, ↑↓)` : "", Tone.Dim),
    seg("   v: paths", Tone.Dim),
  ];
  const short: Segment[] = [
    seg(`${qps.length} QPs: ${sending} sending${done > 0 ? `, ${done} done` : ""}, ${rx.length} recv  `),
    rate,
    seg("  CNP "),
    cnp,
    ...(failed > 0 ? [seg(`  ${failed} FAILED`, Tone.Bad)] : []),
    seg(scrolled ? `  ${first + 1}-${last}/${qps.length} ↑↓` : "", Tone.Dim),
    seg("  v paths", Tone.Dim),
  ];
  return pickFit([long, short, short.slice(0, -1)], width);
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
  const last = Math.min(qps.length, first + page);
  const lines: Segment[][] = [summary(state, width, first, last), [], qpHeader(state, width, theme)];
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
