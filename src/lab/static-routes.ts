// Static routes written on switch nodes of a topology (`nodes.<switch>.routes`): each replaces the route the
// lab computed to the same prefix, or adds a new one (longest prefix still wins in the switch's FIB). A
// static route whose link is down is withdrawn, as a router withdraws a static route on a dead interface,
// and the computed route (if any) applies again. Nothing stops a static route from looping: that is how a
// stale route makes a PFC deadlock (docs/pfc-watchdog.md).

import type { Route } from "../switch/config.js";
import { parseIp } from "../wire/bytes.js";
import { type AddressPlan, hostAddress, portKey } from "./address-plan.js";
import type { StaticRouteSettings } from "./schema.js";
import { linkAt, NodeKind, type Topology } from "./topology.js";

/** The prefix a static route's `to` names: a host's /32, or the prefix as written. */
export function staticPrefix(
  plan: AddressPlan,
  r: StaticRouteSettings,
): { prefix: number; prefixLength: number } {
  if (!r.to.includes("/")) return { prefix: hostAddress(plan, r.to).ip >>> 0, prefixLength: 32 };
  const [ip, len] = r.to.split("/") as [string, string];
  const prefixLength = Number(len);
  const mask = prefixLength === 0 ? 0 : (0xffff_ffff << (32 - prefixLength)) >>> 0;
  return { prefix: ((parseIp(ip) ?? 0) & mask) >>> 0, prefixLength };
}

/** Puts every switch's static routes over its computed routes (in place), skipping those on down links. */
export function applyStaticRoutes(
  topo: Topology,
  plan: AddressPlan,
  routes: Map<string, Route[]>,
  down: ReadonlySet<number>,
): void {
  for (const node of topo.nodes) {
    if (node.kind !== NodeKind.Switch || node.staticRoutes.length === 0) continue;
    const list = routes.get(node.name) ?? [];
    for (const r of node.staticRoutes) {
      const port = Number(r.via.slice(3));
      const at = linkAt(topo, node.name, port);
      if (at === null || down.has(at.link.id)) continue;
      const peer = plan.ports.get(portKey(node.name, port))!;
      const toHost = topo.nodes.find((n) => n.name === at.peer.node)?.kind === NodeKind.Host;
      const { prefix, prefixLength } = staticPrefix(plan, r);
      const route: Route = { prefix, prefixLength, nextHops: [{ port, via: toHost ? 0 : peer.peerIp }] };
      const i = list.findIndex((x) => x.prefix === prefix && x.prefixLength === prefixLength);
      if (i >= 0) list[i] = route;
      else list.push(route);
    }
    list.sort((x, y) => y.prefixLength - x.prefixLength || x.prefix - y.prefix);
    routes.set(node.name, list);
  }
}
