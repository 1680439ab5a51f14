// `rocelab export containerlab`: a fabric as containerlab topologies (https://containerlab.dev). Every node
// is a `kind: linux` container from the device image, running one rocelab device on the interfaces
// containerlab wires into it; its device file, the address plan and the control token are bind-mounted
// files. Links are veth pairs; with several machines (`--hosts`), a link whose ends run on different
// machines is a containerlab `vxlan` link on each side (the tunnel interface moved into the container as
// the port), and each machine gets its own topology file, as containerlab deploys one host at a time.

import { isIPv4 } from "node:net";
import { type AddressPlan, planAddresses, portKey } from "../scenario/address-plan.js";
import type { TopoLink, Topology } from "../scenario/topology.js";
import { ipToString, macToString, parseIp } from "../wire/bytes.js";
import { type DeviceFile, deviceFiles, planFile } from "./device-files.js";
import { crossLinks, ExportInputError, type Machine, placeNodes } from "./placement.js";
import { type MtuPlan, mtuPlan } from "./underlay.js";
import { yamlText } from "./yaml-text.js";

/** Where the files land inside each container. */
export const CONTAINER_CONFIG_DIR = "/config";
/** containerlab's own default VXLAN UDP port (links/link_vxlan.go: VxLANDefaultPort). */
export const CLAB_VXLAN_PORT = 14789;

export interface ContainerlabOptions {
  readonly lab: string;
  readonly image: string;
  /** Machines to spread the fabric over; empty: one machine, one topology file. */
  readonly machines: readonly Machine[];
  readonly pins?: ReadonlyMap<string, string>;
  /** IPv4 management subnet (CIDR); node N of the topology gets its address N + 1. */
  readonly mgmtSubnet: string;
  /** TCP port of each device's control channel inside its container. */
  readonly controlPort: number;
  /** VNI of the tunnel of link i is vniBase + i. */
  readonly vniBase: number;
  readonly underlayMtu: number;
  /** Assumed real one-way latency of a tunnel between machines, ns. */
  readonly underlayLatencyNs: number;
  readonly dilation: number;
  readonly seed: number;
  /** Real ms of PFC reaction the headroom covers (default 10, the local lab's). */
  readonly reactionMs?: number;
  /** Publish each control port on the machine (multi-machine exports always do). */
  readonly publishControl?: boolean;
  /** Every link is a tunnel whatever the placement (clabernetes: a pod per node). */
  readonly tunnelAll?: boolean;
}

export interface ExportFile {
  /** Relative to the output directory. */
  readonly path: string;
  readonly content: string;
}

export interface ContainerlabTopology {
  /** "" for a one-machine export. */
  readonly machine: string;
  readonly path: string;
  /** The topology as containerlab reads it (what the schema checks). */
  readonly definition: Record<string, unknown>;
}

export interface DeviceEndpoint {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly machine: string;
  readonly control: string;
}

export interface ContainerlabExport {
  readonly topologies: readonly ContainerlabTopology[];
  readonly devices: readonly DeviceFile[];
  readonly endpoints: readonly DeviceEndpoint[];
  readonly placement: ReadonlyMap<string, string>;
  readonly crossLinks: readonly TopoLink[];
  /** The links carried in VXLAN tunnels: the cross links, or all with `tunnelAll`. */
  readonly tunnelled: readonly TopoLink[];
  /** Present when links are tunnelled. */
  readonly mtu: MtuPlan | null;
  /** Files besides the topologies, the token and the topology copy: device files, plan, endpoints. */
  readonly files: readonly ExportFile[];
}

/** The endpoints file of `rocelab attach` in an export directory, and the topology copy it names. */
export const ENDPOINTS_FILE = "endpoints.yaml";
export const TOPOLOGY_COPY = "topology.yaml";

/**
 * `rocelab attach --endpoints` input (docs/attach.md): the topology (the built-in one, or the copy of the
 * file the export writes beside it), the devices' dilation and reaction budget, the token file and each
 * device's control endpoint.
 */
