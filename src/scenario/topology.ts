// Topologies: the resolved form every other part of the lab uses, from a containerlab-like file (read by
// topology-file.ts) or the built-in default fabric, with the checks that it hangs together.

import { ConfigError, type ConfigProblem, type SourceDocument } from "./config-error.js";
import { resolveLags, type TopoLag } from "./lag.js";
import type { StaticRouteSettings, SwitchSettings, TopologyFile } from "./schema.js";

export const NodeKind = {
  Switch: "switch",
  Host: "host",
} as const;
export type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];

export interface TopoEndpoint {
  readonly node: string;
  /** N of ethN. */
  readonly port: number;
}

export interface TopoLink {
  /** Position in the file's link list (stable identifier). */
  readonly id: number;
  readonly a: TopoEndpoint;
  readonly b: TopoEndpoint;
  readonly rateBps: number;
  readonly delayNs: number;
  readonly lossRate: number;
}

export interface TopoNode {
  readonly name: string;
  readonly kind: NodeKind;
  /** 1-based position in the file (MAC addresses derive from it). */
  readonly index: number;
  /** Switch settings written on the node (for switches). */
  readonly settings: SwitchSettings;
  /** Ports in use, ascending. */
  readonly ports: readonly number[];
  /** Static routes written on the node (switches; checked against the topology). */
  readonly staticRoutes: readonly StaticRouteSettings[];
}

export interface Topology {
  readonly name: string;
  readonly description: string;
  /** Where it came from ("built-in" for the default). */
  readonly source: string;
  /** RoCE path MTU (payload bytes per packet). */
  readonly mtu: number;
  readonly nodes: readonly TopoNode[];
  readonly links: readonly TopoLink[];
  /** Link aggregation groups between switches (scenario/lag.ts); empty when none. */
  readonly lags: readonly TopoLag[];
  readonly defaultSwitch: SwitchSettings;
  readonly profiles: Readonly<Record<string, SwitchSettings>>;
  readonly fabricPool: string;
  readonly hostPool: string;
  /** A VXLAN overlay over the fabric (scenario/overlay.ts). */
  readonly overlay?: { readonly vxlan: { readonly vni: number; readonly vteps: readonly string[] } };
  /** Layer-2 bridge domains on leaves' host ports (scenario/rocev1.ts). */
  readonly bridge?: { readonly vlan: number; readonly leaves: readonly string[] };
}

export const DEFAULT_LINK_RATE = 100e9;
export const DEFAULT_LINK_DELAY_NS = 1000;
export const DEFAULT_MTU = 4096;

/** The built-in fabric: 2 spines, 2 leaves, h1-h4 on leaf1 and h5-h8 on leaf2; 100 Gb/s, 1 µs links. */
export function defaultTopologyFile(): TopologyFile {
  const nodes: TopologyFile["nodes"] = {
    spine1: { kind: "switch" },
    spine2: { kind: "switch" },
    leaf1: { kind: "switch" },
    leaf2: { kind: "switch" },
  };
  const links: TopologyFile["links"] = [
    ["leaf1:eth1", "spine1:eth1"],
    ["leaf1:eth2", "spine2:eth1"],
    ["leaf2:eth1", "spine1:eth2"],
    ["leaf2:eth2", "spine2:eth2"],
  ];
  for (let h = 1; h <= 8; h++) {
    nodes[`h${h}`] = { kind: "host" };
    const leaf = h <= 4 ? "leaf1" : "leaf2";
    links.push([`h${h}:eth1`, `${leaf}:eth${((h - 1) % 4) + 3}`]);
  }
  return {
    name: "default",
    description: "2 spines, 2 leaves, 8 hosts (h1-h4 on leaf1, h5-h8 on leaf2); 100 Gb/s links, 1 µs delay",
    defaults: { link: { rate: DEFAULT_LINK_RATE, delay: DEFAULT_LINK_DELAY_NS } },
    nodes,
    links,
  };
}

/** Highest port number (ethN) a node may have. */
export const MAX_PORT = 1024;

/** The built-in default topology, resolved. */
export function defaultTopology(): Topology {
  return resolveTopology(defaultTopologyFile(), "built-in", null);
}

