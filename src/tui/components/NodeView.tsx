// One node up close. A switch: its buffer, a ports × priorities matrix (queue depth, PFC paused / XOFF) with
// the key counters of each port, and the queues of the selected port. A host: its NIC's port, counters
// (CNPs, ECN, pauses, retransmissions) and QPs.
import type { MutableRefObject, ReactElement } from "react";
import type { PortStats, QueueStats } from "../../device/contract.js";
import type { NicStats } from "../../nic/stats-types.js";
import type { SwitchStats } from "../../switch/stats-types.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { type PortMetrics, peerOf } from "../derive.js";
import { describeEvent } from "../event-text.js";
import { featureLine } from "../feature-lines.js";
import {
  bar,
  formatBytes,
  formatCount,
  formatEmulated,
  formatPercent,
  level,
  padLeft,
  padRight,
  sparkline,
} from "../format.js";
import { useTheme } from "../hooks/use-theme.js";
import { qpHeader, qpLine } from "../qp-lines.js";
import { type Segment, seg, type ViewLayout, type ViewLines } from "../segments.js";
import type { DashboardState } from "../store.js";
import { switchPanels } from "../switch-panels.js";
import { type Column, tableHeader, tableRow } from "../table.js";
import { marker, type Theme, Tone } from "../theme.js";
import { Lines } from "./Lines.js";

const WIDE = 110;

function c(counters: Readonly<Record<string, number>>, name: string): number {
  return counters[name] ?? 0;
}

function header(state: DashboardState, index: number, width: number, theme: Theme): Segment[] {
  const node = state.topology.nodes[index]!;
  const device = state.snapshot?.devices.find((d) => d.node === node.name);
  const status = device?.status ?? "unknown";
  const out: Segment[] = [
    seg("◀ ", Tone.Dim),
    seg(node.name, Tone.Heading),
    seg(" ▶ ", Tone.Dim),
    seg(`${node.kind === "host" ? "host (RDMA NIC)" : "switch"}  `),
    status === "running"
      ? seg(status, Tone.Good)
      : seg(status === "unknown" ? status : marker(theme, status.toUpperCase()), Tone.Bad),
  ];
  if (device && device.restarts > 0) out.push(seg(`  restarts ${device.restarts}`, Tone.Warn));
  if (device?.health) out.push(seg(`  loop lag p99 ${device.health.lagP99Ms.toFixed(1)}ms`, Tone.Dim));
  out.push(seg(`  ${index + 1}/${state.topology.nodes.length}`, Tone.Dim));
  if (width >= 90) out.push(seg("   ←/→ n/p node  ↑/↓ port", Tone.Dim));
  return out;
}

/** The queues worth a row: anything queued, sent, marked, dropped, paused or pausing. */
function activeQueues(p: PortStats): QueueStats[] {
  return (p.queues ?? []).filter(
    (q) =>
      q.depthBytes > 0 ||
      q.paused ||
      c(q.counters, "tx_packets") > 0 ||
      c(q.counters, "dropped") > 0 ||
      c(p.counters, `pg${q.queue}_xoff`) > 0,
  );
}

