// The node view of a switch: its buffer, every port's queues and priorities, the PFC watchdog and the
// feature panels.

import type { PortStats, QueueStats } from "../device/contract.js";
import { readCounter } from "../device/counters.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import { PfcWatchdogCounter } from "../switch/features/pfc-watchdog.js";
import type { SwitchStats } from "../switch/stats-types.js";
import { PRIORITIES } from "../wire/pfc.js";
import { peerOf } from "./derive.js";
import { featureLine } from "./feature-lines.js";
import {
  bar,
  formatBytes,
  formatCount,
  formatPercent,
  level,
  padLeft,
  padRight,
  sparkline,
} from "./format.js";
import { type Segment, seg } from "./segments.js";
import type { DashboardState } from "./store.js";
import { switchPanels } from "./switch-panels.js";
import { type Column, tableHeader, tableRow } from "./table.js";
import { marker, type Theme, Tone } from "./theme.js";

/** From this width on, the wide layout: sparklines and the XOFF column. */
const WIDE = 110;

import { portSummary } from "./port-summary.js";

/** The queues worth a row: anything queued, sent, marked, dropped, paused or pausing. */
export function activeQueues(p: PortStats): QueueStats[] {
  return (p.queues ?? []).filter(
    (q) =>
      q.depthBytes > 0 ||
      q.paused ||
      readCounter(q.counters, SwitchCounter.queueTxPackets) > 0 ||
      readCounter(q.counters, SwitchCounter.queueDropped) > 0 ||
      readCounter(p.counters, SwitchCounter.pgXoff, { priority: q.queue }) > 0,
  );
}

