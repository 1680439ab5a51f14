// The topology's `overlay: { vxlan: { vni, vteps } }` as each VTEP leaf's `overlay.vxlan` section
// (switch/features/vxlan-overlay.ts): its VTEP address (its IP on its first host port, a /31 every switch
// routes to over all equal-cost paths), its host ports, and every host behind another VTEP with that
// VTEP's address. Computed from the address plan, so both runtimes hand the switches the same section.

import type { VxlanVtep } from "../switch/features/vxlan-overlay.js";
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

/** The VTEP section of `name`, or null when it is not a VTEP (or the topology has no overlay). */
export function vtepOf(topo: Topology, plan: AddressPlan, name: string): VxlanVtep | null {
  const vx = topo.overlay?.vxlan;
  if (vx === undefined || !vx.vteps.includes(name)) return null;
  const address = (leaf: string): number => plan.ports.get(portKey(leaf, hostPorts(topo, leaf)[0]!))!.ip;
  const remotes: { ip: number; vtep: number }[] = [];
  for (const leaf of vx.vteps) {
    if (leaf === name) continue;
    const vtep = address(leaf);
    for (const p of hostPorts(topo, leaf))
      remotes.push({ ip: plan.ports.get(portKey(leaf, p))!.peerIp, vtep });
  }
  return { vni: vx.vni, vtep: address(name), hostPorts: hostPorts(topo, name), remotes };
}