export function endpointsFile(
  topo: Topology,
  o: { lab: string; dilation: number },
  reactionMs: number,
  endpoints: readonly DeviceEndpoint[],
): string {
  return yamlText(
    {
      topology: topo.source === "built-in" ? "default" : TOPOLOGY_COPY,
      dilation: o.dilation,
      reactionMs,
      lab: o.lab,
      tokenFile: "config/token",
      devices: Object.fromEntries(endpoints.map((e) => [e.node, e.control])),
    },
    [`Control endpoints of rocelab lab ${o.lab}: rocelab attach --endpoints THIS_FILE (docs/attach.md).`],
  );
}

/** The first and last usable host numbers of an IPv4 CIDR, or a message saying what is wrong. */
export function parseMgmtSubnet(text: string, nodes: number): { base: number; prefix: number } {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(text);
  const base = m ? parseIp(m[1]!) : null;
  const prefix = m ? Number(m[2]) : Number.NaN;
  if (!m || base === null || !(prefix >= 8 && prefix <= 29) || !isIPv4(m[1]!))
    throw new ExportInputError(
      `--mgmt-subnet: "${text}" is not an IPv4 subnet like 172.20.30.0/24 (/8 to /29)`,
    );
  const size = 2 ** (32 - prefix);
  if (base % size !== 0)
    throw new ExportInputError(
      `--mgmt-subnet: ${text} has host bits set (the subnet starts at ${ipToString(base - (base % size))})`,
    );
  // Network address, the bridge's gateway (.1) and broadcast are not for nodes.
  if (nodes > size - 3)
    throw new ExportInputError(
      `--mgmt-subnet: ${text} holds ${size - 3} nodes, the topology has ${nodes}: give a larger subnet`,
    );
  return { base, prefix };
}

function mac(plan: AddressPlan, node: string, port: number): string {
  return macToString(plan.ports.get(portKey(node, port))!.mac);
}

