// What each live device is given at start: its kind, its resolved configuration and its ports. The
// supervisor hands it over the IPC channel (with its clock's shared tables); `rocelab device-config`
// writes the same into a device file for the device entrypoint (device-file.ts). One function, so that a
// device in a container runs exactly what the same device in a local lab would.

import type { NicConfig } from "../../nic/config.js";
import { dataIntBytes } from "../../nic/transport/frames.js";
import type { LivePort } from "../../runtime/realtime/protocol.js";
import { type AddressPlan, hostAddress, planAddresses } from "../../scenario/address-plan.js";
import { fabricBaseRtt } from "../../scenario/fabric-rtt.js";
import { buildNicConfig } from "../../scenario/nic-config.js";
import { roceV1Of } from "../../scenario/rocev1.js";
import type { SwitchSettings } from "../../scenario/schema.js";
import { type SettingsChange, SettingsLayers } from "../../scenario/settings-layers.js";
import { buildSwitchConfig } from "../../scenario/switch-config.js";
import { linkAt, NodeKind, nodeByName, type Topology } from "../../scenario/topology.js";
import type { Route } from "../../switch/config.js";
import { ClockMode } from "./clock-plan.js";
import { HOST_NIC_IF, NIC_HOST_PORT } from "./names.js";
import { interfaceMtu } from "./provision.js";

/** Real time a live device may take to react to a PFC pause (see liveSlack). */
export const LIVE_REACTION_MS = 10;

/** Emulated ns of `reactionMs` real at `dilation`: the live lab's lateness budget. */
export function lateBudgetNs(dilation: number, reactionMs = LIVE_REACTION_MS): number {
  return (reactionMs * 1e6) / dilation;
}

/**
 * With free clocks a live device reacts to a pause only when its process runs: Node timers fire a
 * millisecond or more late, and on a busy 2-core machine a process waits for CPU for several more
 * (docs/performance.md has the measured lateness). At dilation D, every real millisecond of reaction is
 * 1e6/D emulated ns during which an upstream keeps sending, so automatic headroom covers LIVE_REACTION_MS
 * of it (devices started by the entrypoint, which run free clocks: the `reactionMs` of their files). Synced
 * clocks take every frame and timer at its emulated time, so a pause is obeyed when the simulator obeys
 * it: no slack, and the switches' headroom and shared pool are the simulator's. The base layer of every
 * live lab's switch settings.
 */
export function liveSlack(
  dilation: number,
  reactionMs = LIVE_REACTION_MS,
  clock: ClockMode = ClockMode.Free,
): SwitchSettings {
  if (clock === ClockMode.Synced) return {};
  // With free clocks a late process can send past a pause: the switches count those drops apart.
  return {
    pfc: { headroomSlack: Math.ceil(lateBudgetNs(dilation, reactionMs)), attributeLateness: true },
  };
}

export interface DeviceSetup {
  readonly kind: "switch" | "nic";
  /** SwitchConfig or NicConfig, JSON-safe. */
  readonly config: unknown;
  readonly ports: readonly LivePort[];
}

/** The configuration and ports of `node`, with the settings `layers` resolve and its `routes`. */
export function deviceSetup(
  topo: Topology,
  plan: AddressPlan,
  layers: SettingsLayers,
  node: string,
  routes: readonly Route[],
): DeviceSetup {
  const n = nodeByName(topo, node);
  if (!n) throw new Error(`no node ${node} in topology ${topo.name}`);
  if (n.kind === NodeKind.Switch) {
    const config = buildSwitchConfig(topo, plan, [...routes], node, layers.switchTunables(node));
    const ports = n.ports.map((port) => ({
      port,
      ifname: `eth${port}`,
      delayNs: linkAt(topo, node, port)!.link.delayNs,
    }));
    return { kind: "switch", config, ports };
  }
  const link = linkAt(topo, node, 1)!.link;
  // The kernel answers ARP and ping on host0, behind the NIC's host port.
  const config = {
    ...buildNicConfig(
      {
        host: node,
        address: hostAddress(plan, node),
        link,
        mtu: topo.mtu,
        l2: roceV1Of(topo, plan, node),
        fabricRttNs: fabricBaseRtt(topo),
      },
      layers.hostSettings(),
      { answerArp: false },
    ),
    hostPort: true,
  };
  return {
    kind: "nic",
    config,
    ports: [
      { port: 1, ifname: "eth1", delayNs: link.delayNs },
      // The host kernel's side: no emulated propagation delay inside the server.
      { port: NIC_HOST_PORT, ifname: HOST_NIC_IF, delayNs: 0 },
    ],
  };
}

/** The largest INT block the hosts put in a data packet with the settings `layers` resolve (0: none). */
export function labIntBytes(topo: Topology, plan: AddressPlan, layers: SettingsLayers): number {
  let most = 0;
  for (const n of topo.nodes) {
    if (n.kind !== NodeKind.Host) continue;
    const { config } = deviceSetup(topo, plan, layers, n.name, []);
    most = Math.max(most, dataIntBytes(config as NicConfig));
  }
  return most;
}

/**
 * The INT room a run of `scenario` needs on a live lab's ports: the largest block its hosts send under its
 * overrides or any settings change of its timeline (a live run applies both after the lab is up).
 */
export function scenarioIntBytes(
  topo: Topology,
  overrides: SettingsChange,
  changes: readonly SettingsChange[],
): number {
  const plan = planAddresses(topo);
  const layers = new SettingsLayers(topo, overrides);
  let most = labIntBytes(topo, plan, layers);
  for (const c of changes) {
    layers.push(c);
    most = Math.max(most, labIntBytes(topo, plan, layers));
  }
  return most;
}

/** The MTU of every port of a lab started with `layers`: room for the INT its hosts send (provision.ts). */
export function labInterfaceMtu(topo: Topology, plan: AddressPlan, layers: SettingsLayers): number {
  return interfaceMtu(topo.mtu, labIntBytes(topo, plan, layers));
}
