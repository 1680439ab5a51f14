// Whether a host can take part in a workload now: a killed or crashed NIC posts nothing and answers
// nothing, and a host whose every link is down (or whose every neighbour is not running) is unreachable.
// A workload from or to such a host is refused up front, naming it, in both runtimes — before, an incast
// including a killed host started, and ended "3 of 4 flows completed … the lab may be slow".

import type { FlowSpec } from "../nic/workloads.js";
import type { Topology } from "../scenario/topology.js";

/** What the check needs to know of the lab now. */
export interface LabNow {
  /** A device's status: "running", "killed", "crashed", "stopped", ... */
  status(node: string): string;
  linkDown(id: number): boolean;
}

/** Why `host` cannot send or receive now, or null when it can. */
export function hostProblem(topo: Topology, host: string, lab: LabNow): string | null {
  const status = lab.status(host);
  if (status !== "running") return `${host} is ${status} (rocelab inject restart ${host})`;
  const links = topo.links.filter((l) => l.a.node === host || l.b.node === host);
  const usable = links.filter((l) => {
    const peer = l.a.node === host ? l.b.node : l.a.node;
    return !lab.linkDown(l.id) && lab.status(peer) === "running";
  });
  if (links.length > 0 && usable.length === 0) {
    const why = links.map((l) => {
      const [me, peer] = l.a.node === host ? [l.a, l.b] : [l.b, l.a];
      return lab.linkDown(l.id)
        ? `${me.node}:eth${me.port} is down`
        : `its neighbour ${peer.node} is ${lab.status(peer.node)}`;
    });
    return `${host} is unreachable: ${why.join(", ")}`;
  }
  return null;
}

/** Refuses flows from or to a host that cannot take part, naming every such host (throws). */
export function refuseUnavailableHosts(
  topo: Topology,
  workload: string,
  flows: readonly FlowSpec[],
  lab: LabNow,
): void {
  const hosts = [...new Set(flows.flatMap((f) => [f.src, f.dst]))];
  const problems = hosts.map((h) => hostProblem(topo, h, lab)).filter((p): p is string => p !== null);
  if (problems.length > 0)
    throw new Error(`workload ${workload} refused, no flow started: ${problems.join("; ")}`);
}
