// The per-device files an exported fabric mounts into its containers (`/config/<node>.json`), read by the
// device entrypoint (bin/device-entrypoint): for each node what the live supervisor hands that device at
// start (kind, resolved SwitchConfig or NicConfig, ports, dilation, seed — built by the same settings
// layers and config builders), plus what the container's own set-up needs: the MTU and each port's MAC
// and, on a host, its kernel side (hostStack). The format is the device file of `rocelab device-config`
// (format rocelab-device/1); the one thing an export adds is the headroom of tunnelled links (below).

import {
  type DeviceFile,
  type DeviceFilesOptions,
  deviceFiles as localDeviceFiles,
} from "../lab/live/device-file.js";
import { planAddresses } from "../scenario/address-plan.js";
import { linkAt, type Topology } from "../scenario/topology.js";
import type { PortConfig } from "../switch/config.js";
import { ipToString, macToString } from "../wire/bytes.js";
import { tunnelDelayNs } from "./underlay.js";

export { DEVICE_FILE_FORMAT, type DeviceFile } from "../lab/live/device-file.js";

export interface DeviceFileOptions extends DeviceFilesOptions {
  /** Links that cross machines (by link id), with the tunnel's assumed real one-way latency, ns. */
  readonly tunnels?: ReadonlyMap<number, number>;
}

/**
 * Every node's device file, in topology order: those of `rocelab device-config` (the same builder), with
 * the headroom of tunnelled links added.
 */
export function deviceFiles(topo: Topology, opts: DeviceFileOptions): DeviceFile[] {
  const tunnels = opts.tunnels ?? new Map<number, number>();
  return localDeviceFiles(topo, opts).map((f) => withTunnels(topo, f, tunnels, opts.dilation));
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
  const ports = (file.config.ports as unknown as PortConfig[]).map((p) => {
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
