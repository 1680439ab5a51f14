// The per-device files an exported fabric mounts into its containers (`/config/<node>.json`): for each
// node what the live supervisor hands that device at start (kind, resolved SwitchConfig or NicConfig,
// ports, dilation, seed — built by the same settings layers and config builders), plus what the
// container's own set-up needs: the MAC and MTU of each port and, on a host, the kernel side (host0) with
// its address and gateway. The device entrypoint reads one such file and runs one device.

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
  /** The address plan's MAC of the port ("" for the NIC's host-stack side, which keeps the kernel's). */
  readonly mac: string;
  /** Set when the link is a VXLAN tunnel to another machine: its real one-way latency as assumed, ns. */
  readonly tunnelLatencyNs?: number;
}

export interface DeviceFile {
  readonly format: typeof DEVICE_FILE_FORMAT;
  readonly lab: string;
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly dilation: number;
  readonly seed: number;
  /** Interface MTU of every port (path MTU + 128, as the live lab sets). */
  readonly mtu: number;
  readonly ports: readonly DeviceFilePort[];
  /** The device's resolved configuration (SwitchConfig or NicConfig), JSON-safe. */
  readonly config: unknown;
  /** A host's kernel side: a veth pair nicIf/kernelIf in the container, the kernel's address on kernelIf. */
  readonly host?: {
    readonly kernelIf: string;
    readonly nicIf: string;
    readonly nicPort: number;
    readonly mac: string;
    /** CIDR, e.g. 10.1.0.1/31. */
    readonly address: string;
    readonly gateway: string;
  };
}

export interface DeviceFileOptions {
  readonly lab: string;
  readonly dilation: number;
  readonly seed: number;
  /** Links that cross machines (by link id), with the tunnel's assumed real one-way latency, ns. */
  readonly tunnels?: ReadonlyMap<number, number>;
}

/** Every node's device file, in topology order. */
export function deviceFiles(topo: Topology, opts: DeviceFileOptions): DeviceFile[] {
  const plan = planAddresses(topo);
  const routes = computeRoutes(topo, plan);
  // The live lab's own base layer (Supervisor.liveSlack): headroom for a device's reaction time.
  const slack = { pfc: { headroomSlack: Math.ceil((LIVE_REACTION_MS * 1e6) / opts.dilation) } };
  const settings = new SettingsLayers(topo, switchChange(slack));
  const mtu = interfaceMtu(topo.mtu);
  const tunnels = opts.tunnels ?? new Map<number, number>();
  const base = { format: DEVICE_FILE_FORMAT, lab: opts.lab, dilation: opts.dilation, seed: opts.seed, mtu };
  const wirePort = (node: string, port: number): DeviceFilePort => {
    const { link } = linkAt(topo, node, port)!;
    const latency = tunnels.get(link.id);
    return {
      port,
      ifname: `eth${port}`,
      delayNs: link.delayNs,
      mac: macToString(plan.ports.get(portKey(node, port))!.mac),
      ...(latency !== undefined ? { tunnelLatencyNs: latency } : {}),
    };
  };
  return topo.nodes.map((n): DeviceFile => {
    if (n.kind === NodeKind.Switch) {
      const built = buildSwitchConfig(
        topo,
        plan,
        routes.get(n.name) ?? [],
        n.name,
        settings.switchTunables(n.name),
      );
      // A tunnelled link is longer than the topology says: headroom (sized from the port's delay) must
      // also cover the tunnel's latency, in emulated time. The propagation the device adds stays the same.
      const config = {
        ...built,
        ports: built.ports.map((p) => {
          const latency = tunnels.get(linkAt(topo, n.name, p.port)!.link.id);
          return latency === undefined
            ? p
            : { ...p, delayNs: p.delayNs + tunnelDelayNs(latency, opts.dilation) };
        }),
      };
      return {
        ...base,
        node: n.name,
        kind: "switch",
        ports: n.ports.map((p) => wirePort(n.name, p)),
        config,
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
      ports: [wirePort(n.name, 1), { port: NIC_HOST_PORT, ifname: HOST_NIC_IF, delayNs: 0, mac: "" }],
      config,
      host: {
        kernelIf: HOST_KERNEL_IF,
        nicIf: HOST_NIC_IF,
        nicPort: NIC_HOST_PORT,
        mac: macToString(address.mac),
        address: `${ipToString(address.ip)}/${address.prefixLength}`,
        gateway: ipToString(address.peerIp),
      },
    };
  });
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
