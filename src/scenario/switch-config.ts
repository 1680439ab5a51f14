// Turns what users write for a switch into what its core runs with: one settings layer applied to tunables
// (the layers themselves are stacked by settings-layers.ts), and the whole SwitchConfig of a node.

import type { LagConfig, PortConfig, Route, SwitchConfig, SwitchTunables } from "../switch/config.js";
import { applyLayer } from "../switch/features/registry.js";
import { type AddressPlan, portKey } from "./address-plan.js";
import type { SwitchSettings } from "./schema.js";
import { linkAt, nodeByName, type Topology } from "./topology.js";

/** Bytes of a full-size RoCE data frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + payload + ICRC 4. */
export function maxFrameBytes(mtu: number): number {
  return 14 + 20 + 8 + 12 + 16 + mtu + 4;
}

/** Applies one layer of settings on top of resolved tunables (each section merges as its module says). */
export function applySwitchSettings(t: SwitchTunables, s: SwitchSettings): SwitchTunables {
  const { profile: _profile, ...sections } = s;
  return applyLayer(t, sections);
}

export function buildSwitchConfig(
  topo: Topology,
  plan: AddressPlan,
  routes: readonly Route[],
  name: string,
  tunables: SwitchTunables,
): SwitchConfig {
  const node = nodeByName(topo, name)!;
  const kinds = new Map(topo.nodes.map((n) => [n.name, n.kind]));
  const ports: PortConfig[] = node.ports.map((port) => {
    const addr = plan.ports.get(portKey(name, port))!;
    const attached = linkAt(topo, name, port)!;
    return {
      port,
      name: `eth${port}`,
      mac: addr.mac,
      ip: addr.ip,
      prefixLength: addr.prefixLength,
      rateBps: attached.link.rateBps,
      delayNs: attached.link.delayNs,
      peer: {
        node: attached.peer.node,
        port: attached.peer.port,
        kind: kinds.get(attached.peer.node)!,
        mac: addr.peerMac,
      },
    };
  });
  const lags = switchLags(topo, plan, name);
  return {
    name,
    ports,
    routes,
    ...(lags.length > 0 ? { lags } : {}),
    maxFrameBytes: maxFrameBytes(topo.mtu),
    ...tunables,
  };
}

/** The node's ends of the topology's aggregation groups, each member with its link's peer address. */
function switchLags(topo: Topology, plan: AddressPlan, name: string): LagConfig[] {
  const out: LagConfig[] = [];
  for (const lag of topo.lags) {
    const i = lag.ends.findIndex((e) => e.node === name);
    if (i < 0) continue;
    const me = lag.ends[i]!;
    const other = lag.ends[1 - i]!;
    out.push({
      name: lag.name,
      key: lag.key,
      mode: lag.mode,
      rate: lag.rate,
      hash: lag.hash,
      balance: lag.balance,
      members: me.ports.map((port, j) => ({
        port,
        via: plan.ports.get(portKey(other.node, other.ports[j]!))!.ip,
      })),
    });
  }
  return out;
}
