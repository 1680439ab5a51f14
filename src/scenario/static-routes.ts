// Static routes written on switch nodes of a topology (`nodes.<switch>.routes`): each replaces the route the
// lab computed to the same prefix, or adds a new one (longest prefix still wins in the switch's FIB). A
// static route whose link is down is withdrawn, as a router withdraws a static route on a dead interface,
// and the computed route (if any) applies again. Nothing stops a static route from looping: that is how a
// stale route makes a PFC deadlock (docs/pfc-watchdog.md). Routes added to a running lab (`rocelab inject
// route`, a scenario's `inject: { route }`) are kept in a RuntimeRoutes and go over the topology's.

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

/** Static routes added to a running lab, per switch; the newest for a destination replaces older ones. */
export class RuntimeRoutes {
  private readonly byNode = new Map<string, StaticRouteSettings[]>();

  constructor(private readonly topo: Topology) {}

  /** Adds (or replaces) `node`'s static route to `route.to`; throws, saying why, if the topology refuses it. */
  add(node: string, route: StaticRouteSettings): void {
    const why = runtimeRouteProblem(this.topo, node, route.to, route.via);
    if (why !== null) throw new Error(why);
    const list = (this.byNode.get(node) ?? []).filter((r) => r.to !== route.to);
    list.push({ to: route.to, via: route.via });
    this.byNode.set(node, list);
  }

  /** Withdraws `node`'s runtime route to `to`; false when there was none. */
  withdraw(node: string, to: string): boolean {
    const list = this.byNode.get(node) ?? [];
    const next = list.filter((r) => r.to !== to);
    this.byNode.set(node, next);
    return next.length !== list.length;
  }

  of(node: string): readonly StaticRouteSettings[] {
    return this.byNode.get(node) ?? [];
  }
}

/** What a route check needs of a topology: a Topology, or a running lab's TopologyView. */
export interface RoutedTopology {
  readonly name: string;
  readonly nodes: readonly {
    readonly name: string;
    readonly kind: string;
    readonly ports: readonly number[];
  }[];
}

/**
 * What is wrong with a static route to `to` via `via` for `node`, added at run time, or null; `via` null
 * (a withdrawal) checks the node and the destination only.
 */
export function runtimeRouteProblem(
  topo: RoutedTopology,
  node: string,
  to: string,
  via: string | null,
): string | null {
  const n = topo.nodes.find((x) => x.name === node);
  if (n === undefined) return `no node ${node} in topology ${topo.name}`;
  if (n.kind !== NodeKind.Switch) return `${node} is a host: static routes go on switches`;
  if (via !== null && (!/^eth[1-9]\d*$/.test(via) || !n.ports.includes(Number(via.slice(3)))))
    return `${node} has no link on ${via} (it has ${n.ports.map((p) => `eth${p}`).join(", ")})`;
  if (to.includes("/")) {
    const [ip, len] = to.split("/") as [string, string];
    const l = Number(len);
    if (parseIp(ip) === null || !Number.isInteger(l) || l < 0 || l > 32)
      return `"${to}" is not a prefix like 10.1.0.5/32`;
  } else if (topo.nodes.find((x) => x.name === to)?.kind !== NodeKind.Host) {
    return `"${to}" is not a host of topology ${topo.name} (or give a prefix like 10.1.0.5/32)`;
  }
  return null;
}

/**
 * Puts every switch's static routes over its computed routes (in place), skipping those on down links:
 * the topology's, then those added at run time (`extra`), which win for the same prefix.
 */
export function applyStaticRoutes(
  topo: Topology,
  plan: AddressPlan,
  routes: Map<string, Route[]>,
  down: ReadonlySet<number>,
  extra?: RuntimeRoutes,
): void {
  for (const node of topo.nodes) {
    if (node.kind !== NodeKind.Switch) continue;
    const all = extra ? [...node.staticRoutes, ...extra.of(node.name)] : node.staticRoutes;
    if (all.length === 0) continue;
    const list = routes.get(node.name) ?? [];
    for (const r of all) {
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
