// Routes computed from the topology, as a routing protocol on a real fabric would converge to: every
// switch gets, for each host address and each link subnet, all its equal-cost shortest-path next hops.
// Recomputed by the lab when a link goes down or comes back. A link aggregation group counts as one link. Static routes written in the topology
// (static-routes.ts) go over the computed ones.

import type { NextHop, Route } from "../switch/config.js";
import { type AddressPlan, portKey } from "./address-plan.js";
import { applyStaticRoutes, type RuntimeRoutes } from "./static-routes.js";
import { NodeKind, type Topology } from "./topology.js";

interface Adjacency {
  readonly port: number;
  readonly peer: string;
  readonly peerIp: number;
}

/**
 * Routes per switch. `down` holds the ids of links that are down; they carry nothing.
 */
export function computeRoutes(
  topo: Topology,
  plan: AddressPlan,
  down: ReadonlySet<number> = new Set(),
  runtime?: RuntimeRoutes,
): Map<string, Route[]> {
  const kind = new Map(topo.nodes.map((n) => [n.name, n.kind]));
  const isSwitch = (n: string): boolean => kind.get(n) === NodeKind.Switch;
  const adj = new Map<string, Adjacency[]>();
  for (const n of topo.nodes) if (n.kind === NodeKind.Switch) adj.set(n.name, []);
  // Destinations: prefix -> switches directly attached (with the port and whether it is a host route).
  const attached = new Map<string, { prefix: number; length: number; at: { sw: string; port: number }[] }>();
  const attach = (prefix: number, length: number, sw: string, port: number): void => {
    const key = `${prefix}/${length}`;
    const entry = attached.get(key) ?? { prefix, length, at: [] };
    entry.at.push({ sw, port });
    attached.set(key, entry);
  };
  const lagLinks = new Set(topo.lags.flatMap((l) => l.linkIds));
  for (const link of topo.links) {
    const a = plan.ports.get(portKey(link.a.node, link.a.port))!;
    const b = plan.ports.get(portKey(link.b.node, link.b.port))!;
    const isDown = down.has(link.id);
    const inLag = lagLinks.has(link.id);
    const subnet = Math.min(a.ip, b.ip);
    for (const [me, other] of [
      [a, b],
      [b, a],
    ] as const) {
      if (!isSwitch(me.node) || isDown) continue;
      attach(subnet, 31, me.node, me.port);
      if (isSwitch(other.node)) {
        if (!inLag) adj.get(me.node)!.push({ port: me.port, peer: other.node, peerIp: other.ip });
      } else attach(other.ip, 32, me.node, me.port);
    }
  }
  // A link aggregation group is one adjacency while any member link is up: its lowest member port and
  // that link's peer address stand for the group (the switch resolves the member, lb/lag-group.ts).
  for (const lag of topo.lags) {
    if (lag.linkIds.every((id) => down.has(id))) continue;
    for (const [me, other] of [lag.ends, [lag.ends[1], lag.ends[0]]] as const) {
      const i = me.ports.indexOf(Math.min(...me.ports));
      const peerIp = plan.ports.get(portKey(other.node, other.ports[i]!))!.ip;
      adj.get(me.node)!.push({ port: me.ports[i]!, peer: other.node, peerIp });
    }
  }
  const routes = new Map<string, Route[]>();
  for (const sw of adj.keys()) routes.set(sw, []);
  // A switch's thousands of routes share a handful of next-hop sets (a fat tree's agg: its uplinks, or one
  // downlink): one list per set and switch, not one per route (a k = 16 fabric built 10 million objects).
  const sets = new Map<string, Map<string, NextHop[]>>();
  for (const sw of adj.keys()) sets.set(sw, new Map());
  const picked: number[] = [];
  for (const dest of attached.values()) {
    // Multi-source BFS from the attached switches gives every switch its distance to the destination.
    const dist = new Map<string, number>();
    const queue: string[] = [];
    for (const { sw } of dest.at) {
      if (!dist.has(sw)) {
        dist.set(sw, 0);
        queue.push(sw);
      }
    }
    for (let i = 0; i < queue.length; i++) {
      const sw = queue[i]!;
      for (const e of adj.get(sw)!) {
        if (!dist.has(e.peer)) {
          dist.set(e.peer, dist.get(sw)! + 1);
          queue.push(e.peer);
        }
      }
    }
    for (const sw of adj.keys()) {
      const d = dist.get(sw);
      if (d === undefined) continue; // unreachable from here
      // One pass picks the next hops: the ports attached here (d = 0) or the indices, in the switch's
      // adjacency list, of the neighbours one hop nearer. They key the shared list and, when the key is new,
      // make it.
      picked.length = 0;
      const list = adj.get(sw)!;
      if (d === 0) {
        for (const x of dest.at) if (x.sw === sw) picked.push(x.port);
      } else {
        for (let i = 0; i < list.length; i++) if (dist.get(list[i]!.peer) === d - 1) picked.push(i);
      }
      const key = `${d === 0 ? "at" : "adj"}:${picked.join(",")}`;
      const mine = sets.get(sw)!;
      let nextHops = mine.get(key);
      if (nextHops === undefined) {
        nextHops = picked.map((i) =>
          d === 0 ? { port: i, via: 0 } : { port: list[i]!.port, via: list[i]!.peerIp },
        );
        mine.set(key, nextHops);
      }
      routes.get(sw)!.push({ prefix: dest.prefix >>> 0, prefixLength: dest.length, nextHops });
    }
  }
  for (const list of routes.values())
    list.sort((x, y) => y.prefixLength - x.prefixLength || x.prefix - y.prefix);
  applyStaticRoutes(topo, plan, routes, down, runtime);
  return routes;
}
