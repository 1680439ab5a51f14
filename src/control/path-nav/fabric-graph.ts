// The fabric as path navigation's controller sees it: rebuilt from the switches' LLDP tables alone (never
// from the topology file). A switch-to-switch link exists when both ends hear each other (chassis ID and
// port ID agree both ways) and both ports are up; each end's next-hop address is the management address
// its neighbour announced. Hosts do not run LLDP: a host is found on the switch port whose subnet holds
// its address and that hears no switch. Routes follow what the fabric's routing converges to
// (equal-cost shortest paths, the lab's routing.ts): for each destination host, every switch's next hops
// are the neighbours one hop closer to the host's switch.
//
// A link aggregation group is one hop, as routing sees it (docs/link-aggregation.md): LLDP runs per member
// link, so the members' adjacencies are folded into one, named by the group's lowest member as routing
// names it, when the switch's own aggregation table (its stats, as a controller reads IEEE8023-LAG-MIB)
// lists them; the switch picks the member. Members that are up but not collecting and distributing carry nothing and are
// left out; a group with no active member is no adjacency at all.

import type { LldpTable } from "../../switch/control/lldp.js";

export interface Adjacency {
  /** The port (a group's: its lowest member, which the switch resolves to an active member). */
  readonly port: number;
  readonly peer: string;
  /** The peer's port number (its interface name ethN). */
  readonly peerPort: number;
  /** The peer port's address: the next hop through this adjacency. */
  readonly via: number;
  /** A link aggregation group: its name and its active members' ports (this switch's side). */
  readonly lag?: { readonly name: string; readonly members: readonly number[] };
}

/** A switch's aggregation group as its stats show it (features/lag-state.ts LagState). */
export interface LagView {
  readonly name: string;
  readonly members: readonly { readonly port: number; readonly active: boolean }[];
}

/**
 * Folds the adjacencies of each group's active members into one, named as routing names the group: its
 * lowest member port (down or not: the switch resolves it to an active member) with the peer's address on
 * that link — the one LLDP heard there, or, when that member is down, the other address of the port's /31
 * (RFC 3021: the peer of a /31 point-to-point link). Inactive members' adjacencies are dropped.
 */
function foldGroups(
  list: readonly Adjacency[],
  lags: readonly LagView[],
  ports: LldpTable["ports"],
): Adjacency[] {
  if (lags.length === 0) return [...list];
  const groupOf = new Map<number, LagView>();
  for (const g of lags) for (const m of g.members) groupOf.set(m.port, g);
  const out: Adjacency[] = [];
  const seen = new Set<string>();
  for (const a of list) {
    const g = groupOf.get(a.port);
    if (g === undefined) {
      out.push(a);
      continue;
    }
    if (seen.has(g.name)) continue;
    const active = new Set(g.members.filter((m) => m.active).map((m) => m.port));
    const members = list.filter((b) => active.has(b.port) && b.peer === a.peer);
    if (members.length === 0) continue;
    seen.add(g.name);
    const lowest = Math.min(...g.members.map((m) => m.port));
    const heard = list.find((b) => b.port === lowest);
    const own = ports.find((p) => p.port === lowest);
    const via = heard?.via ?? (own !== undefined && own.prefixLength === 31 ? (own.ip ^ 1) >>> 0 : a.via);
    out.push({
      ...(heard ?? members[0]!),
      port: lowest,
      via,
      lag: { name: g.name, members: members.map((b) => b.port) },
    });
  }
  return out;
}

export interface HostAttachment {
  readonly sw: string;
  readonly port: number;
}

/** A hop of a path: the switch and the port the packet leaves it by. */
export interface Hop {
  readonly sw: string;
  readonly port: number;
  /** The port it came in on. */
  readonly inPort: number;
}

export interface NextHopMember {
  readonly port: number;
  /** 0 on the destination's own switch (the host is on the port's subnet). */
  readonly via: number;
}

function portNumber(name: string): number {
  const m = /^eth(\d+)$/.exec(name);
  return m ? Number(m[1]) : -1;
}

export class FabricGraph {
  readonly adjacency = new Map<string, Adjacency[]>();
  private readonly tables: ReadonlyMap<string, LldpTable>;
  private readonly distCache = new Map<string, Map<string, number>>();
  /** Ports on which each switch hears a switch (every member of a group included). */
  private readonly heard = new Map<string, Set<number>>();

