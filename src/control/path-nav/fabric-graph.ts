// The fabric as path navigation's controller sees it: rebuilt from the switches' LLDP tables alone (never
// from the topology file). A switch-to-switch link exists when both ends hear each other (chassis ID and
// port ID agree both ways) and both ports are up; each end's next-hop address is the management address
// its neighbour announced. Hosts do not run LLDP: a host is found on the switch port whose subnet holds
// its address and that hears no switch. Routes follow what the fabric's routing converges to
// (equal-cost shortest paths, the lab's routing.ts): for each destination host, every switch's next hops
// are the neighbours one hop closer to the host's switch.

import type { LldpTable } from "../../switch/control/lldp.js";

export interface Adjacency {
  readonly port: number;
  readonly peer: string;
  /** The peer's port number (its interface name ethN). */
  readonly peerPort: number;
  /** The peer port's address: the next hop through this adjacency. */
  readonly via: number;
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

  constructor(tables: ReadonlyMap<string, LldpTable>) {
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
      this.adjacency.set(name, list);
    }
  }

  get switches(): readonly string[] {
    return [...this.tables.keys()];
  }

  /** A signature of the links, to notice when the fabric changed. */
  signature(): string {
    const parts: string[] = [];
    for (const [sw, list] of this.adjacency) for (const a of list) parts.push(`${sw}:${a.port}>${a.peer}`);
    return parts.join(",");
  }

  /** Number of switch-to-switch links (each counted once). */
  get linkCount(): number {
    let n = 0;
    for (const list of this.adjacency.values()) n += list.length;
    return n / 2;
  }

  /** The switch port a host address is attached to: up, its subnet holds `ip`, no switch heard on it. */
  attachment(ip: number): HostAttachment | null {
    for (const [sw, t] of this.tables) {
      const heard = new Set(this.adjacency.get(sw)!.map((a) => a.port));
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