/**
 * Checks the references in a parsed topology and resolves it. `doc` (when the topology came from a file)
 * locates problems in the source; `path` prefixes their paths (a topology inline in a scenario).
 */
export function resolveTopology(
  file: TopologyFile,
  source: string,
  doc: SourceDocument | null,
  fallbackName = "topology",
  path: readonly (string | number)[] = [],
): Topology {
  const problems: ConfigProblem[] = [];
  const problem = (at: (string | number)[], message: string): void => {
    const full = [...path, ...at];
    problems.push(doc ? doc.problem(full, message) : { path: full.join("."), message });
  };
  const kinds = new Map<string, NodeKind>();
  for (const [name, node] of Object.entries(file.nodes)) kinds.set(name, node.kind);
  if (kinds.size === 0) problem(["nodes"], "a topology needs at least one node");

  const used = new Map<string, number>();
  const ports = new Map<string, number[]>();
  const links: TopoLink[] = [];
  const linkDefaults = file.defaults?.link ?? {};
  file.links.forEach((entry, i) => {
    const endpoints = Array.isArray(entry) ? entry : entry.endpoints;
    const epPath = Array.isArray(entry) ? ["links", i] : ["links", i, "endpoints"];
    const ends: TopoEndpoint[] = [];
    endpoints.forEach((text, j) => {
      const [node, iface] = text.split(":") as [string, string];
      const port = Number(iface.slice(3));
      if (!kinds.has(node)) {
        problem([...epPath, j], `node "${node}" is not defined under nodes`);
        return;
      }
      if (port > MAX_PORT) {
        // The interface name reaches the kernel: ethN must fit its 15 characters, and no switch has more.
        problem([...epPath, j], `${text}: ports are eth1 to eth${MAX_PORT}`);
        return;
      }
      const key = `${node}:${port}`;
      const previous = used.get(key);
      if (previous !== undefined) {
        problem([...epPath, j], `${text} is already used by links[${previous}]`);
        return;
      }
      used.set(key, i);
      ports.set(node, [...(ports.get(node) ?? []), port]);
      ends.push({ node, port });
    });
    if (ends.length === 2 && ends[0]!.node === ends[1]!.node) {
      problem(epPath, `a link must join two different nodes, not ${ends[0]!.node} to itself`);
    }
    if (ends.length !== 2) return;
    const own: { rate?: number; delay?: number; loss?: number } = Array.isArray(entry) ? {} : entry;
    links.push({
      id: i,
      a: ends[0]!,
      b: ends[1]!,
      rateBps: own.rate ?? linkDefaults.rate ?? DEFAULT_LINK_RATE,
      delayNs: own.delay ?? linkDefaults.delay ?? DEFAULT_LINK_DELAY_NS,
      lossRate: own.loss ?? linkDefaults.loss ?? 0,
    });
  });

  const nodes: TopoNode[] = [];
  let index = 0;
  for (const [name, node] of Object.entries(file.nodes)) {
    index++;
    const nodePorts = (ports.get(name) ?? []).sort((a, b) => a - b);
    if (node.kind === NodeKind.Host) {
      if (nodePorts.length !== 1 || nodePorts[0] !== 1) {
        problem(
          ["nodes", name],
          `host ${name} must have exactly one link, on eth1 (it has ${nodePorts.map((p) => `eth${p}`).join(", ") || "none"})`,
        );
      }
      nodes.push({ name, kind: NodeKind.Host, index, settings: {}, ports: nodePorts, staticRoutes: [] });
      continue;
    }
    const { kind: _kind, routes: staticRoutes = [], ...settings } = node;
    staticRoutes.forEach((r, j) => {
      if (!nodePorts.includes(Number(r.via.slice(3))))
        problem(["nodes", name, "routes", j, "via"], `${name} has no link on ${r.via}`);
      if (!r.to.includes("/") && kinds.get(r.to) !== NodeKind.Host)
        problem(["nodes", name, "routes", j, "to"], `"${r.to}" is not a host of the topology`);
    });
    const profile = settings.profile ?? file.defaults?.switch?.profile;
    if (profile !== undefined && !isKnownProfile(profile, file.profiles)) {
      problem(
        ["nodes", name, "profile"],
        `profile "${profile}" is not defined (${knownProfiles(file.profiles)})`,
      );
    }
    if (nodePorts.length === 0) problem(["nodes", name], `switch ${name} has no links`);
    nodes.push({ name, kind: NodeKind.Switch, index, settings, ports: nodePorts, staticRoutes });
  }
  file.overlay?.vxlan.vteps.forEach((v, i) => {
    const node = nodes.find((n) => n.name === v);
    const at = ["overlay", "vxlan", "vteps", i];
    if (node?.kind !== NodeKind.Switch) problem(at, `VTEP "${v}" is not a switch of this topology`);
    else if (!node.ports.some((p) => kinds.get(linkPeer(links, v, p) ?? "") === NodeKind.Host)) {
      problem(at, `VTEP ${v} has no host port`);
    }
  });
  file.bridge?.leaves.forEach((v, i) => {
    const node = nodes.find((n) => n.name === v);
    const at = ["bridge", "leaves", i];
    if (node?.kind !== NodeKind.Switch) problem(at, `bridge leaf "${v}" is not a switch of this topology`);
    else if (file.overlay?.vxlan.vteps.includes(v)) problem(at, `${v} cannot be a VTEP and a bridge leaf`);
  });
  const lags = resolveLags(file.lags ?? [], links, kinds, problem);
  if (problems.length > 0) throw new ConfigError(source, problems);
  return {
    ...(file.overlay ? { overlay: file.overlay } : {}),
    ...(file.bridge ? { bridge: file.bridge } : {}),
    name: file.name ?? fallbackName,
    description: file.description ?? "",
    source,
    mtu: file.defaults?.mtu ?? DEFAULT_MTU,
    nodes,
    links,
    lags,
    defaultSwitch: file.defaults?.switch ?? {},
    profiles: file.profiles ?? {},
    fabricPool: file.addressing?.fabric ?? "10.0.0.0/16",
    hostPool: file.addressing?.hosts ?? "10.1.0.0/16",
  };
}

