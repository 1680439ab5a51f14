// Placing a fabric's devices on several machines (`rocelab export containerlab --hosts a=IP,b=IP`): which
// machine runs which node, and which links therefore cross between machines (they become VXLAN tunnels).

import { isIP } from "node:net";
import { NodeKind, type TopoLink, type Topology } from "../scenario/topology.js";
import type { AddressFamily } from "./underlay.js";

/** A mistake in what the user asked for: the CLI prints the message and exits with status 2. */
export class ExportInputError extends Error {
  override readonly name = "ExportInputError";
}

export interface Machine {
  /** Short name: the file name of its topology (`<lab>.<name>.clab.yml`). */
  readonly name: string;
  /** Underlay address: the remote end of the VXLAN tunnels from other machines. */
  readonly address: string;
  readonly family: AddressFamily;
}

const MACHINE_NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** `a=192.0.2.1,b=192.0.2.2` (a bare address names the machine h1, h2, … by position). */
export function parseMachines(text: string): Machine[] {
  const entries = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (entries.length === 0) throw new ExportInputError("--hosts: name at least one machine, as NAME=ADDRESS");
  const machines = entries.map((entry, i): Machine => {
    const eq = entry.indexOf("=");
    const name = eq < 0 ? `h${i + 1}` : entry.slice(0, eq);
    const address = eq < 0 ? entry : entry.slice(eq + 1);
    if (!MACHINE_NAME.test(name))
      throw new ExportInputError(
        `--hosts: "${name}" is not a machine name (lowercase letters, digits and -, starting with a letter)`,
      );
    const version = isIP(address);
    if (version === 0)
      throw new ExportInputError(
        `--hosts: "${address}" (machine ${name}) is not an IPv4 or IPv6 address: containerlab's vxlan links ` +
          "take the remote machine's underlay address",
      );
    return { name, address, family: version === 6 ? "ipv6" : "ipv4" };
  });
  for (const key of ["name", "address"] as const) {
    const seen = new Set<string>();
    for (const m of machines) {
      if (seen.has(m[key])) throw new ExportInputError(`--hosts: ${key} ${m[key]} is given twice`);
      seen.add(m[key]);
    }
  }
  if (new Set(machines.map((m) => m.family)).size > 1)
    throw new ExportInputError(
      "--hosts: the machines' addresses must all be IPv4 or all IPv6 (one underlay)",
    );
  return machines;
}

/** `leaf1=a,spine1=b`: nodes the user pins to machines. */
export function parsePins(text: string, topo: Topology, machines: readonly Machine[]): Map<string, string> {
  const pins = new Map<string, string>();
  for (const entry of text.split(",").map((s) => s.trim())) {
    if (entry === "") continue;
    const [node, machine, extra] = entry.split("=");
    if (node === undefined || machine === undefined || extra !== undefined)
      throw new ExportInputError(`--place: "${entry}" is not NODE=MACHINE (for example leaf1=a)`);
    if (!topo.nodes.some((n) => n.name === node))
      throw new ExportInputError(
        `--place: no node ${node} in topology ${topo.name} (nodes: ${topo.nodes.map((n) => n.name).join(", ")})`,
      );
    if (!machines.some((m) => m.name === machine))
      throw new ExportInputError(
        `--place: no machine ${machine} in --hosts (machines: ${machines.map((m) => m.name).join(", ")})`,
      );
    if (pins.has(node)) throw new ExportInputError(`--place: ${node} is placed twice`);
    pins.set(node, machine);
  }
  return pins;
}

/**
 * Which machine runs each node. Pinned nodes go where they are pinned. Every other switch (and a host not
 * linked to a switch) goes, heaviest first (itself and the unpinned hosts that follow it), to the machine
 * with the fewest devices so far — on a tie, the one already holding most of its neighbours, then the
 * first named. An unpinned host follows the node its one link goes to (of two hosts linked back to back,
 * the second follows the first), so host links never cross machines unless a pin says so; in a leaf-spine
 * fabric only leaf-spine links cross.
 */
export function placeNodes(
  topo: Topology,
  machines: readonly Machine[],
  pins: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const placement = new Map<string, string>(pins);
  const load = new Map(machines.map((m) => [m.name, 0]));
  for (const machine of pins.values()) load.set(machine, load.get(machine)! + 1);
  const neighbours = new Map<string, string[]>(topo.nodes.map((n) => [n.name, []]));
  for (const l of topo.links) {
    neighbours.get(l.a.node)!.push(l.b.node);
    neighbours.get(l.b.node)!.push(l.a.node);
  }
  const kind = new Map(topo.nodes.map((n) => [n.name, n.kind]));
  const order = new Map(topo.nodes.map((n, i) => [n.name, i]));
  // The node a host goes with: the switch its one link goes to, or, for two hosts linked back to back,
  // the one named first.
  const leader = (name: string): string | undefined => {
    const peer = neighbours.get(name)![0];
    if (kind.get(name) !== NodeKind.Host || peer === undefined) return undefined;
    return kind.get(peer) === NodeKind.Switch || order.get(peer)! < order.get(name)! ? peer : undefined;
  };
  const riders = (name: string): string[] =>
    neighbours.get(name)!.filter((p) => leader(p) === name && !placement.has(p));
  // Hosts of pinned switches go with them before anything else is weighed.
  for (const [node, machine] of pins) {
    for (const r of riders(node)) {
      placement.set(r, machine);
      load.set(machine, load.get(machine)! + 1);
    }
  }
  const anchors = topo.nodes
    .filter((n) => !placement.has(n.name) && leader(n.name) === undefined)
    .map((n, order) => ({ name: n.name, weight: 1 + riders(n.name).length, order }))
    .sort((x, y) => y.weight - x.weight || x.order - y.order);
  for (const a of anchors) {
    let best = machines[0]!.name;
    let bestKey: [number, number] = [Number.POSITIVE_INFINITY, 0];
    for (const m of machines) {
      const near = neighbours.get(a.name)!.filter((p) => placement.get(p) === m.name).length;
      const key: [number, number] = [load.get(m.name)!, -near];
      if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = m.name;
        bestKey = key;
      }
    }
    placement.set(a.name, best);
    load.set(best, load.get(best)! + a.weight);
    for (const r of riders(a.name)) placement.set(r, best);
  }
  return placement;
}

/** The links whose two ends run on different machines. */
export function crossLinks(topo: Topology, placement: ReadonlyMap<string, string>): TopoLink[] {
  return topo.links.filter((l) => placement.get(l.a.node) !== placement.get(l.b.node));
}
