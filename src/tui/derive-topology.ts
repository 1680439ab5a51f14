import type { DeviceView, TopologyView } from "../lab/lab.js";
import { CONGESTED_BYTES, type NodeState, type PortMetrics } from "./derive.js";
import { splitEndpoint } from "./format.js";

/**
 * Nodes by tier: tier 0 the hosts, then each node by its hop distance from the nearest host (leaves 1,
 * spines 2, a super-spine 3). Switches no host can reach go on top. Hosts are ordered by the switch they
 * hang off, so each leaf's hosts sit together under it.
 */
export function nodeTiers(topology: TopologyView): string[][] {
  const adjacency = new Map<string, string[]>();
  for (const n of topology.nodes) adjacency.set(n.name, []);
  for (const l of topology.links) {
    const a = splitEndpoint(l.a).node;
    const b = splitEndpoint(l.b).node;
    adjacency.get(a)?.push(b);
    adjacency.get(b)?.push(a);
  }
  const distance = new Map<string, number>();
  let frontier = topology.nodes.filter((n) => n.kind === "host").map((n) => n.name);
  for (const h of frontier) distance.set(h, 0);
  for (let d = 1; frontier.length > 0; d++) {
    const next: string[] = [];
    for (const n of frontier) {
      for (const m of adjacency.get(n) ?? []) {
        if (distance.has(m)) continue;
        distance.set(m, d);
        next.push(m);
      }
    }
    frontier = next;
  }
  const top = Math.max(0, ...distance.values()) + 1;
  const tiers: string[][] = [];
  const order = new Map(topology.nodes.map((n, i) => [n.name, i]));
  for (const n of topology.nodes) {
    const d = distance.get(n.name) ?? top;
    const tier = tiers[d] ?? [];
    tier.push(n.name);
    tiers[d] = tier;
  }
  const firstNeighbour = (host: string) =>
    Math.min(...(adjacency.get(host) ?? []).map((m) => order.get(m) ?? Number.MAX_SAFE_INTEGER));
  tiers[0]?.sort((x, y) => firstNeighbour(x) - firstNeighbour(y) || order.get(x)! - order.get(y)!);
  return tiers.filter((t) => t !== undefined && t.length > 0);
}

/** A name for a tier by its distance from the hosts. */
export function tierName(index: number, count: number): string {
  if (index === 0) return "hosts";
  if (count <= 2) return "switches";
  if (index === 1) return "leaves";
  if (index === 2) return "spines";
  return `tier ${index}`;
}

/** A node's state at a glance, from its ports' metrics and its device status. */
export function nodeStates(
  topology: TopologyView,
  devices: readonly DeviceView[],
  ports: ReadonlyMap<string, PortMetrics>,
): NodeState[] {
  return topology.nodes.map((n) => {
    const status = devices.find((d) => d.node === n.name)?.status ?? "unknown";
    let congested = false;
    let pausing = false;
    let paused = false;
    let dropping = false;
    let stormed = false;
    for (const p of n.ports) {
      const m = ports.get(`${n.name}:eth${p}`);
      if (!m) continue;
      if (m.ecnDelta > 0 || m.queueBytes >= CONGESTED_BYTES) congested = true;
      if (m.xoffNow || m.xoffFrac > 0 || m.txPauseDelta > 0) pausing = true;
      if (m.pausedNow || m.pausedFrac > 0) paused = true;
      if (m.dropDelta > 0) dropping = true;
      if (m.watchdog > 0) stormed = true;
    }
    return {
      name: n.name,
      kind: n.kind,
      status,
      running: status === "running",
      congested,
      pausing,
      paused,
      dropping,
      stormed,
    };
  });
}
