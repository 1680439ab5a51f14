// The topology as the TUI and clients see it: nodes, links and their state.

import { hostAddress, planAddresses } from "../scenario/address-plan.js";
import { NodeKind, type Topology } from "../scenario/topology.js";
import type { LinkView, TopologyView } from "./lab.js";

export function topologyView(topo: Topology, down: (id: number) => boolean): TopologyView {
  const plan = planAddresses(topo);
  return {
    name: topo.name,
    nodes: topo.nodes.map((n) =>
      n.kind === NodeKind.Host
        ? { name: n.name, kind: n.kind, ports: n.ports, ip: hostAddress(plan, n.name).ip }
        : { name: n.name, kind: n.kind, ports: n.ports },
    ),
    links: linkViews(topo, down),
    ...(topo.lags.length > 0
      ? {
          lags: topo.lags.map((l) => ({
            name: l.name,
            a: l.ends[0].node,
            b: l.ends[1].node,
            linkIds: l.linkIds,
          })),
        }
      : {}),
  };
}

export function linkViews(topo: Topology, down: (id: number) => boolean): LinkView[] {
  return topo.links.map((l) => ({
    id: l.id,
    a: `${l.a.node}:eth${l.a.port}`,
    b: `${l.b.node}:eth${l.b.port}`,
    up: !down(l.id),
    rateBps: l.rateBps,
    delayNs: l.delayNs,
  }));
}
