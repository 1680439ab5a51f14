// Node names inside a lab's namespaces. `ip netns exec NS` bind-mounts every file of /etc/netns/NS/ over
// /etc/ for the command it runs (ip-netns(8)), so a hosts file there makes `ping h8` work in a host's
// namespace, as Mininet users expect. Each lab's directories carry its namespaces' names (rl-<lab>-<node>)
// and go with the lab: `down` removes them, also after a crash, and so does netns/cleanup.

import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeNewFile } from "../../runtime/realtime/safe-files.js";
import { type AddressPlan, hostAddress } from "../../scenario/address-plan.js";
import { NodeKind, type Topology } from "../../scenario/topology.js";
import { ipToString } from "../../wire/bytes.js";
import { labOfNamespace, NS_PREFIX, nsName } from "./names.js";

export const NETNS_ETC = "/etc/netns";

/** The hosts file every namespace of the lab gets: localhost, then each host's address and name. */
export function hostsFile(lab: string, topo: Topology, plan: AddressPlan): string {
  const lines = [
    `# rocelab lab ${lab}: its hosts by name (written by rocelab up, removed by rocelab down).`,
    "# Switches are not here: a switch answers on each port's own address (rocelab trace shows them).",
    "127.0.0.1\tlocalhost",
  ];
  for (const n of topo.nodes)
    if (n.kind === NodeKind.Host) lines.push(`${ipToString(hostAddress(plan, n.name).ip)}\t${n.name}`);
  return `${lines.join("\n")}\n`;
}

/** Writes /etc/netns/<ns>/hosts for every node of the lab (what an earlier crash left there is replaced). */
export function writeNetnsHosts(lab: string, topo: Topology, plan: AddressPlan): void {
  mkdirSync(NETNS_ETC, { recursive: true, mode: 0o755 });
  if (lstatSync(NETNS_ETC).isSymbolicLink() || !lstatSync(NETNS_ETC).isDirectory())
    throw new Error(`${NETNS_ETC} is not a directory: rocelab does not write through links`);
  const text = hostsFile(lab, topo, plan);
  for (const n of topo.nodes) {
    const dir = join(NETNS_ETC, nsName(lab, n.name));
    // rmSync removes a link itself, never what it points to.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { mode: 0o755 });
    writeNewFile(join(dir, "hosts"), text, { mode: 0o644 });
  }
}

/** The /etc/netns directories of `lab` (exact lab match: rl-foo- never takes rl-foobar-'s). */
export function netnsEtcDirs(lab?: string): string[] {
  if (!existsSync(NETNS_ETC)) return [];
  return readdirSync(NETNS_ETC)
    .filter((d) => d.startsWith(NS_PREFIX) && (lab === undefined || labOfNamespace(d, [lab]) === lab))
    .map((d) => join(NETNS_ETC, d));
}

/** Removes the lab's /etc/netns directories; how many there were. */
export function removeNetnsHosts(lab: string): number {
  const dirs = netnsEtcDirs(lab);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  return dirs.length;
}
