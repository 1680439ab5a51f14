// How the dashboard names a peer: a host's name where the address plan knows its address, else the
// dotted quad; and the natural order of node names (h2 before h10).

import type { TopologyView } from "../lab/lab.js";

export const NATURAL = new Intl.Collator("en", { numeric: true });

/** Resolves a QP's remote address to a host name. */
export type PeerNamer = (ip: number) => string;

/** The default namer: dotted quad. */
export function dottedQuad(ip: number): string {
  return [ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff].join(".");
}

/** Names addresses after the hosts of a topology (the view carries each host's address). */
export function peerNamerOf(topology: TopologyView): PeerNamer {
  const names = new Map<number, string>();
  for (const n of topology.nodes) if (n.ip !== undefined) names.set(n.ip, n.name);
  return (ip) => names.get(ip) ?? dottedQuad(ip);
}
