import { type CounterDef, readCounter } from "../device/counters.js";
import { DROP_COUNTER } from "../device/drops.js";
import { PfcCounter } from "../device/l2/pfc-counters.js";
import { NicCounter } from "../nic/counters.js";
import { DropReason as NicDrop } from "../nic/nic-ids.js";
import type { NicStats } from "../nic/stats-types.js";
import { PRIORITIES } from "../wire/pfc.js";
import { formatBytes, formatCount, formatEmulated, padLeft, padRight } from "./format.js";
import { portSummary } from "./port-summary.js";
import { qpHeader, qpLine } from "./qp-lines.js";
import { type Segment, seg } from "./segments.js";
import type { DashboardState } from "./store.js";
import { marker, type Theme, Tone } from "./theme.js";

/** A per-priority counter of a port, summed over the priorities. */
export function sumPrio(k: Readonly<Record<string, number>>, def: CounterDef): number {
  let s = 0;
  for (let p = 0; p < PRIORITIES; p++) s += readCounter(k, def, { priority: p });
  return s;
}

export function nicLines(
  state: DashboardState,
  stats: NicStats,
  width: number,
  height: number,
  theme: Theme,
): Segment[][] {
  const lines: Segment[][] = [];
  const detail = stats.detail;
  const p = stats.ports[0];
  if (p) {
    const m = state.ports.get(`${stats.name}:eth${p.port}`);
    lines.push(portSummary(state, stats.name, p, m, theme, width >= 100));
    const rx = detail?.rxBuffer;
    if (rx)
      lines.push([
        seg(`rx buffer ${formatBytes(rx.bytes)} (peak ${formatBytes(rx.peakBytes)})  `),
        rx.xoff ? seg(marker(theme, "XOFF"), Tone.Warn) : seg("not pausing the switch", Tone.Dim),
      ]);
  }
  lines.push([]);
  const k = stats.counters;
  const row = (def: CounterDef, tone: Tone | undefined): [string, number, Tone | undefined] => [
    def.name,
    readCounter(k, def),
    tone,
  ];
  const perPort = (def: CounterDef) => (p === undefined ? 0 : sumPrio(p.counters, def));
  const counters: [string, number, Tone | undefined][] = [
    row(NicCounter.npCnpSent, Tone.Warn),
    row(NicCounter.npEcnMarkedRocePackets, Tone.Warn),
    row(NicCounter.rpCnpHandled, Tone.Warn),
    row(NicCounter.rpCnpIgnored, undefined),
    ["tx pause frames (XOFF)", perPort(PfcCounter.txPause), Tone.Pause],
    ["rx pause frames", perPort(PfcCounter.rxPause), Tone.Pause],
    ["paused for (emulated)", perPort(PfcCounter.rxPauseDuration), Tone.Pause],
    row(NicCounter.retransmittedPackets, Tone.Bad),
    row(NicCounter.localAckTimeoutErr, Tone.Bad),
    row(NicCounter.outOfSequence, Tone.Bad),
    row(NicCounter.flowsCompleted, Tone.Good),
    row(NicCounter.reqCqeError, Tone.Bad),
    row(NicCounter.reqCqeFlushError, Tone.Bad),
    [`drop_${NicDrop.Icrc}`, readCounter(k, DROP_COUNTER, { reason: NicDrop.Icrc }), Tone.Bad],
  ];
  const colWidth = 38;
  const perLine = Math.max(1, Math.floor(width / colWidth));
  for (let i = 0; i < counters.length; i += perLine) {
    const row: Segment[] = [];
    for (const [name, v, tone] of counters.slice(i, i + perLine)) {
      const text = name.startsWith("paused for") ? formatEmulated(v) : formatCount(v);
      row.push(
        seg(` ${padRight(name, colWidth - 12)}`),
        seg(padLeft(text, 10), v > 0 ? tone : Tone.Dim),
        seg(" "),
      );
    }
    lines.push(row);
  }
  lines.push([]);
  const qps = state.qps.filter((q) => q.host === stats.name);
  if (qps.length === 0) {
    lines.push([seg("  no QPs yet: start an incast with i", Tone.Dim)]);
    return lines;
  }
  lines.push(qpHeader(state, width, theme));
  const room = Math.max(1, height - lines.length);
  for (const q of qps.slice(0, room)) lines.push(qpLine(q, state, width, theme));
  return lines;
}