function switchLines(
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
  const used = c(k, "buffer_used_bytes");
  const pool = c(k, "buffer_shared_pool_bytes");
  const narrow = width < 100;
  const lossless = c(k, "dropped_lossless");
  const buf: Segment[] = [
    seg("buffer "),
    seg(bar(pool > 0 ? used / pool : 0, wide ? 24 : 12), used > 0 ? Tone.Accent : Tone.Dim),
    seg(
      ` ${formatBytes(used)} of ${formatBytes(pool)}  peak ${formatBytes(c(k, "buffer_shared_peak_bytes"))}`,
    ),
    seg(`  headroom ${formatBytes(c(k, "buffer_headroom_used_bytes"))}`),
    seg(narrow ? "  drops " : "  drops lossless "),
    seg(formatCount(lossless), lossless > 0 ? Tone.Bad : undefined),
    seg(narrow ? `/${formatCount(c(k, "dropped_lossy"))}` : ` lossy ${formatCount(c(k, "dropped_lossy"))}`),
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
    ...stats.ports.flatMap((p) => (p.queues ?? []).map((q) => c(q.counters, "watermark_bytes"))),
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
      const xoff = c(p.counters, `pg${prio}_xoff`) > 0;
      const depth = q?.depthBytes ?? 0;
      const used = q !== undefined && (depth > 0 || c(q.counters, "tx_packets") > 0);
      const glyph = depth > 0 ? level(depth / scale) : used ? "▁" : "·";
      // The PFC watchdog's state of this priority: S stormed (recovering), L latched off.
      const wd = c(p.counters, `pfcwd_prio${prio}_state`);
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
  lines.push([], ...switchPanels(stats, state.snapshot, width, theme));

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
        const peak = c(q.counters, "watermark_bytes");
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
      cell: (q) => seg(formatBytes(c(q.counters, "watermark_bytes"))),
    },
    {
      header: "ECN",
      width: 6,
      align: "right",
      cell: (q) =>
        seg(
          formatCount(c(q.counters, "ecn_marked")),
          c(q.counters, "ecn_marked") > 0 ? Tone.Warn : undefined,
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
              const kmin = c(q.counters, "ecn_kmin_bytes");
              const kmax = c(q.counters, "ecn_kmax_bytes");
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
        const n = c(q.counters, "dropped") + c(q.counters, "wred_dropped");
        return seg(formatCount(n), n > 0 ? Tone.Bad : undefined);
      },
    },
    {
      header: "TX PKTS",
      width: 7,
      align: "right",
      cell: (q) => seg(formatCount(c(q.counters, "tx_packets"))),
    },
    {
      header: "STATE",
      width: 15,
      cell: (q) => {
        const xoff = c(p.counters, `pg${q.queue}_xoff`) > 0;
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

function portSummary(
  state: DashboardState,
  node: string,
  p: PortStats,
  m: PortMetrics | undefined,
  theme: Theme,
  wide: boolean,
): Segment[] {
  const peer = state.snapshot ? peerOf(state.snapshot.links, node, p.port)?.peer : undefined;
  const k = p.counters;
  const out: Segment[] = [
    seg(`${p.name} → ${peer ?? "?"}  `, Tone.Heading),
    p.up ? seg("up", Tone.Good) : seg(marker(theme, "DOWN"), Tone.Bad),
    seg(
      `  util ${formatPercent(m?.util ?? null)}  tx ${formatBytes(c(k, "tx_bytes"))}  rx ${formatBytes(c(k, "rx_bytes"))}`,
    ),
  ];
  if (k.headroom_bytes !== undefined && wide)
    out.push(seg(`  headroom ${formatBytes(c(k, "headroom_bytes"))}`));
  out.push(
    seg("  paused "),
    seg(formatPercent(m?.pausedFrac ?? 0), (m?.pausedFrac ?? 0) > 0 ? Tone.Pause : undefined),
    seg("  holding "),
    seg(formatPercent(m?.xoffFrac ?? 0), (m?.xoffFrac ?? 0) > 0 ? Tone.Warn : undefined),
  );
  return out;
}

function sumPrio(k: Readonly<Record<string, number>>, name: (p: number) => string): number {
  let s = 0;
  for (let p = 0; p < PRIORITIES; p++) s += c(k, name(p));
  return s;
}

function nicLines(
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
  const pk = p?.counters ?? {};
  const counters: [string, number, Tone | undefined][] = [
    ["np_cnp_sent", c(k, "np_cnp_sent"), Tone.Warn],
    ["np_ecn_marked_roce_packets", c(k, "np_ecn_marked_roce_packets"), Tone.Warn],
    ["rp_cnp_handled", c(k, "rp_cnp_handled"), Tone.Warn],
    ["rp_cnp_ignored", c(k, "rp_cnp_ignored"), undefined],
    ["tx pause frames (XOFF)", sumPrio(pk, (i) => `tx_prio${i}_pause`), Tone.Pause],
    ["rx pause frames", sumPrio(pk, (i) => `rx_prio${i}_pause`), Tone.Pause],
    ["paused for (emulated)", sumPrio(pk, (i) => `rx_prio${i}_pause_duration`), Tone.Pause],
    ["retransmitted_packets", c(k, "retransmitted_packets"), Tone.Bad],
    ["local_ack_timeout_err", c(k, "local_ack_timeout_err"), Tone.Bad],
    ["out_of_sequence", c(k, "out_of_sequence"), Tone.Bad],
    ["flows_completed", c(k, "flows_completed"), Tone.Good],
    ["drop_icrc", c(k, "drop_icrc"), Tone.Bad],
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

function recentEvents(state: DashboardState, node: string, rows: number): Segment[][] {
  const mine = state.events.filter((l) => l.event.device === node).slice(-(rows - 1));
  const lines: Segment[][] = [[seg(`recent events of ${node} (4: the full log)`, Tone.Heading)]];
  if (mine.length === 0) lines.push([seg(" none yet", Tone.Dim)]);
  for (const { event } of mine) {
    lines.push([
      seg(` ${padLeft(formatEmulated(event.t), 12)}  `, Tone.Dim),
      seg(`${padRight(event.kind, 10)} `),
      seg(describeEvent(event)),
    ]);
  }
  return lines;
}

/** The node view's lines; `rows` is the node's port count (↑/↓ choose among them). */
export function nodeLines(
  state: DashboardState,
  nodeIndex: number,
  portIndex: number,
  width: number,
  height: number,
  theme: Theme,
): ViewLines {
  const nodes = state.topology.nodes;
  if (nodes.length === 0) return { lines: [[seg("no nodes", Tone.Dim)]], rows: 0, page: 0 };
  const index = Math.min(nodeIndex, nodes.length - 1);
  const node = nodes[index]!;
  const lines: Segment[][] = [header(state, index, width, theme)];
  const stats = state.snapshot?.stats[node.name];
  if (!stats) {
    const status = state.snapshot?.devices.find((d) => d.node === node.name)?.status;
    lines.push(
      [],
      [
        seg(
          state.snapshot
            ? `no counters: the device is ${status ?? "not running"}${status === "killed" || status === "crashed" ? " (r restarts it)" : ""}`
            : "waiting for the first counters from the lab...",
          Tone.Dim,
        ),
      ],
    );
    return { lines, rows: 0, page: 0 };
  }
  const body =
    stats.kind === "switch"
      ? switchLines(state, stats, portIndex, width, height - 1, theme)
      : nicLines(state, stats, width, height - 1, theme);
  lines.push(...body);
  // A tall screen has rows left: this node's latest events.
  const spare = height - lines.length;
  if (spare >= 5) lines.push([], ...recentEvents(state, node.name, spare - 1));
  return { lines: lines.slice(0, height), rows: stats.ports.length, page: stats.ports.length };
}

export interface NodeViewProps {
  readonly state: DashboardState;
  readonly node: number;
  readonly port: number;
  readonly width: number;
  readonly height: number;
  /** Receives the node's port count as drawn (for the port keys). */
  readonly layout?: MutableRefObject<ViewLayout>;
}

/** The node view. */
export function NodeView({ state, node, port, width, height, layout }: NodeViewProps): ReactElement {
  const theme = useTheme();
  const view = nodeLines(state, node, port, width, height, theme);
  if (layout) layout.current = { rows: view.rows, page: view.page };
  return <Lines lines={view.lines} width={width} height={height} />;
}