function linkPeer(links: readonly TopoLink[], node: string, port: number): string | undefined {
  for (const l of links) {
    if (l.a.node === node && l.a.port === port) return l.b.node;
    if (l.b.node === node && l.b.port === port) return l.a.node;
  }
  return undefined;
}

/** Built-in switch profiles (see profiles.ts) are always available. */
export const BUILT_IN_PROFILES = ["default", "aggressive", "balanced", "conservative"] as const;

function isKnownProfile(name: string, own: TopologyFile["profiles"]): boolean {
  return (BUILT_IN_PROFILES as readonly string[]).includes(name) || (own !== undefined && name in own);
}

function knownProfiles(own: TopologyFile["profiles"]): string {
  return `known: ${[...BUILT_IN_PROFILES, ...Object.keys(own ?? {})].join(", ")}`;
}

export function nodeByName(topo: Topology, name: string): TopoNode | undefined {
  return topo.nodes.find((n) => n.name === name);
}

export function switches(topo: Topology): TopoNode[] {
  return topo.nodes.filter((n) => n.kind === NodeKind.Switch);
}

export function hosts(topo: Topology): TopoNode[] {
  return topo.nodes.filter((n) => n.kind === NodeKind.Host);
}

/** The link attached to node:port, and the endpoint at its other end. */
export function linkAt(
  topo: Topology,
  node: string,
  port: number,
): { link: TopoLink; peer: TopoEndpoint } | null {
  let index = linkIndexes.get(topo);
  if (index === undefined) {
    // A topology is not changed once made: index its links on first use (the lint and the path planners
    // ask for every hop of every path; a scan of 3,072 links each time took a minute on a k = 16 fat tree).
    index = new Map();
    for (const link of topo.links) {
      const a = `${link.a.node}\u0000${link.a.port}`;
      const b = `${link.b.node}\u0000${link.b.port}`;
      if (!index.has(a)) index.set(a, { link, peer: link.b });
      if (!index.has(b)) index.set(b, { link, peer: link.a });
    }
    linkIndexes.set(topo, index);
  }
  return index.get(`${node}\u0000${port}`) ?? null;
}

const linkIndexes = new WeakMap<Topology, Map<string, { link: TopoLink; peer: TopoEndpoint }>>();
