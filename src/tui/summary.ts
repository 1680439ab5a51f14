// One line about the whole fabric, for runs without a terminal (stdout piped to a log): what the dashboard
// would highlight, every few seconds.

import { formatCount, formatEmulated, formatPercent } from "./format.js";
import type { DashboardState } from "./store.js";

/** Emulated time, the busiest link direction, how many directions PFC holds, and the fabric counters. */
export function summaryLine(state: DashboardState): string {
  const s = state.snapshot;
  if (!s || !state.totals) return `${state.lab}: waiting for counters`;
  let busiest = { util: 0, where: "-" };
  let paused = 0;
  for (const l of state.links) {
    for (const [m, from, to] of [
      [l.ab, l.a, l.b],
      [l.ba, l.b, l.a],
    ] as const) {
      if (!m) continue;
      if ((m.util ?? 0) > busiest.util)
        busiest = { util: m.util ?? 0, where: `${from}->${to.split(":")[0]}` };
      if (m.pausedNow || m.pausedFrac > 0) paused++;
    }
  }
  const t = state.totals;
  const down = state.links.filter((l) => !l.up).length;
  const stopped = state.nodes.filter((n) => !n.running).map((n) => n.name);
  return [
    `t=${formatEmulated(s.now)}`,
    `busiest ${formatPercent(busiest.util)} ${busiest.where}`,
    `paused directions ${paused}`,
    `XOFF ${formatCount(t.xoffSent)}`,
    `ECN ${formatCount(t.ecnMarked)}`,
    `CNP ${formatCount(t.cnpSent)}`,
    `drops ${formatCount(t.droppedLossless)}/${formatCount(t.droppedLossy)}`,
    ...(down > 0 ? [`links down ${down}`] : []),
    ...(stopped.length > 0 ? [`not running: ${stopped.join(",")}`] : []),
  ].join("  ");
}
