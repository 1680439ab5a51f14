// Table lines for QPs, shared by the flows view and a host's node view: DCQCN rate and α, goodput with its
// sparkline, CNPs, how the QP's last flow ended (its FCT, or FAILED), and whether the QP is sending,
// receiving, paused or in the error state.

import { formatDuration } from "../device/units.js";
import type { QpRow } from "./derive.js";
import { lastCompletionOnQp } from "./flow-outcomes.js";
import { formatAlpha, formatBps, formatBytes, formatCount, sparkline } from "./format.js";
import { type Segment, seg } from "./segments.js";
import type { DashboardState } from "./store.js";
import { type Column, tableHeader, tableRow } from "./table.js";
import { marker, type Theme, Tone } from "./theme.js";

/** Wide enough for the rate sparkline and ECN (107 columns); RETX and INFL need QP_WIDEST (119). */
export const QP_WIDE = 110;
export const QP_WIDEST = 119;
/** Wide enough also for the window, RTT and utilisation of HPCC, TIMELY and DCTCP (docs/int.md). */
export const QP_CC_WIDE = 141;

/** The line rate of a host's link (bits/s), to scale its sparklines. */
export function hostLineRate(state: DashboardState, host: string): number {
  const l = state.topology.links.find((x) => x.a === `${host}:eth1` || x.b === `${host}:eth1`);
  return l?.rateBps ?? 100e9;
}

function stateOf(q: QpRow, theme: Theme): Segment {
  if (q.state === "error") return seg(marker(theme, "ERROR"), Tone.Bad);
  if (q.paused) return seg(marker(theme, "PAUSED"), Tone.Pause);
  if (q.role === "tx" && (q.pending > 0 || q.inflight > 0)) return seg("sending", Tone.Good);
  if (q.role === "rx" && (q.goodputBps ?? 0) > 0) return seg("receiving", Tone.Good);
  if (q.role === "idle") return seg("idle", Tone.Dim);
  return seg("done", Tone.Dim);
}

/** The QP's last flow: its FCT ("1.23ms", at most 6 columns), FAILED, or "-" while none has ended. */
function fctOf(q: QpRow, state: DashboardState): Segment {
  const r = lastCompletionOnQp(state.snapshot, q.host, q.qpn);
  if (r === undefined) return seg("-", Tone.Dim);
  if (r.status !== "success") return seg("FAILED", Tone.Bad);
  return seg(formatDuration(r.fctNs));
}

/** The QP table's columns at a width: 80 columns hold the narrow set exactly. */
export function qpColumns(state: DashboardState, width: number, theme: Theme): Column<QpRow>[] {
  const wide = width >= QP_WIDE;
  const widest = width >= QP_WIDEST;
  const ccWide = width >= QP_CC_WIDE;
  // Rates print in at most 5 columns ("97.5G"); narrow tables give them no spare one.
  const rateWidth = wide ? 7 : 6;
  const sender = (q: QpRow) => q.role !== "rx";
  const line = (q: QpRow) => hostLineRate(state, q.host);
  const cols: (Column<QpRow> | null)[] = [
    { header: "HOST", width: 5, cell: (q) => seg(q.host) },
    { header: "QP", width: 4, cell: (q) => seg(String(q.qpn)) },
    { header: "PEER", width: 6, cell: (q) => seg(`${q.role === "rx" ? "←" : "→"}${q.peer}`) },
    {
      header: "RATE",
      width: rateWidth,
      align: "right",
      cell: (q) =>
        seg(
          sender(q) ? formatBps(q.rateBps) : "-",
          sender(q) && q.rateBps < line(q) * 0.999 ? Tone.Warn : undefined,
        ),
    },
    wide
      ? {
          header: "RATE HISTORY",
          width: 12,
          cell: (q) =>
            seg(sender(q) ? sparkline(state.history.rate.get(q.key) ?? [], 12, line(q)) : "", Tone.Accent),
        }
      : null,
    {
      header: "TARGET",
      width: rateWidth,
      align: "right",
      cell: (q) => seg(sender(q) ? formatBps(q.targetRateBps) : "-"),
    },
    {
      header: "ALPHA",
      width: 5,
      align: "right",
      cell: (q) => seg(sender(q) ? formatAlpha(q.alpha) : "-", q.alpha > 0.1 ? Tone.Warn : undefined),
    },
    ccWide
      ? {
          header: "WINDOW",
          width: 7,
          align: "right",
          cell: (q) => seg(sender(q) && q.windowBytes > 0 ? formatBytes(q.windowBytes) : "-"),
        }
      : null,
    ccWide
      ? {
          header: "RTT",
          width: 7,
          align: "right",
          cell: (q) => seg(sender(q) && q.rttNs > 0 ? `${(q.rttNs / 1e3).toFixed(1)}us` : "-"),
        }
      : null,
    ccWide
      ? {
          header: "U",
          width: 5,
          align: "right",
          cell: (q) =>
            seg(
              sender(q) && q.utilisation > 0 ? q.utilisation.toFixed(2) : "-",
              q.utilisation > 1 ? Tone.Warn : undefined,
            ),
        }
      : null,
    {
      header: "GOODPUT",
      width: wide ? 14 : 10,
      cell: (q) =>
        seg(sparkline(state.history.goodput.get(q.key) ?? [], wide ? 14 : 10, line(q)), Tone.Accent),
    },
    { header: "b/s", width: rateWidth, align: "right", cell: (q) => seg(formatBps(q.goodputBps)) },
    {
      header: "CNP",
      width: 6,
      align: "right",
      cell: (q) => {
        const n = sender(q) ? q.cnpHandled : q.cnpSent;
        return seg(formatCount(n), n > 0 ? Tone.Warn : Tone.Dim);
      },
    },
    wide
      ? {
          header: "ECN",
          width: 6,
          align: "right",
          cell: (q) => seg(formatCount(q.ecnMarked), q.ecnMarked > 0 ? undefined : Tone.Dim),
        }
      : null,
    widest
      ? {
          header: "RETX",
          width: 5,
          align: "right",
          cell: (q) => seg(formatCount(q.retransmits), q.retransmits > 0 ? Tone.Bad : Tone.Dim),
        }
      : null,
    widest ? { header: "INFL", width: 5, align: "right", cell: (q) => seg(formatCount(q.inflight)) } : null,
    { header: "FCT", width: 6, align: "right", cell: (q) => fctOf(q, state) },
    { header: "STATE", width: 9, cell: (q) => stateOf(q, theme) },
  ];
  return cols.filter((c): c is Column<QpRow> => c !== null);
}

export function qpHeader(state: DashboardState, width: number, theme: Theme): Segment[] {
  return tableHeader(qpColumns(state, width, theme));
}

export function qpLine(q: QpRow, state: DashboardState, width: number, theme: Theme): Segment[] {
  return tableRow(qpColumns(state, width, theme), q);
}
