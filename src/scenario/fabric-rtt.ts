// The fabric's base round-trip time as HPCC's ns-3 derives it (alibaba-edu/High-Precision-Congestion-
// Control, simulation/scratch/third.cc: CalculateRoute's breadth-first search from every host, then
// "get BDP and delay"): for each pair of hosts, along a shortest path (hops; only switches forward),
//   rtt = 2 · Σ link propagation delays + Σ over the links of one full packet's serialisation
// (packet_payload_size · 8 / bw, the data packet one way; the ACK's serialisation is not counted), and the
// fabric's base RTT is the largest over all pairs (ns-3's maxRtt, handed to every QP with global_t = 1, its
// default). HPCC takes it as T when `hpcc.baseRtt` is not set (docs/int.md).

import { NodeKind, type Topology } from "./topology.js";

const memo = new WeakMap<Topology, number>();

interface Hop {
  readonly next: string;
  readonly delayNs: number;
  readonly rateBps: number;
}

function adjacency(topo: Topology): Map<string, Hop[]> {
  const adj = new Map<string, Hop[]>();
  const add = (from: string, hop: Hop) => {
    const list = adj.get(from);
    if (list === undefined) adj.set(from, [hop]);
    else list.push(hop);
  };
  for (const l of topo.links) {
    add(l.a.node, { next: l.b.node, delayNs: l.delayNs, rateBps: l.rateBps });
    add(l.b.node, { next: l.a.node, delayNs: l.delayNs, rateBps: l.rateBps });
  }
  return adj;
}

/** The largest base RTT between two hosts of `topo`, ns (0 with fewer than two connected hosts). */
export function fabricBaseRtt(topo: Topology): number {
  const known = memo.get(topo);
  if (known !== undefined) return known;
  const adj = adjacency(topo);
  const isSwitch = new Set(topo.nodes.filter((n) => n.kind === NodeKind.Switch).map((n) => n.name));
  let max = 0;
  for (const host of topo.nodes) {
    if (host.kind === NodeKind.Switch) continue;
    // ns-3's BFS: the first time a node is reached fixes its delay and serialisation sums.
    const delay = new Map<string, number>([[host.name, 0]]);
    const tx = new Map<string, number>([[host.name, 0]]);
    const queue = [host.name];
    for (let i = 0; i < queue.length; i++) {
      const now = queue[i]!;
      for (const h of adj.get(now) ?? []) {
        if (delay.has(h.next)) continue;
        delay.set(h.next, delay.get(now)! + h.delayNs);
        tx.set(h.next, tx.get(now)! + Math.floor((topo.mtu * 8e9) / h.rateBps));
        if (isSwitch.has(h.next)) queue.push(h.next);
      }
    }
    for (const [node, d] of delay) {
      if (node === host.name || isSwitch.has(node)) continue;
      max = Math.max(max, 2 * d + tx.get(node)!);
    }
  }
  memo.set(topo, max);
  return max;
}
