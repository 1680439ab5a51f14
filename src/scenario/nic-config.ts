// Turns the address plan and the NIC settings users write (merged by settings-layers.ts) into the fully
// resolved NicConfig a host's NIC runs with, and into the run-time change of a running NIC. The sections
// and their names are the NIC's feature modules' (nic/features/registry.ts).

import type { NicCommand } from "../nic/commands.js";
import type { NicConfig, RoceV1Config } from "../nic/config.js";
import { type NicSettings, sectionsToSend } from "../nic/features/registry.js";
import { nicConfig } from "../nic/resolve-config.js";
import type { PortAddress } from "./address-plan.js";
import type { TopoLink } from "./topology.js";

/**
 * The run-time change that brings a NIC to the merged settings `s` after `changed` was applied (scenario `set` steps, the live lab's configure-hosts): every section the layers set, and
 * the congestion control only when `changed` touches it (a new one restarts every QP at line rate, which a
 * step that only changes the RTO must not do).
 */
export function nicConfigureCommand(
  s: NicSettings,
  changed: NicSettings,
): Extract<NicCommand, { type: "configure" }> {
  return { type: "configure", settings: sectionsToSend(s, changed) };
}

export interface NicRuntimeOptions {
  /** In the live lab the host kernel answers ARP (the NIC hands it non-RoCE frames); in the simulator the NIC does. */
  readonly answerArp: boolean;
}

export interface NicPlacement {
  readonly host: string;
  /** The host's port in the address plan (its IP and MAC; the peer is its gateway). */
  readonly address: PortAddress;
  readonly link: TopoLink;
  /** RoCE path MTU. */
  readonly mtu: number;
  /** The host's layer-2 domain (scenario/rocev1.ts roceV1Of), spoken when the settings say `roce: v1`. */
  readonly l2?: RoceV1Config;
  /** The fabric's base RTT (fabric-rtt.ts), HPCC's default T. */
  readonly fabricRttNs?: number;
}

export function buildNicConfig(
  { host, address: addr, link, mtu, l2, fabricRttNs }: NicPlacement,
  s: NicSettings,
  runtime: NicRuntimeOptions,
): NicConfig {
  return nicConfig({
    name: host,
    port: { mac: addr.mac, ip: addr.ip, rateBps: link.rateBps, delayNs: link.delayNs },
    gatewayMac: addr.peerMac,
    mtu,
    answerArp: runtime.answerArp,
    ...(l2 !== undefined ? { rocev1: l2 } : {}),
    ...(fabricRttNs !== undefined ? { fabricRttNs } : {}),
    // RoCEv1 needs the host's layer-2 domain; without one the host stays on v2.
    settings: s.roce === "v1" && l2 === undefined ? { ...s, roce: "v2" } : s,
  });
}
