// Turns the address plan and the NIC settings users write (merged by settings-layers.ts) into the fully
// resolved NicConfig a host's NIC runs with, and into the run-time change of a running NIC.

import type { NicCommand } from "../nic/commands.js";
import type { RoceV1Config } from "../nic/config.js";
import { type NicConfig, nicConfig, type RxBufferConfig } from "../nic/config.js";
import { type DcqcnParams, dcqcnProfile } from "../nic/dcqcn-params.js";
import type { PortAddress } from "./address-plan.js";
import type { NicSettings } from "./schema.js";
import type { TopoLink } from "./topology.js";

/** DCQCN profile of hosts that do not choose one: ConnectX's firmware defaults, as shipped. */
export const DEFAULT_DCQCN_PROFILE = "nvidia";

export function resolveDcqcn(s: NicSettings): DcqcnParams | null {
  const name = s.dcqcn ?? DEFAULT_DCQCN_PROFILE;
  if (name === "off") return null;
  const overrides: Partial<DcqcnParams> = {
    ...(s.cnpInterval !== undefined ? { cnpIntervalNs: s.cnpInterval } : {}),
    ...(s.rpTimer !== undefined ? { timerNs: s.rpTimer } : {}),
    ...(s.rpByteCounter !== undefined ? { byteCounterBytes: s.rpByteCounter } : {}),
    ...(s.rai !== undefined ? { rAiBps: s.rai } : {}),
    ...(s.rhai !== undefined ? { rHaiBps: s.rhai } : {}),
    ...(s.g !== undefined ? { g: s.g } : {}),
    ...(s.minRate !== undefined ? { minRateBps: s.minRate } : {}),
  };
  return dcqcnProfile(name, overrides);
}

const DCQCN_KEYS = [
  "dcqcn",
  "cnpInterval",
  "rpTimer",
  "rpByteCounter",
  "rai",
  "rhai",
  "g",
  "minRate",
] as const;

/**
 * The run-time change that brings a NIC to the merged settings `s` after `changed` was applied (scenario
 * `set` steps, the live lab's configure-hosts). DCQCN parameters go along only when `changed` touches them:
 * a new DCQCN configuration restarts every QP's reaction point at line rate, which a step that only changes
 * the RTO must not do.
 */
export function nicConfigureCommand(
  s: NicSettings,
  changed: NicSettings,
): Extract<NicCommand, { type: "configure" }> {
  return {
    type: "configure",
    ...(DCQCN_KEYS.some((k) => changed[k] !== undefined) ? { dcqcn: resolveDcqcn(s) } : {}),
    ...(s.ackReqEvery !== undefined ? { ackReqEvery: s.ackReqEvery } : {}),
    ...(s.rto !== undefined ? { rtoNs: s.rto } : {}),
    ...(s.ackDscp !== undefined ? { ackDscp: s.ackDscp } : {}),
    ...(s.rxBuffer !== undefined ? { rxBuffer: rxBuffer(s.rxBuffer) } : {}),
    ...(s.reorder !== undefined ? { reorderWindow: s.reorder.window } : {}),
    ...(s.roce !== undefined ? { roceVersion: s.roce === "v1" ? 1 : 2 } : {}),
  };
}

function rxBuffer(r: NonNullable<NicSettings["rxBuffer"]>): Partial<RxBufferConfig> {
  return {
    enabled: r.enabled ?? true,
    ...(r.hostIngestRate !== undefined ? { hostIngestRateBps: r.hostIngestRate } : {}),
    ...(r.xoff !== undefined ? { xoffBytes: r.xoff } : {}),
    ...(r.xon !== undefined ? { xonBytes: r.xon } : {}),
    ...(r.size !== undefined ? { sizeBytes: r.size } : {}),
  };
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
}

export function buildNicConfig(
  { host, address: addr, link, mtu, l2 }: NicPlacement,
  s: NicSettings,
  runtime: NicRuntimeOptions,
): NicConfig {
  return nicConfig({
    name: host,
    port: { mac: addr.mac, ip: addr.ip, rateBps: link.rateBps, delayNs: link.delayNs },
    gatewayMac: addr.peerMac,
    mtu,
    answerArp: runtime.answerArp,
    dcqcn: resolveDcqcn(s),
    ...(s.ackReqEvery !== undefined ? { ackReqEvery: s.ackReqEvery } : {}),
    ...(s.rto !== undefined ? { rtoNs: s.rto } : {}),
    ...(s.ackDscp !== undefined ? { ackDscp: s.ackDscp } : {}),
    ...(s.rxBuffer !== undefined ? { rxBuffer: rxBuffer(s.rxBuffer) } : {}),
    ...(s.reorder !== undefined ? { reorderWindow: s.reorder.window } : {}),
    ...(l2 !== undefined ? { rocev1: l2 } : {}),
    ...(s.roce === "v1" && l2 !== undefined ? { roceVersion: 1 as const } : {}),
  });
}
