// `rocelab topology`'s links: a link aggregation group is printed as one aggregated link with its members
// (docs/link-aggregation.md), as routing sees it; the other links one per line.

import { formatDuration, formatRate } from "../device/units.js";
import type { TopoLag } from "../scenario/lag.js";
import type { TopoLink, Topology } from "../scenario/topology.js";

const end = (node: string, port: number | string) =>
  `${node}:${typeof port === "number" ? `eth${port}` : port}`;

function linkText(a: string, b: string, rateBps: number, delayNs: number, extra: string): string {
  return `  ${a.padEnd(14)} <-> ${b.padEnd(14)} ${formatRate(rateBps)}b/s ${formatDuration(delayNs)}${extra}`;
}

/** The member links of a group, in its members' order. */
function members(topo: Topology, lag: TopoLag): TopoLink[] {
  return lag.linkIds.map((id) => topo.links.find((l) => l.id === id)!);
}

/** The links section: each group once (total rate, members), then every link outside a group. */
export function linkLines(topo: Topology): string[] {
  const out: string[] = [];
  const inLag = new Set(topo.lags.flatMap((l) => l.linkIds));
  for (const lag of topo.lags) {
    const links = members(topo, lag);
    const [a, b] = lag.ends;
    const rates = new Set(links.map((l) => l.rateBps));
    const rate = links.reduce((s, l) => s + l.rateBps, 0);
    const each = rates.size === 1 ? `${links.length} × ${formatRate(links[0]!.rateBps)}b/s = ` : "";
    const mode = lag.mode === "lacp" ? `lacp, ${lag.rate}` : "static";
    out.push(
      `  ${end(a.node, lag.name).padEnd(14)} <-> ${end(b.node, lag.name).padEnd(14)} ${each}${formatRate(rate)}b/s ${formatDuration(links[0]!.delayNs)} (${mode})`,
    );
    for (const [i, p] of a.ports.entries())
      out.push(`      member ${end(a.node, p)} <-> ${end(b.node, b.ports[i]!)}`);
  }
  for (const l of topo.links) {
    if (inLag.has(l.id)) continue;
    const loss = l.lossRate ? ` loss ${l.lossRate}` : "";
    out.push(linkText(end(l.a.node, l.a.port), end(l.b.node, l.b.port), l.rateBps, l.delayNs, loss));
  }
  return out;
}

/** The groups for `rocelab topology --json`: each with its two ends, its members and its total rate. */
export function lagsJson(topo: Topology) {
  return topo.lags.map((lag) => {
    const [a, b] = lag.ends;
    return {
      name: lag.name,
      mode: lag.mode,
      ...(lag.mode === "lacp" ? { rate: lag.rate } : {}),
      a: a.node,
      b: b.node,
      members: a.ports.map((p, i) => ({ a: end(a.node, p), b: end(b.node, b.ports[i]!) })),
      rateBps: members(topo, lag).reduce((s, l) => s + l.rateBps, 0),
    };
  });
}
