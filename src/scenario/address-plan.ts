// The address plan, computed and never typed by hand: every link gets a /31 (switch-to-switch links from
// the fabric pool, links with a host from the host pool, in link order), the host takes the odd address
// and the switch the even one; MACs derive from node and port numbers (locally administered,
// 02:00:00:NN:PP:00 — NN the node's position in the file, PP the port).

import { type Ipv4Address, ipToString, type MacAddress, parseIp } from "../wire/bytes.js";
import { NodeKind, type Topology } from "./topology.js";

export interface PortAddress {
  readonly node: string;
  readonly port: number;
  readonly mac: MacAddress;
  readonly ip: Ipv4Address;
  readonly prefixLength: number;
  /** The address at the other end of the link. */
  readonly peerIp: Ipv4Address;
  readonly peerMac: MacAddress;
}

export interface AddressPlan {
  /** Keyed by `node:port`. */
  readonly ports: ReadonlyMap<string, PortAddress>;
}

export function portKey(node: string, port: number): string {
  return `${node}:${port}`;
}

export function macFor(nodeIndex: number, port: number): MacAddress {
  return 0x02_00_00_00_00_00 + nodeIndex * 0x1_00_00 + port * 0x1_00;
}

function parsePool(text: string): { base: number; size: number } {
  const [addr, len] = text.split("/") as [string, string];
  const base = parseIp(addr);
  const prefixLength = Number(len);
  if (base === null || !(prefixLength >= 0 && prefixLength <= 30))
    throw new Error(`bad address pool ${text}`);
  const size = 2 ** (32 - prefixLength);
  return { base: base - (base % size), size };
}

export function planAddresses(topo: Topology): AddressPlan {
  const kind = new Map(topo.nodes.map((n) => [n.name, n.kind]));
  const index = new Map(topo.nodes.map((n) => [n.name, n.index]));
  const fabric = parsePool(topo.fabricPool);
  const hostPool = parsePool(topo.hostPool);
  let nextFabric = 0;
  let nextHost = 0;
  const ports = new Map<string, PortAddress>();
  for (const link of topo.links) {
    const aHost = kind.get(link.a.node) === NodeKind.Host;
    const bHost = kind.get(link.b.node) === NodeKind.Host;
    const pool = aHost || bHost ? hostPool : fabric;
    const offset = aHost || bHost ? nextHost : nextFabric;
    if (offset + 2 > pool.size) {
      throw new Error(
        `address pool ${aHost || bHost ? topo.hostPool : topo.fabricPool} is too small for this topology`,
      );
    }
    if (aHost || bHost) nextHost += 2;
    else nextFabric += 2;
    const even = (pool.base + offset) >>> 0;
    // The host (or, between two switches, the second endpoint) takes the odd address.
    const aIp = aHost && !bHost ? even + 1 : even;
    const bIp = aIp === even ? even + 1 : even;
    const aMac = macFor(index.get(link.a.node)!, link.a.port);
    const bMac = macFor(index.get(link.b.node)!, link.b.port);
    ports.set(portKey(link.a.node, link.a.port), {
      ...link.a,
      mac: aMac,
      ip: aIp,
      prefixLength: 31,
      peerIp: bIp,
      peerMac: bMac,
    });
    ports.set(portKey(link.b.node, link.b.port), {
      ...link.b,
      mac: bMac,
      ip: bIp,
      prefixLength: 31,
      peerIp: aIp,
      peerMac: aMac,
    });
  }
  return { ports };
}

/** The address of a host (its only port). */
export function hostAddress(plan: AddressPlan, host: string): PortAddress {
  const p = plan.ports.get(portKey(host, 1));
  if (!p) throw new Error(`host ${host} has no address`);
  return p;
}

/** Finds which host owns an address (for reports). */
export function hostByIp(plan: AddressPlan, topo: Topology, ip: Ipv4Address): string | undefined {
  for (const n of topo.nodes) {
    if (n.kind !== NodeKind.Host) continue;
    if (plan.ports.get(portKey(n.name, 1))?.ip === ip) return n.name;
  }
  return undefined;
}

export function describePlan(plan: AddressPlan): string[] {
  return [...plan.ports.values()].map((p) => `${p.node}:eth${p.port} ${ipToString(p.ip)}/${p.prefixLength}`);
}
