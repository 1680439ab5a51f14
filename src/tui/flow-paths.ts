// The path of every QP's packets through the fabric, from what the switches counted (their `flowPaths`
// tables: packets and bytes per egress port of each RoCEv2 flow), and each flow's class from the switches'
// elephant tables. Pure: two snapshots in, one entry per QP out.
//
// A QP's packets are the flow (its host's address, the peer's address, the peer's QP number): a sender's
// data, a receiver's ACKs/NAKs/CNPs. The walk starts at the switch the host hangs off, follows every egress
// port the flow used to the switch behind it, and ends at a host. At each switch the split between ports is
// its bytes over the last interval while the flow moves, over the flow's whole life once it stopped; a
// route's share is the product of the splits along it (each switch knows only its own split, so for a
// flow split at two tiers this is the marginal, not the joint, distribution).

import type { LabSnapshot, LinkView, TopologyView } from "../lab/lab.js";
import type { FlowPathEntry } from "../switch/stats-types.js";
import { counterDelta } from "./derive.js";
import { splitEndpoint } from "./format.js";

/** A switch a route crosses and the port it leaves by. */
export interface RouteHop {
  readonly node: string;
  readonly port: number;
}

/** One way a flow's packets went. */
export interface FlowRoute {
  readonly hops: readonly RouteHop[];
  /** Fraction of the flow's bytes that took it (0..1). */
  readonly share: number;
  /** Where it ends: the host reached, "loop" (it came back to a switch it crossed), "?" (untracked). */
  readonly end: string;
}

export const FlowClass = { Elephant: "elephant", Mice: "mice" } as const;
export type FlowClass = (typeof FlowClass)[keyof typeof FlowClass];

export interface QpFlow {
  /** Routes, biggest share first; empty before the first switch counted a packet of the flow. */
  readonly routes: readonly FlowRoute[];
  /** What the shares are over: the last interval, or the flow's life (it stopped); null without routes. */
  readonly basis: "interval" | "total" | null;
  /** Bytes of the flow the first switch queued (frames as they left it), and their rate over the interval. */
  readonly bytes: number;
  readonly bps: number | null;
  /** The flow crossed the underlay VXLAN-encapsulated somewhere. */
  readonly vxlan: boolean;
  /** Elephant when a switch on its way identified it so, mice when switches track it as a mouse. */
  readonly klass: FlowClass | null;
}

/** Hops a route may have before the walk gives up (a routing loop). */
const MAX_HOPS = 16;

type FlowIndex = Map<string, Map<string, FlowPathEntry>>;

function flowKey(src: number, dst: number, qp: number): string {
  return `${src >>> 0}/${dst >>> 0}/${qp}`;
}

function indexFlows(s: LabSnapshot | null): FlowIndex {
  const out: FlowIndex = new Map();
  for (const [node, st] of Object.entries(s?.stats ?? {})) {
    if (st.kind !== "switch" || !st.detail?.flowPaths) continue;
    out.set(node, new Map(st.detail.flowPaths.map((e) => [flowKey(e.srcIp, e.dstIp, e.destQp), e])));
  }
  return out;
}

/** Per switch, the RoCEv2 flows its elephant table holds: true for an elephant. */
function indexClasses(s: LabSnapshot): Map<string, Map<string, boolean>> {
  const out = new Map<string, Map<string, boolean>>();
  for (const [node, st] of Object.entries(s.stats)) {
    if (st.kind !== "switch" || !st.detail?.elephants) continue;
    const m = new Map<string, boolean>();
    for (const f of st.detail.elephants) {
      if (f.destQp < 0) continue;
      const k = flowKey(f.srcIp, f.dstIp, f.destQp);
      m.set(k, (m.get(k) ?? false) || f.elephant);
    }
    out.set(node, m);
  }
  return out;
}

function peers(links: readonly LinkView[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of links) {
    out.set(l.a, l.b);
    out.set(l.b, l.a);
  }
  return out;
}

