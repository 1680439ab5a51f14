// Per-link load for reports: the bytes each direction of every topology link carried (the sending port's
// tx_bytes) and its utilisation over the job's span (first flow start to last completion), and the
// load-balance figure: max / mean utilisation over the switch-to-switch link directions that carried
// traffic (1 is perfect balance; 2 means the busiest link carried twice the average). A direction carried
// traffic when it sent at least 1 % of the busiest direction's bytes: a direction that only carried the
// ACKs of data going the other way (one 58-byte ACK per 8 packets of 4 KB, about 0.2 %) does not count.

import { readCounter } from "../device/counters.js";
import { PortCounter } from "../device/l2/port-counters.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import { NodeKind, type Topology } from "../scenario/topology.js";

export interface LinkLoad {
  /** "node:ethN" of the sending end, and of the receiving end. */
  readonly from: string;
  readonly to: string;
  readonly bytes: number;
  /** Fraction of the line rate over the span. */
  readonly utilisation: number;
  /** Both ends are switches. */
  readonly fabric: boolean;
}

export interface LoadBalance {
  /** Switch-to-switch link directions that carried traffic. */
  readonly links: number;
  readonly maxUtilisation: number;
  readonly meanUtilisation: number;
  /** max / mean (0 when no fabric link carried traffic). */
  readonly figure: number;
}

export function linkLoads(topology: Topology, stats: readonly AnyDeviceStats[], spanNs: number): LinkLoad[] {
  const byNode = new Map(stats.map((s) => [s.name, s]));
  const kind = new Map(topology.nodes.map((n) => [n.name, n.kind]));
  const txBytes = (node: string, port: number): number => {
    const p = byNode.get(node)?.ports.find((x) => x.port === port);
    // A device that is not running (or a port it does not have) carried nothing.
    return p === undefined ? 0 : readCounter(p.counters, PortCounter.txBytes);
  };
  const out: LinkLoad[] = [];
  for (const l of topology.links) {
    const fabric = kind.get(l.a.node) === NodeKind.Switch && kind.get(l.b.node) === NodeKind.Switch;
    for (const [s, r] of [
      [l.a, l.b],
      [l.b, l.a],
    ] as const) {
      const bytes = txBytes(s.node, s.port);
      out.push({
        from: `${s.node}:eth${s.port}`,
        to: `${r.node}:eth${r.port}`,
        bytes,
        utilisation: spanNs > 0 ? (bytes * 8e9) / (l.rateBps * spanNs) : 0,
        fabric,
      });
    }
  }
  return out;
}

/** Below this fraction of the busiest fabric direction's bytes, a direction did not carry traffic. */
export const CARRIED_FRACTION = 0.01;

export function loadBalance(links: readonly LinkLoad[]): LoadBalance {
  const fabric = links.filter((l) => l.fabric);
  const busiest = Math.max(0, ...fabric.map((l) => l.bytes));
  const used = fabric
    .filter((l) => l.bytes > 0 && l.bytes >= CARRIED_FRACTION * busiest)
    .map((l) => l.utilisation);
  if (used.length === 0) return { links: 0, maxUtilisation: 0, meanUtilisation: 0, figure: 0 };
  const max = Math.max(...used);
  const mean = used.reduce((a, b) => a + b, 0) / used.length;
  return { links: used.length, maxUtilisation: max, meanUtilisation: mean, figure: max / mean };
}
