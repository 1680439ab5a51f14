// Which node the node view opens on: the busiest device, so the first look lands on the congested leaf
// rather than on the first spine. Busiest is the most bytes queued in its egress queues now, then the most
// PFC pause frames sent and received during the last interval, then since the start; ties go to the
// earlier node in topology order, and an idle fabric opens on the first node.

import type { PortMetrics } from "./derive.js";

export interface NodeLoad {
  readonly queued: number;
  readonly pausesNow: number;
  readonly pausesTotal: number;
}

/** Each node's load, summed over its ports. */
export function nodeLoads(ports: ReadonlyMap<string, PortMetrics>): Map<string, NodeLoad> {
  const out = new Map<string, NodeLoad>();
  for (const m of ports.values()) {
    const l = out.get(m.node) ?? { queued: 0, pausesNow: 0, pausesTotal: 0 };
    out.set(m.node, {
      queued: l.queued + m.queueBytes,
      pausesNow: l.pausesNow + m.txPauseDelta + m.rxPauseDelta,
      pausesTotal: l.pausesTotal + m.txPause + m.rxPause,
    });
  }
  return out;
}

function busier(a: NodeLoad, b: NodeLoad): boolean {
  if (a.queued !== b.queued) return a.queued > b.queued;
  if (a.pausesNow !== b.pausesNow) return a.pausesNow > b.pausesNow;
  return a.pausesTotal > b.pausesTotal;
}

/** Index (in `nodes`' order) of the busiest node; 0 when nothing is queued or paused anywhere. */
export function busiestNode(
  nodes: readonly { readonly name: string }[],
  ports: ReadonlyMap<string, PortMetrics>,
): number {
  const loads = nodeLoads(ports);
  let best = 0;
  let bestLoad: NodeLoad = { queued: 0, pausesNow: 0, pausesTotal: 0 };
  nodes.forEach((n, i) => {
    const l = loads.get(n.name);
    if (l && busier(l, bestLoad)) {
      best = i;
      bestLoad = l;
    }
  });
  return best;
}