/** Bytes per port of `e` at one switch: over the interval when the flow moved in it, else in total. */
function portBytes(e: FlowPathEntry, before: FlowPathEntry | undefined): { bytes: number[]; moved: boolean } {
  const delta = e.ports.map((p) =>
    counterDelta(p.bytes, before?.ports.find((b) => b.port === p.port)?.bytes),
  );
  // A flow new since the last snapshot has no earlier entry: everything it has is this interval's.
  if (before === undefined) return { bytes: e.ports.map((p) => p.bytes), moved: true };
  if (delta.some((d) => d > 0)) return { bytes: delta, moved: true };
  return { bytes: e.ports.map((p) => p.bytes), moved: false };
}

/** Every QP's routes and class ("host/qpn" → QpFlow), from the snapshot now and the one before. */
export function qpFlows(
  cur: LabSnapshot,
  prev: LabSnapshot | null,
  topology: TopologyView,
): Map<string, QpFlow> {
  const now = indexFlows(cur);
  const before = indexFlows(prev);
  const classes = indexClasses(cur);
  const peerOf = peers(cur.links);
  const kind = new Map(topology.nodes.map((n) => [n.name, n.kind]));
  const ipOf = new Map(topology.nodes.map((n) => [n.name, n.ip]));
  const out = new Map<string, QpFlow>();
  for (const [host, st] of Object.entries(cur.stats)) {
    if (st.kind !== "nic") continue;
    const ip = ipOf.get(host);
    const first = peerOf.get(`${host}:eth1`);
    for (const q of st.detail.qps) {
      const key = flowKey(ip ?? 0, q.remoteIp, q.remoteQpn);
      const routes: FlowRoute[] = [];
      let basis: QpFlow["basis"] = null;
      let vxlan = false;
      let bytes = 0;
      let bps: number | null = null;
      const crossed = new Set<string>();
      const walk = (sw: string, share: number, hops: RouteHop[]): void => {
        const e = now.get(sw)?.get(key);
        if (e === undefined) {
          if (hops.length > 0) routes.push({ hops, share, end: "?" });
          return;
        }
        crossed.add(sw);
        vxlan ||= e.vxlan;
        const split = portBytes(e, before.get(sw)?.get(key));
        const sum = split.bytes.reduce((a, b) => a + b, 0);
        if (basis === null) {
          basis = split.moved ? "interval" : "total";
          bytes = e.ports.reduce((a, p) => a + p.bytes, 0);
          const dt = prev ? cur.now - prev.now : 0;
          if (dt > 0) bps = split.moved ? (sum * 8e9) / dt : 0;
        }
        e.ports.forEach((p, i) => {
          const b = split.bytes[i]!;
          if (b <= 0 || sum <= 0) return;
          const path = [...hops, { node: sw, port: p.port }];
          const next = peerOf.get(`${sw}:eth${p.port}`);
          const node = next === undefined ? undefined : splitEndpoint(next).node;
          const s = (share * b) / sum;
          if (node === undefined) routes.push({ hops: path, share: s, end: "?" });
          else if (kind.get(node) !== "switch") routes.push({ hops: path, share: s, end: node });
          else if (path.some((h) => h.node === node) || path.length >= MAX_HOPS)
            routes.push({ hops: path, share: s, end: "loop" });
          else walk(node, s, path);
        });
      };
      if (ip !== undefined && first !== undefined) {
        const sw = splitEndpoint(first).node;
        if (kind.get(sw) === "switch") walk(sw, 1, []);
      }
      routes.sort((a, b) => b.share - a.share);
      let klass: FlowClass | null = null;
      for (const sw of crossed) {
        const c = classes.get(sw)?.get(key);
        if (c === true) klass = FlowClass.Elephant;
        else if (c === false && klass === null) klass = FlowClass.Mice;
      }
      out.set(`${host}/${q.qpn}`, { routes, basis, bytes, bps, vxlan, klass });
    }
  }
  return out;
}