  /** `lags`: each switch's aggregation groups (absent: none), so a group is one hop. */
  constructor(
    tables: ReadonlyMap<string, LldpTable>,
    lags: ReadonlyMap<string, readonly LagView[]> = new Map(),
  ) {
    this.tables = tables;
    const byChassis = new Map<string, string>();
    for (const [name, t] of tables) byChassis.set(t.chassisId, name);
    const up = (sw: string, port: number): boolean =>
      tables.get(sw)?.ports.find((p) => p.port === port)?.up ?? false;
    for (const [name, t] of tables) {
      const list: Adjacency[] = [];
      for (const n of t.neighbours) {
        const peer = byChassis.get(n.chassisId);
        const peerPort = portNumber(n.portId);
        if (peer === undefined || peerPort < 0 || n.managementIp === null) continue;
        // Both ways: the peer hears us on that port.
        const back = tables.get(peer)!.neighbours.find((b) => b.port === peerPort);
        if (back?.chassisId !== t.chassisId || portNumber(back.portId) !== n.port) continue;
        if (!up(name, n.port) || !up(peer, peerPort)) continue;
        list.push({ port: n.port, peer, peerPort, via: n.managementIp });
      }
      list.sort((a, b) => a.port - b.port);
      this.heard.set(name, new Set(list.map((a) => a.port)));
      this.adjacency.set(name, foldGroups(list, lags.get(name) ?? [], t.ports));
    }
  }

  get switches(): readonly string[] {
    return [...this.tables.keys()];
  }

  /** A signature of the links, to notice when the fabric changed. */
  signature(): string {
    const parts: string[] = [];
    for (const [sw, list] of this.adjacency)
      for (const a of list) parts.push(`${sw}:${a.port}>${a.peer}${a.lag ? `(${a.lag.name})` : ""}`);
    return parts.join(",");
  }

  /** Number of switch-to-switch links (each counted once; a group is one). */
  get linkCount(): number {
    let n = 0;
    for (const list of this.adjacency.values()) n += list.length;
    return n / 2;
  }

  /** The switch port a host address is attached to: up, its subnet holds `ip`, no switch heard on it. */
  attachment(ip: number): HostAttachment | null {
    for (const [sw, t] of this.tables) {
      const heard = this.heard.get(sw)!;
      for (const p of t.ports) {
        if (!p.up || heard.has(p.port)) continue;
        const mask = p.prefixLength === 0 ? 0 : (0xffff_ffff << (32 - p.prefixLength)) >>> 0;
        if ((ip & mask) >>> 0 === (p.ip & mask) >>> 0 && ip !== p.ip) return { sw, port: p.port };
      }
    }
    return null;
  }

  /** Hop distance of every switch to `target` (BFS over up links). */
  distances(target: string): Map<string, number> {
    let d = this.distCache.get(target);
    if (d !== undefined) return d;
    d = new Map([[target, 0]]);
    const queue = [target];
    for (let i = 0; i < queue.length; i++) {
      const sw = queue[i]!;
      for (const a of this.adjacency.get(sw) ?? []) {
        if (!d.has(a.peer)) {
          d.set(a.peer, d.get(sw)! + 1);
          queue.push(a.peer);
        }
      }
    }
    this.distCache.set(target, d);
    return d;
  }

  /** The ECMP next hops of switch `sw` towards a host attached at `dst` (empty when unreachable). */
  nextHops(sw: string, dst: HostAttachment): NextHopMember[] {
    if (sw === dst.sw) return [{ port: dst.port, via: 0 }];
    const dist = this.distances(dst.sw);
    const d = dist.get(sw);
    if (d === undefined) return [];
    return (this.adjacency.get(sw) ?? [])
      .filter((a) => dist.get(a.peer) === d - 1)
      .map((a) => ({ port: a.port, via: a.via }));
  }

  /** Every equal-cost shortest path from host port `src` to host port `dst` (at most `limit`). */
  paths(src: HostAttachment, dst: HostAttachment, limit = 256): Hop[][] {
    const out: Hop[][] = [];
    const walk = (sw: string, inPort: number, acc: Hop[]): void => {
      if (out.length >= limit) return;
      if (sw === dst.sw) {
        out.push([...acc, { sw, port: dst.port, inPort }]);
        return;
      }
      for (const nh of this.nextHops(sw, dst)) {
        const a = this.adjacency.get(sw)!.find((x) => x.port === nh.port)!;
        walk(a.peer, a.peerPort, [...acc, { sw, port: nh.port, inPort }]);
      }
    };
    if (this.distances(dst.sw).has(src.sw)) walk(src.sw, src.port, []);
    return out;
  }
}
