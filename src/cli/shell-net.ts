// What `rocelab cli`'s Mininet-style commands print about the lab: nodes, net (each device's ports and
// what is at their far end), links with their state, and pingall's matrix (mininet/net.py pingAll's form:
// `h1 -> h2 h3 X …`, then the share dropped).

import { execa } from "execa";
import { formatDuration, formatRate } from "../device/units.js";
import type { LinkView, TopologyView } from "../lab/lab.js";

export function formatNodes(topo: TopologyView): string {
  const of = (kind: "host" | "switch") =>
    topo.nodes
      .filter((n) => n.kind === kind)
      .map((n) => n.name)
      .join(" ");
  return `hosts:    ${of("host")}\nswitches: ${of("switch")}`;
}

/** Each node's ports, in port order, and the port at the far end (`h1 eth1:leaf1-eth3` in Mininet). */
export function formatNet(topo: TopologyView): string {
  const far = new Map<string, string>();
  for (const l of topo.links) {
    far.set(l.a, l.b);
    far.set(l.b, l.a);
  }
  return topo.nodes
    .map((n) => {
      const ports = n.ports.map((p) => `eth${p}->${far.get(`${n.name}:eth${p}`) ?? "-"}`);
      return `${n.name.padEnd(8)} ${ports.join(" ")}`;
    })
    .join("\n");
}

export function formatLinks(links: readonly LinkView[]): string {
  const w = Math.max(0, ...links.map((l) => l.a.length));
  return links
    .map(
      (l) =>
        `${l.a.padEnd(w)} <-> ${l.b.padEnd(w)}  ${(l.up ? "up" : "DOWN").padEnd(4)}  ${formatRate(l.rateBps)}b/s  delay ${formatDuration(l.delayNs)}`,
    )
    .join("\n");
}

/** The links between nodes `a` and `b`, as each end's NODE:ethN (a may be either end). */
export function linksBetween(topo: TopologyView, a: string, b: string): { a: string; b: string }[] {
  const node = (end: string) => end.slice(0, end.indexOf(":"));
  return topo.links.flatMap((l) =>
    node(l.a) === a && node(l.b) === b
      ? [{ a: l.a, b: l.b }]
      : node(l.b) === a && node(l.a) === b
        ? [{ a: l.b, b: l.a }]
        : [],
  );
}

/** Each node's neighbours, for completion. */
export function neighbours(topo: TopologyView): Map<string, string[]> {
  const out = new Map<string, string[]>(topo.nodes.map((n) => [n.name, []]));
  for (const l of topo.links) {
    const a = l.a.slice(0, l.a.indexOf(":"));
    const b = l.b.slice(0, l.b.indexOf(":"));
    out.get(a)?.push(b);
    out.get(b)?.push(a);
  }
  return out;
}

export interface PingAllResult {
  /** Per source host, the destinations in order and whether one echo came back. */
  readonly rows: readonly { readonly src: string; readonly dst: readonly [string, boolean][] }[];
}

/**
 * One kernel ping (`ping -c 1 -W 2`, by name: the namespaces resolve host names) from every host to every
 * other, in `ns(host)`; sources in parallel, each source's pings one after the other.
 */
export async function pingAll(
  hosts: readonly string[],
  ns: (host: string) => string,
): Promise<PingAllResult> {
  const rows = await Promise.all(
    hosts.map(async (src) => {
      const dst: [string, boolean][] = [];
      for (const d of hosts) {
        if (d === src) continue;
        const r = await execa("ip", ["netns", "exec", ns(src), "ping", "-n", "-q", "-c", "1", "-W", "2", d], {
          reject: false,
          stdin: "ignore",
        });
        dst.push([d, r.exitCode === 0]);
      }
      return { src, dst };
    }),
  );
  return { rows };
}

export function formatPingAll(r: PingAllResult): string {
  const lines = r.rows.map((row) => `${row.src} -> ${row.dst.map(([d, ok]) => (ok ? d : "X")).join(" ")}`);
  const sent = r.rows.reduce((a, row) => a + row.dst.length, 0);
  const received = r.rows.reduce((a, row) => a + row.dst.filter(([, ok]) => ok).length, 0);
  const dropped = sent === 0 ? 0 : Math.round((100 * (sent - received)) / sent);
  return [...lines, `*** Results: ${dropped}% dropped (${received}/${sent} received)`].join("\n");
}
