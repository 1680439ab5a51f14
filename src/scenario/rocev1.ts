// The topology's `bridge: { vlan, leaves }` as each listed leaf's `bridge.domain` section
// (switch/features/l2-bridge.ts: its host ports form one bridge domain with that VLAN), and, for a host
// whose NIC speaks RoCEv1 (`hosts: { roce: v1 }`), the NIC's RoCEv1 section (nic/transport/frames-v1.ts): the VLAN
// and the other hosts of its leaf's domain with their MACs. A host whose leaf has no bridge domain gets no
// peers: its RoCEv1 frames go to its gateway, which cannot route them. Computed from the address plan, so
// both runtimes hand devices the same sections.

import type { RoceV1Config } from "../nic/config.js";
import type { BridgeDomain } from "../switch/features/l2-bridge.js";
import { type AddressPlan, portKey } from "./address-plan.js";
import { linkAt, NodeKind, nodeByName, type Topology } from "./topology.js";

/** The host ports of a switch (ports whose peer is a host), ascending. */
function hostPorts(topo: Topology, name: string): number[] {
  const node = nodeByName(topo, name)!;
  return node.ports.filter((p) => {
    const peer = linkAt(topo, name, p)?.peer.node;
    return peer !== undefined && nodeByName(topo, peer)?.kind === NodeKind.Host;
  });
}

/** The bridge domain of switch `name`, or null when the topology does not bridge its host ports. */
export function bridgeDomainOf(topo: Topology, name: string): BridgeDomain | null {
  const b = topo.bridge;
  if (b === undefined || !b.leaves.includes(name)) return null;
  return { vlan: b.vlan, ports: hostPorts(topo, name) };
}

/** The RoCEv1 section of host `host`'s NIC. */
export function roceV1Of(topo: Topology, plan: AddressPlan, host: string): RoceV1Config {
  const leaf = linkAt(topo, host, 1)?.peer.node;
  const domain = leaf === undefined ? null : bridgeDomainOf(topo, leaf);
  if (leaf === undefined || domain === null) return { vlan: topo.bridge?.vlan ?? 1, peers: [] };
  const peers = domain.ports
    .map((p) => plan.ports.get(portKey(leaf, p))!)
    .filter((a) => linkAt(topo, leaf, a.port)?.peer.node !== host)
    .map((a) => ({ ip: a.peerIp, mac: a.peerMac }));
  return { vlan: domain.vlan, peers };
}
