// The topology as the TUI and clients see it: nodes, links and their state.

import { hostAddress, planAddresses } from "../scenario/address-plan.js";
import { SettingsLayers } from "../scenario/settings-layers.js";
import { NodeKind, type Topology } from "../scenario/topology.js";
import type { LinkView, TopologyView, WatchdogView } from "./lab.js";

export function topologyView(topo: Topology, down: (id: number) => boolean): TopologyView {
  const plan = planAddresses(topo);
  const layers = new SettingsLayers(topo);
  const watchdog = (name: string): WatchdogView => {
    const w = layers.switchTunables(name).pfcWatchdog;
    const sonic = w.semantics === "sonic";
    return {
      enabled: w.enabled,
      semantics: w.semantics,
      detectionNs: sonic ? w.detectionTime : w.interval,
      pollNs: w.pollInterval,
    };
  };
  return {
    name: topo.name,
    nodes: topo.nodes.map((n) =>
      n.kind === NodeKind.Host
        ? { name: n.name, kind: n.kind, ports: n.ports, ip: hostAddress(plan, n.name).ip }
        : { name: n.name, kind: n.kind, ports: n.ports, watchdog: watchdog(n.name) },
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
