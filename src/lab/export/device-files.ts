// The per-device files an exported fabric mounts into its containers (`/config/<node>.json`), read by the
// device entrypoint (bin/device-entrypoint): for each node what the live supervisor hands that device at
// start (kind, resolved SwitchConfig or NicConfig, ports, dilation, seed — built by the same settings
// layers and config builders), plus what the container's own set-up needs: the MTU and each port's MAC
// and, on a host, its kernel side (hostStack). The format is the device file of `rocelab device-config`
// (format rocelab-device/1); the one thing an export adds is the headroom of tunnelled links (below).

import type { PortConfig } from "../../switch/config.js";
import { ipToString, macToString } from "../../wire/bytes.js";
import { hostAddress, planAddresses, portKey } from "../address-plan.js";
import { HOST_KERNEL_IF, HOST_NIC_IF, NIC_HOST_PORT } from "../live/names.js";
import { interfaceMtu } from "../live/provision.js";
import { LIVE_REACTION_MS } from "../live/supervisor.js";
import { buildNicConfig } from "../nic-config.js";
import { roceV1Of } from "../rocev1.js";
import { computeRoutes } from "../routing.js";
import { SettingsLayers, switchChange } from "../settings-layers.js";
import { buildSwitchConfig } from "../switch-config.js";
import { linkAt, NodeKind, type Topology } from "../topology.js";
import { tunnelDelayNs } from "./underlay.js";

/** Format tag of the files below; a reader refuses any other. */
export const DEVICE_FILE_FORMAT = "rocelab-device/1" as const;

export interface DeviceFilePort {
  readonly port: number;
  readonly ifname: string;
  /** Emulated one-way propagation delay the device adds on frames leaving this port, ns. */
  readonly delayNs: number;
  /** The address plan's MAC of the port (absent on the NIC's host-stack side, which keeps the kernel's). */
  readonly mac?: string;
}

export interface DeviceFile {
  readonly format: typeof DEVICE_FILE_FORMAT;
  readonly lab: string;
  readonly node: string;
  readonly kind: "switch" | "nic";
  /** Where the topology came from (for people reading the file). */
  readonly topology: string;
  readonly dilation: number;
  readonly seed: number;
  /** Real ms of PFC reaction the switches' automatic headroom covers (the live lab's base layer). */
  readonly reactionMs: number;
  /** Interface MTU of every port (path MTU + 128, as the live lab sets). */
  readonly mtu: number;
  readonly ports: readonly DeviceFilePort[];
  /** A host's kernel side: a veth pair nicIf/kernelIf, the kernel's address on kernelIf. */
  readonly hostStack?: {
    readonly kernelIf: string;
    readonly nicIf: string;
    readonly mac: string;
    readonly ip: string;
    readonly prefixLength: number;
    readonly gateway: string;
    /** Prefixes routed through the fabric (the topology's host and fabric pools). */
    readonly routes: readonly string[];
  };
  /** The device's resolved configuration (SwitchConfig or NicConfig), JSON-safe. */
  readonly config: Record<string, unknown>;
}

export interface DeviceFileOptions {
  readonly lab: string;
  readonly dilation: number;
  readonly seed: number;
  /** Default LIVE_REACTION_MS, as the local lab. */
  readonly reactionMs?: number;
  /** Links that cross machines (by link id), with the tunnel's assumed real one-way latency, ns. */
  readonly tunnels?: ReadonlyMap<number, number>;
}

/** Every node's device file, in topology order. */
export function deviceFiles(topo: Topology, opts: DeviceFileOptions): DeviceFile[] {
  const plan = planAddresses(topo);
  const routes = computeRoutes(topo, plan);
  const reactionMs = opts.reactionMs ?? LIVE_REACTION_MS;
  // The live lab's own base layer (Supervisor.liveSlack): headroom for a device's reaction time.
  const slack = { pfc: { headroomSlack: Math.ceil((reactionMs * 1e6) / opts.dilation) } };
  const settings = new SettingsLayers(topo, switchChange(slack));
  const base = {
    format: DEVICE_FILE_FORMAT,
    lab: opts.lab,
    topology: topo.source,
    dilation: opts.dilation,
    seed: opts.seed,
    reactionMs,
    mtu: interfaceMtu(topo.mtu),
  };
  const wirePort = (node: string, port: number): DeviceFilePort => ({
    port,
    ifname: `eth${port}`,
    delayNs: linkAt(topo, node, port)!.link.delayNs,
    mac: macToString(plan.ports.get(portKey(node, port))!.mac),
  });
  const files = topo.nodes.map((n): DeviceFile => {
    if (n.kind === NodeKind.Switch) {
      const config = buildSwitchConfig(
        topo,
        plan,
        routes.get(n.name) ?? [],
        n.name,
        settings.switchTunables(n.name),
      );
      return {
        ...base,
        node: n.name,
        kind: "switch",
        ports: n.ports.map((p) => wirePort(n.name, p)),
        config: config as unknown as Record<string, unknown>,
      };
    }
    const { link } = linkAt(topo, n.name, 1)!;
    const address = hostAddress(plan, n.name);
    const config = {
      ...buildNicConfig(
        { host: n.name, address, link, mtu: topo.mtu, l2: roceV1Of(topo, plan, n.name) },
        settings.hostSettings(),
        { answerArp: false },
      ),
      hostPort: true,
    };
    return {
      ...base,
      node: n.name,
      kind: "nic",
      ports: [wirePort(n.name, 1), { port: NIC_HOST_PORT, ifname: HOST_NIC_IF, delayNs: 0 }],
      hostStack: {
        kernelIf: HOST_KERNEL_IF,
        nicIf: HOST_NIC_IF,
        mac: macToString(address.mac),
        ip: ipToString(address.ip),
        prefixLength: address.prefixLength,
        gateway: ipToString(address.peerIp),
        routes: [topo.hostPool, topo.fabricPool],
      },
      config: config as unknown as Record<string, unknown>,
    };
  });
  return files.map((f) => withTunnels(topo, f, opts.tunnels ?? new Map(), opts.dilation));
}

/**
 * A tunnelled link is longer than the topology says: the automatic PFC headroom of a switch port, sized
 * from the port's delay, must also cover the tunnel's real latency in emulated time (latency / dilation).
 * The propagation the device itself adds (the file's ports) stays the topology's.
 */
export function withTunnels(
  topo: Topology,
  file: DeviceFile,
  tunnels: ReadonlyMap<number, number>,
  dilation: number,
): DeviceFile {
  if (file.kind !== "switch" || tunnels.size === 0) return file;
  const ports = (file.config.ports as PortConfig[]).map((p) => {
    const latency = tunnels.get(linkAt(topo, file.node, p.port)!.link.id);
    return latency === undefined ? p : { ...p, delayNs: p.delayNs + tunnelDelayNs(latency, dilation) };
  });
  return { ...file, config: { ...file.config, ports } };
}

/** The address plan as one file every container can read (`/config/plan.json`). */
export function planFile(
  topo: Topology,
  lab: string,
): { lab: string; mtu: number; ports: Record<string, unknown>[] } {
  const plan = planAddresses(topo);
  return {
    lab,
    mtu: topo.mtu,
    ports: [...plan.ports.values()].map((p) => ({
      port: `${p.node}:eth${p.port}`,
      ip: `${ipToString(p.ip)}/${p.prefixLength}`,
      mac: macToString(p.mac),
      peerIp: ipToString(p.peerIp),
      peerMac: macToString(p.peerMac),
    })),
  };
}