export function switchLines(
  state: DashboardState,
  stats: SwitchStats,
  portIndex: number,
  width: number,
  height: number,
  theme: Theme,
): Segment[][] {
  const wide = width >= WIDE;
  const lines: Segment[][] = [];
  const k = stats.counters;
  const used = readCounter(k, SwitchCounter.bufferUsed);
  const pool = readCounter(k, SwitchCounter.bufferSharedPool);
  const narrow = width < 100;
  const lossless = readCounter(k, SwitchCounter.droppedLossless);
  const buf: Segment[] = [
    seg("buffer "),
    seg(bar(pool > 0 ? used / pool : 0, wide ? 24 : 12), used > 0 ? Tone.Accent : Tone.Dim),
    seg(
      ` ${formatBytes(used)} of ${formatBytes(pool)}  peak ${formatBytes(readCounter(k, SwitchCounter.bufferSharedPeak))}`,
    ),
    seg(`  headroom ${formatBytes(readCounter(k, SwitchCounter.bufferHeadroomUsed))}`),
    seg(narrow ? "  drops " : "  drops lossless "),
    seg(formatCount(lossless), lossless > 0 ? Tone.Bad : undefined),
    seg(
      narrow
        ? `/${formatCount(readCounter(k, SwitchCounter.droppedLossy))}`
        : ` lossy ${formatCount(readCounter(k, SwitchCounter.droppedLossy))}`,
    ),
  ];
  if (wide) buf.push(seg(`  ${sparkline(state.history.buffer.get(stats.name) ?? [], 16)}`, Tone.Accent));
  lines.push(buf);
  const features = featureLine(k);
  if (features !== null) lines.push(features);
  lines.push([]);

  // Ports × priorities: one glyph per queue for its depth (scaled to the deepest queue this switch has
  // seen), then P when the queue is paused by the peer, X when this port holds the peer paused, S / L when
  // the PFC watchdog holds the priority stormed / latched off.
  const scale = Math.max(
    1,
    ...stats.ports.flatMap((p) =>
      (p.queues ?? []).map((q) => readCounter(q.counters, SwitchCounter.watermark)),
    ),
  );
  const prioHeader = Array.from({ length: PRIORITIES }, (_, i) => padRight(String(i), 3)).join("");
  lines.push([
    seg(
      ` ${padRight("PORT", 5)} ${padRight("PEER", 12)} ${padLeft("UTIL", 4)}  ${prioHeader}${padLeft("XOFF", 5)} ${padLeft("PAUSE", 5)} ${padLeft("ECN", 6)} ${padLeft("DROP", 5)}${wide ? `  ${padRight("UTIL HISTORY", 12)} ${padLeft("PAUSED", 6)} ${padLeft("HOLDING", 7)}` : ""}`,
      Tone.Heading,
    ),
  ]);
  const sel = Math.min(portIndex, stats.ports.length - 1);
  stats.ports.forEach((p, i) => {
    const m = state.ports.get(`${stats.name}:eth${p.port}`);
    const peer = state.snapshot ? peerOf(state.snapshot.links, stats.name, p.port)?.peer : undefined;
    const selected = i === sel;
    const row: Segment[] = [
      seg(selected ? ">" : " ", Tone.Accent),
      seg(padRight(p.name, 5), selected ? Tone.Selected : undefined),
      seg(` ${padRight(peer ?? "-", 12)} `),
    ];
    if (!p.up) row.push(seg(padRight(marker(theme, "DOWN"), 6), Tone.Bad));
    else row.push(seg(padLeft(formatPercent(m?.util ?? null), 4)), seg("  "));
    for (let prio = 0; prio < PRIORITIES; prio++) {
      const q = p.queues?.[prio];
      const paused = q?.paused ?? false;
      const xoff = readCounter(p.counters, SwitchCounter.pgXoff, { priority: prio }) > 0;
      const depth = q?.depthBytes ?? 0;
      const used =
        q !== undefined && (depth > 0 || readCounter(q.counters, SwitchCounter.queueTxPackets) > 0);
      const glyph = depth > 0 ? level(depth / scale) : used ? "▁" : "·";
      // The PFC watchdog's state of this priority: S stormed (recovering), L latched off.
      const wd = readCounter(p.counters, PfcWatchdogCounter.state, { priority: prio });
      const flag = wd === 2 ? "L" : wd === 1 ? "S" : paused ? "P" : xoff ? "X" : " ";
      const tone =
        wd > 0
          ? Tone.Bad
          : paused
            ? Tone.Pause
            : xoff
              ? Tone.Warn
              : depth > 0
                ? Tone.Accent
                : used
                  ? undefined
                  : Tone.Dim;
      row.push(seg(`${glyph}${flag} `, tone));
    }
    const ecnTone = (m?.ecnDelta ?? 0) > 0 ? Tone.Warn : undefined;
    row.push(
      seg(padLeft(formatCount(m?.txPause ?? 0), 5), (m?.txPauseDelta ?? 0) > 0 ? Tone.Pause : undefined),
      seg(
        ` ${padLeft(formatCount(m?.rxPause ?? 0), 5)}`,
        (m?.rxPauseDelta ?? 0) > 0 ? Tone.Pause : undefined,
      ),
      seg(` ${padLeft(formatCount(m?.ecnMarked ?? 0), 6)}`, ecnTone),
      seg(` ${padLeft(formatCount(m?.drops ?? 0), 5)}`, (m?.dropDelta ?? 0) > 0 ? Tone.Bad : undefined),
    );
    if (wide) {
      row.push(
        seg(`  ${sparkline(state.history.util.get(`${stats.name}:eth${p.port}`) ?? [], 12, 1)}`, Tone.Accent),
        seg(
          ` ${padLeft(formatPercent(m?.pausedFrac ?? 0), 6)}`,
          (m?.pausedFrac ?? 0) > 0 ? Tone.Pause : Tone.Dim,
        ),
        seg(` ${padLeft(formatPercent(m?.xoffFrac ?? 0), 7)}`, (m?.xoffFrac ?? 0) > 0 ? Tone.Warn : Tone.Dim),
      );
    }
    lines.push(row);
  });
  const wd = {
    watchdog: state.topology.nodes.find((n) => n.name === stats.name)?.watchdog,
    stalls: state.stalls,
    now: state.snapshot?.now ?? 0,
    dilation: state.snapshot?.dilation ?? 1,
  };
  lines.push([], ...switchPanels(stats, state.snapshot, width, theme, wd));

  const p = stats.ports[sel];
  if (!p) return lines;
  const m = state.ports.get(`${stats.name}:eth${p.port}`);
  lines.push(portSummary(state, stats.name, p, m, theme, width >= 100));
  const queues = activeQueues(p);
  if (queues.length === 0) {
    lines.push([seg("  no traffic through this port yet", Tone.Dim)]);
    return lines;
  }
  const barWidth = wide ? 30 : 16;
  const cols: Column<QueueStats>[] = [
    { header: "Q", width: 2, cell: (q) => seg(String(q.queue)) },
    {
      header: "DEPTH / PEAK",
      width: barWidth,
      cell: (q) => {
        const peak = readCounter(q.counters, SwitchCounter.watermark);
        return seg(
          bar(peak > 0 ? q.depthBytes / peak : 0, barWidth),
          q.depthBytes > 0 ? Tone.Accent : Tone.Dim,
        );
      },
    },
    { header: "NOW", width: 7, align: "right", cell: (q) => seg(formatBytes(q.depthBytes)) },
    {
      header: "PEAK",
      width: 7,
      align: "right",
      cell: (q) => seg(formatBytes(readCounter(q.counters, SwitchCounter.watermark))),
    },
    {
      header: "ECN",
      width: 6,
      align: "right",
      cell: (q) =>
        seg(
          formatCount(readCounter(q.counters, SwitchCounter.ecnMarked)),
          readCounter(q.counters, SwitchCounter.ecnMarked) > 0 ? Tone.Warn : undefined,
        ),
    },
    // The WRED/ECN thresholds in force (AI ECN moves them), on wide terminals.
    ...(wide
      ? [
          {
            header: "KMIN/KMAX",
            width: 13,
            align: "right" as const,
            cell: (q: QueueStats) => {
              const kmin = readCounter(q.counters, SwitchCounter.ecnKmin);
              const kmax = readCounter(q.counters, SwitchCounter.ecnKmax);
              return kmin < 0 || kmax <= 0
                ? seg("-", Tone.Dim)
                : seg(`${formatBytes(kmin)}/${formatBytes(kmax)}`);
            },
          },
        ]
      : []),
    {
      header: "DROP",
      width: 5,
      align: "right",
      cell: (q) => {
        const n =
          readCounter(q.counters, SwitchCounter.queueDropped) +
          readCounter(q.counters, SwitchCounter.wredDropped);
        return seg(formatCount(n), n > 0 ? Tone.Bad : undefined);
      },
    },
    {
      header: "TX PKTS",
      width: 7,
      align: "right",
      cell: (q) => seg(formatCount(readCounter(q.counters, SwitchCounter.queueTxPackets))),
    },
    {
      header: "STATE",
      width: 15,
      cell: (q) => {
        const xoff = readCounter(p.counters, SwitchCounter.pgXoff, { priority: q.queue }) > 0;
        const words = [
          ...(q.paused ? [marker(theme, "PAUSED")] : []),
          ...(xoff ? [marker(theme, "XOFF")] : []),
        ];
        return seg(words.join(" "), q.paused ? Tone.Pause : Tone.Warn);
      },
    },
  ];
  lines.push(tableHeader(cols));
  const room = Math.max(1, height - lines.length);
  for (const q of queues.slice(0, room)) lines.push(tableRow(cols, q));
  return lines;
}