/** Builds the containerlab topologies, device files and endpoint list of `topo` (nothing is written). */
export function exportContainerlab(topo: Topology, o: ContainerlabOptions): ContainerlabExport {
  const single: Machine = { name: "", address: "", family: "ipv4" };
  const machines = o.machines.length > 0 ? o.machines : [single];
  const placement = placeNodes(topo, machines, o.pins);
  const empty = machines.filter((m) => ![...placement.values()].includes(m.name));
  if (empty.length > 0) {
    // containerlab refuses a topology without links, and a machine with nothing to run is a mistake anyway.
    const used = machines.length - empty.length;
    throw new ExportInputError(
      `--machines: ${empty.map((m) => m.name).join(", ")} would get no node (this fabric's switches, each ` +
        `with its hosts, fill ${used} of the ${machines.length} machines): name at most ${used}`,
    );
  }
  const cross = crossLinks(topo, placement);
  const family = machines[0]!.family;
  const tunnelled = o.tunnelAll === true ? topo.links : cross;
  const mtu =
    tunnelled.length > 0 ? mtuPlan(topo.mtu, o.underlayMtu, family, topo.bridge !== undefined) : null;
  const lastVni = o.vniBase + Math.max(0, ...cross.map((l) => l.id));
  if (cross.length > 0 && !(o.vniBase >= 1 && lastVni <= 0xff_ffff))
    throw new ExportInputError(
      `--vni-base: the tunnels take VNIs ${o.vniBase} to ${lastVni}; VNIs are 1 to 16777215`,
    );
  const tunnels = new Map(tunnelled.map((l) => [l.id, o.underlayLatencyNs]));
  const devices = deviceFiles(topo, {
    lab: o.lab,
    dilation: o.dilation,
    seed: o.seed,
    tunnels,
    ...(o.reactionMs !== undefined ? { reactionMs: o.reactionMs } : {}),
  });
  const plan = planAddresses(topo);
  const mgmt = parseMgmtSubnet(o.mgmtSubnet, topo.nodes.length);
  const mgmtIp = (index: number): string => ipToString((mgmt.base + 1 + index) >>> 0);
  const publish = o.publishControl === true || o.machines.length > 0;
  const machineOf = (name: string): Machine => machines.find((m) => m.name === placement.get(name))!;
  const hostPort = (index: number): number => o.controlPort + index;
  const portMtu = devices[0]?.mtu ?? 0;

  const endpoints: DeviceEndpoint[] = topo.nodes.map((n) => {
    const m = machineOf(n.name);
    const address = m.family === "ipv6" ? `[${m.address}]` : m.address;
    return {
      node: n.name,
      kind: n.kind === "switch" ? "switch" : "nic",
      machine: m.name,
      control:
        publish && m.address !== ""
          ? `tcp://${address}:${hostPort(n.index)}`
          : `tcp://${mgmtIp(n.index)}:${o.controlPort}`,
    };
  });

  const topologies = machines.map((machine): ContainerlabTopology => {
    const here = (name: string): boolean => placement.get(name) === machine.name;
    const nodes: Record<string, unknown> = {};
    for (const n of topo.nodes) {
      if (!here(n.name)) continue;
      const file = `${CONTAINER_CONFIG_DIR}/${n.name}.json`;
      nodes[n.name] = {
        kind: "linux",
        image: o.image,
        "mgmt-ipv4": mgmtIp(n.index),
        // Namespaced sysctls, ports the device creates (a host's nic0/host0) and AF_PACKET rings: the
        // same rights the live lab's processes have as root in their namespaces.
        privileged: true,
        binds: [
          `config/${n.name}.json:${file}:ro`,
          `config/plan.json:${CONTAINER_CONFIG_DIR}/plan.json:ro`,
          `config/token:${CONTAINER_CONFIG_DIR}/token:ro`,
        ],
        // bin/device-entrypoint's flags: it waits for the ports containerlab adds after the start. The control
        // channel listens on the node's management address only (published ports reach it there); under
        // clabernetes (tunnelAll) the launcher pod's network is the only one the node has, and its
        // management address is clabernetes', so it listens on all of the pod's.
        cmd: `--config ${file} --control tcp://${o.tunnelAll ? "0.0.0.0" : mgmtIp(n.index)}:${o.controlPort} --token-file ${CONTAINER_CONFIG_DIR}/token`,
        labels: {
          "rocelab.lab": o.lab,
          "rocelab.kind": n.kind,
          ...(machine.name !== "" ? { "rocelab.machine": machine.name } : {}),
        },
        ...(publish
          ? {
              // Published on the underlay address only: the control channel is not for every network the
              // machine is on. (containerlab's port syntax takes an IPv4 address only: IPv6 publishes on all.)
              ports: [
                machine.address !== "" && machine.family === "ipv4"
                  ? `${machine.address}:${hostPort(n.index)}:${o.controlPort}/tcp`
                  : `${hostPort(n.index)}:${o.controlPort}/tcp`,
              ],
            }
          : {}),
      };
    }
    const links: Record<string, unknown>[] = [];
    for (const l of topo.links) {
      const a = { node: l.a.node, interface: `eth${l.a.port}`, mac: mac(plan, l.a.node, l.a.port) };
      const b = { node: l.b.node, interface: `eth${l.b.port}`, mac: mac(plan, l.b.node, l.b.port) };
      if (here(l.a.node) && here(l.b.node)) {
        links.push({ type: "veth", endpoints: [a, b], mtu: portMtu });
        continue;
      }
      if (!here(l.a.node) && !here(l.b.node)) continue;
      const [local, remote] = here(l.a.node) ? [a, l.b.node] : [b, l.a.node];
      links.push({
        type: "vxlan",
        endpoint: local,
        remote: machineOf(remote).address,
        vni: o.vniBase + l.id,
        "dst-port": CLAB_VXLAN_PORT,
        mtu: portMtu,
      });
    }
    const definition = {
      name: o.lab,
      mgmt: { network: `rocelab-${o.lab}`, "ipv4-subnet": o.mgmtSubnet },
      topology: { nodes, links },
    };
    const path = machine.name === "" ? `${o.lab}.clab.yml` : `${o.lab}.${machine.name}.clab.yml`;
    return { machine: machine.name, path, definition };
  });

  const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;
  const files: ExportFile[] = [
    ...devices.map((d) => ({ path: `config/${d.node}.json`, content: json(d) })),
    { path: "config/plan.json", content: json(planFile(topo, o.lab)) },
    { path: ENDPOINTS_FILE, content: endpointsFile(topo, o, devices[0]!.reactionMs, endpoints) },
  ];
  return { topologies, devices, endpoints, placement, crossLinks: cross, tunnelled, mtu, files };
}
