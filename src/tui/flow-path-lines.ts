// The flows view's paths mode (`v`): per QP its class (elephant / mice), and every route its packets took
// through the fabric — switch and egress port, hop by hop, to the host at the other end — with the share
// of its bytes on each, so a DLB or sprayed flow shows its split over the uplinks (flow-paths.ts). A hop
// over a link aggregation group names the group and the member the switch chose (leaf1:po1/eth2).

import type { QpRow } from "./derive.js";
import type { FlowClass, FlowRoute, QpFlow } from "./flow-paths.js";
import { formatBps, formatBytes, padLeft, padRight } from "./format.js";
import { pickFit, type Segment, seg, type ViewLines } from "./segments.js";
import type { DashboardState } from "./store.js";
import { type Theme, Tone } from "./theme.js";

/** Routes listed per QP at most; the rest are summed on one line. */
const ROUTES_SHOWN = 6;
const WIDE = 110;

/** "node:ethN" → the link aggregation group that port is a member of (the topology view's `lags`). */
type GroupOf = ReadonlyMap<string, string>;

function groupsOf(state: DashboardState): GroupOf {
  const out = new Map<string, string>();
  const { lags, links } = state.topology;
  for (const g of lags ?? [])
    for (const id of g.linkIds) {
      const l = links.find((x) => x.id === id);
      if (l !== undefined) for (const e of [l.a, l.b]) out.set(e, g.name);
    }
  return out;
}

/** A hop leaving by a group member is shown as the group and the member: "leaf1:po1/eth2". */
function routeText(r: FlowRoute, ports: boolean, groups: GroupOf): string {
  const hops = r.hops.map((h) => {
    if (!ports) return h.node;
    const g = groups.get(`${h.node}:eth${h.port}`);
    return g === undefined ? `${h.node}:eth${h.port}` : `${h.node}:${g}/eth${h.port}`;
  });
  const end = r.end === "loop" ? "↺ loop" : r.end === "?" ? "? (not tracked)" : r.end;
  return [...hops, end].join(" › ");
}

function classCell(k: FlowClass | null): Segment {
  if (k === "elephant") return seg(padRight("elephant", 8), Tone.Warn);
  if (k === "mice") return seg(padRight("mice", 8));
  return seg(padRight("-", 8), Tone.Dim);
}

interface Row {
  readonly qp: QpRow;
  readonly flow: QpFlow | undefined;
  /** Route index on this line, -1 for a QP without routes, -2 for the "more routes" line. */
  readonly route: number;
}

function rowsOf(state: DashboardState): Row[] {
  const rows: Row[] = [];
  for (const qp of state.qps) {
    const flow = state.flows.get(qp.key);
    const n = flow?.routes.length ?? 0;
    if (n === 0) rows.push({ qp, flow, route: -1 });
    for (let i = 0; i < Math.min(n, ROUTES_SHOWN); i++) rows.push({ qp, flow, route: i });
    if (n > ROUTES_SHOWN) rows.push({ qp, flow, route: -2 });
  }
  return rows;
}

function line(row: Row, width: number, groups: GroupOf): Segment[] {
  const wide = width >= WIDE;
  const { qp, flow, route } = row;
  const firstLine = route === 0 || route === -1;
  const lead: Segment[] = firstLine
    ? [
        seg(` ${padRight(qp.host, 5)} ${padRight(String(qp.qpn), 4)} `),
        seg(padRight(`${qp.role === "rx" ? "←" : "→"}${qp.peer}`, 6)),
        seg(" "),
        classCell(flow?.klass ?? null),
      ]
    : [seg(" ".repeat(1 + 5 + 1 + 4 + 1 + 6 + 1 + 8))];
  if (wide)
    lead.push(
      seg(` ${padLeft(firstLine && flow?.basis ? formatBps(flow.bps) : "", 7)}`),
      seg(` ${padLeft(firstLine && flow?.basis ? formatBytes(flow.bytes) : "", 8)}`),
    );
  if (route === -1) {
    const why = qp.role === "idle" ? "nothing sent yet" : "no switch counted its packets (flowPaths off?)";
    return [...lead, seg(`       ${why}`, Tone.Dim)];
  }
  if (route === -2) {
    const rest = flow!.routes.slice(ROUTES_SHOWN);
    const share = rest.reduce((a, r) => a + r.share, 0);
    return [
      ...lead,
      seg(` ${padLeft(`${Math.round(share * 100)}%`, 5)} `),
      seg(`+${rest.length} more routes`, Tone.Dim),
    ];
  }
  const r = flow!.routes[route]!;
  const pct = `${Math.round(r.share * 100)}%`;
  const used = lead.reduce((a, s) => a + s.text.length, 0) + 7;
  // Ports when they fit, else the switches alone.
  const withPorts = routeText(r, true, groups);
  const text = withPorts.length <= width - used ? withPorts : routeText(r, false, groups);
  const out: Segment[] = [
    ...lead,
    seg(
      ` ${padLeft(pct, 5)} `,
      flow!.basis === "total" ? Tone.Dim : r.share < 0.995 ? Tone.Accent : undefined,
    ),
    seg(text, r.end === "loop" ? Tone.Bad : r.end === "?" ? Tone.Dim : undefined),
  ];
  if (route === 0 && flow!.vxlan) out.push(seg("  (VXLAN)", Tone.Dim));
  return out;
}

/** The paths mode's lines; `top` is the first row (route line) shown. */
export function flowPathLines(
  state: DashboardState,
  top: number,
  width: number,
  height: number,
  _theme: Theme,
): ViewLines {
  const rows = rowsOf(state);
  const page = Math.max(1, height - 3);
  const first = Math.max(0, Math.min(top, rows.length - page));
  const shown =
    rows.length > page ? `   (${first + 1}-${Math.min(rows.length, first + page)} shown, ↑↓)` : "";
  const split = [...state.flows.values()].filter((f) => f.routes.length > 1).length;
  const count = seg(`${state.qps.length} QPs, ${split} split   `);
  const head = pickFit(
    [
      [
        count,
        seg("what each QP sends, as the switches counted it", Tone.Dim),
        seg(shown, Tone.Dim),
        seg("   v: status", Tone.Dim),
      ],
      [
        count,
        seg("routes as the switches counted them", Tone.Dim),
        seg(shown, Tone.Dim),
        seg("   v: status", Tone.Dim),
      ],
      [count, seg(shown, Tone.Dim), seg("   v: status", Tone.Dim)],
    ],
    width,
  );
  const wide = width >= WIDE;
  const header = ` ${padRight("HOST", 5)} ${padRight("QP", 4)} ${padRight("PEER", 6)} ${padRight("CLASS", 8)}${wide ? ` ${padLeft("b/s", 7)} ${padLeft("BYTES", 8)}` : ""} ${padLeft("SHARE", 5)} PATH (switch:out-port › … › host)`;
  const lines: Segment[][] = [head, [], [seg(header, Tone.Heading)]];
  if (rows.length === 0)
    lines.push([seg(" no QPs yet: press i to start an incast, u for background UDP", Tone.Dim)]);
  const groups = groupsOf(state);
  for (const r of rows.slice(first, first + page)) lines.push(line(r, width, groups));
  return { lines: lines.slice(0, height), rows: rows.length, page };
}
