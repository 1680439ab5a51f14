// A flow's ideal completion time: how long its message would take alone on an idle path, the yardstick of
// the FCT slowdown (FCT / ideal FCT) that congestion-control papers plot by flow size. Built as HPCC's ns-3
// builds its "standalone FCT" (alibaba-edu/High-Precision-Congestion-Control, simulation/scratch/third.cc:
// CalculateRoute and qp_finish, https://github.com/alibaba-edu/High-Precision-Congestion-Control):
//
//   ideal = base RTT + (message bytes + every packet's headers) × 8 / bottleneck rate
//   base RTT = 2 × the path's propagation delay + one full packet's payload serialised on every link
//
// where the path is a shortest one between the two hosts (breadth first, switches only in the middle, the
// first one found, as third.cc's CalculateRoute), its bottleneck rate is the slowest link on it and its
// propagation delay the sum of its links' delays. The base RTT has the ACK's way back: a flow's FCT ends
// when the requester sees the last ACK. The headers are those of our frames without INT (ns-3 likewise
// leaves its INT header out): Ethernet, IPv4, UDP, BTH (with the RETH on a WRITE's first packet, an AETH on
// a READ response's first and last), pad and ICRC, plus FCS, preamble and inter-frame gap — the wire time of
// each frame (ethernet.ts wireBytes).

import type { FlowReport } from "../lab/flow-report.js";
import { NodeKind, type Topology } from "../scenario/topology.js";
import { ETHERNET_HEADER_LENGTH, wireBytes } from "../wire/ethernet.js";
import { ICRC_LENGTH } from "../wire/icrc.js";
import { IPV4_HEADER_LENGTH } from "../wire/ipv4.js";
import { padCountFor } from "../wire/roce-frame.js";
import { AETH_LENGTH, BTH_LENGTH, RETH_LENGTH } from "../wire/roce-opcodes.js";

const UDP_HEADER_LENGTH = 8;
/** Ethernet, IPv4, UDP, BTH and ICRC around every RoCEv2 payload. */
const PACKET_HEADERS =
  ETHERNET_HEADER_LENGTH + IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + BTH_LENGTH + ICRC_LENGTH;

/** What the ideal FCT needs of the path between two hosts. */
export interface IdealPath {
  /** Links on the path. */
  readonly hops: number;
  /** Sum of the links' propagation delays, ns. */
  readonly delayNs: number;
  /** The slowest link's rate, bit/s. */
  readonly bottleneckBps: number;
  /** One full packet's payload (the path MTU) serialised on every link, ns: store and forward per hop. */
  readonly txDelayNs: number;
}

/** The path between every pair of hosts of a topology, `mtu` payload bytes per packet. */
export function idealPaths(
  topology: Topology,
  mtu = topology.mtu,
): (src: string, dst: string) => IdealPath | null {
  const kind = new Map(topology.nodes.map((n) => [n.name, n.kind]));
  const adj = new Map<string, { to: string; rateBps: number; delayNs: number }[]>();
  const add = (a: string, b: string, rateBps: number, delayNs: number): void => {
    const list = adj.get(a) ?? [];
    list.push({ to: b, rateBps, delayNs });
    adj.set(a, list);
  };
  for (const l of topology.links) {
    add(l.a.node, l.b.node, l.rateBps, l.delayNs);
    add(l.b.node, l.a.node, l.rateBps, l.delayNs);
  }
  const cache = new Map<string, Map<string, IdealPath>>();
  const from = (src: string): Map<string, IdealPath> => {
    const known = cache.get(src);
    if (known !== undefined) return known;
    const paths = new Map<string, IdealPath>([
      [src, { hops: 0, delayNs: 0, bottleneckBps: Number.POSITIVE_INFINITY, txDelayNs: 0 }],
    ]);
    const queue = [src];
    for (let i = 0; i < queue.length; i++) {
      const here = paths.get(queue[i]!)!;
      for (const e of adj.get(queue[i]!) ?? []) {
        if (paths.has(e.to)) continue;
        paths.set(e.to, {
          hops: here.hops + 1,
          delayNs: here.delayNs + e.delayNs,
          bottleneckBps: Math.min(here.bottleneckBps, e.rateBps),
          txDelayNs: here.txDelayNs + (mtu * 8e9) / e.rateBps,
        });
        // Only switches forward: a path never runs through another host.
        if (kind.get(e.to) === NodeKind.Switch) queue.push(e.to);
      }
    }
    cache.set(src, paths);
    return paths;
  };
  return (src, dst) => (src === dst ? null : (from(src).get(dst) ?? null));
}

/** Wire bytes of a message of `bytes` payload in packets of at most `mtu`, headers included, no INT. */
export function messageWireBytes(bytes: number, op: string, mtu: number): number {
  const frame = (payload: number, first: boolean, last: boolean): number => {
    const extra =
      (op === "write" && first ? RETH_LENGTH : 0) + (op === "read" && (first || last) ? AETH_LENGTH : 0);
    return wireBytes(PACKET_HEADERS + extra + payload + padCountFor(payload));
  };
  const packets = Math.max(1, Math.ceil(bytes / mtu));
  if (packets === 1) return frame(bytes, true, true);
  const lastPayload = bytes - (packets - 1) * mtu;
  return frame(mtu, true, false) + (packets - 2) * frame(mtu, false, false) + frame(lastPayload, false, true);
}

/** The ideal FCT of `bytes` over `path`, ns (HPCC's standalone FCT; see the top of this file). */
export function idealFctNs(path: IdealPath, bytes: number, op: string, mtu: number): number {
  const baseRttNs = 2 * path.delayNs + path.txDelayNs;
  return baseRttNs + (messageWireBytes(bytes, op, mtu) * 8e9) / path.bottleneckBps;
}

/** Every flow's ideal FCT over `topology` (null for a flow between hosts with no path, or to itself). */
export function flowIdealFctNs(topology: Topology): (f: FlowReport) => number | null {
  const path = idealPaths(topology);
  return (f) => {
    const p = path(f.src, f.dst);
    return p === null ? null : idealFctNs(p, f.bytes, f.op, topology.mtu);
  };
}
