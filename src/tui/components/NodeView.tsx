// One node up close. A switch: its buffer, a ports × priorities matrix (queue depth, PFC paused / XOFF) with
// the key counters of each port, and the queues of the selected port. A host: its NIC's port, counters
// (CNPs, ECN, pauses, retransmissions) and QPs.

import type { MutableRefObject, ReactElement } from "react";
import { describeLogged } from "../event-text.js";
import { formatEmulated, padLeft, padRight } from "../format.js";
import { useTheme } from "../hooks/use-theme.js";
import { nicLines } from "../nic-lines.js";
import { pickFit, type Segment, seg, type ViewLayout, type ViewLines } from "../segments.js";
import type { DashboardState } from "../store.js";
import { switchLines } from "../switch-lines.js";
import { marker, type Theme, Tone } from "../theme.js";
import { Lines } from "./Lines.js";

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
  const restarts = device && device.restarts > 0 ? device.restarts : 0;
  const lag = device?.health ? `${device.health.lagP99Ms.toFixed(1)}ms` : null;
  const where = seg(`  ${index + 1}/${state.topology.nodes.length}`, Tone.Dim);
  const keys = seg("   ←/→ n/p node  ↑/↓ port", Tone.Dim);
  const long = [
    ...(restarts > 0 ? [seg(`  restarts ${restarts}`, Tone.Warn)] : []),
    ...(lag !== null ? [seg(`  loop lag p99 ${lag}`, Tone.Dim)] : []),
    where,
  ];
  const short = [
    ...(restarts > 0 ? [seg(`  restarts ${restarts}`, Tone.Warn)] : []),
    ...(lag !== null ? [seg(`  lag ${lag}`, Tone.Dim)] : []),
    where,
  ];
  return pickFit(
    [
      [...out, ...long, keys],
      [...out, ...long],
      [...out, ...short],
    ],
    width,
  );
}

function recentEvents(state: DashboardState, node: string, rows: number): Segment[][] {
  const mine = state.events.filter((l) => l.event.device === node).slice(-(rows - 1));
  const lines: Segment[][] = [[seg(`recent events of ${node} (4: the full log)`, Tone.Heading)]];
  if (mine.length === 0) lines.push([seg(" none yet", Tone.Dim)]);
  for (const { event } of mine) {
    lines.push([
      seg(` ${padLeft(formatEmulated(event.t), 12)}  `, Tone.Dim),
      seg(`${padRight(event.kind, 10)} `),
      seg(describeLogged(event, state.snapshot)),
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
