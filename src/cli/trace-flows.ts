// `rocelab trace --flows`: the path of every QP of a live lab's workloads, each probed with the UDP source
// port its NIC uses now (so path navigation's host-mode ports and network-mode entries show in it).

import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import type { TraceHop } from "./lab-commands.js";

export interface FlowPath {
  readonly src: string;
  readonly dst: string;
  readonly qpn: number;
  readonly udpSrcPort: number;
  /** The switches the probes of this QP's 5-tuple crossed, in order. */
  readonly switches: readonly string[];
  readonly hops: readonly TraceHop[];
}

/** Every workload QP's path: the lab's flows, each QP's source port from its NIC, probed like `trace`. */
export async function traceFlows(
  lab: LiveLab,
  trace: (lab: LiveLab, src: string, dst: string, sport: number) => Promise<readonly TraceHop[]>,
): Promise<FlowPath[]> {
  const flows = await lab.request<{ src: string; dst: string; qp: number }[]>("flows");
  const seen = new Set<string>();
  const out: FlowPath[] = [];
  for (const f of flows) {
    const key = `${f.src}#${f.qp}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = await lab.request<{ stats: AnyDeviceStats }>("stats", { node: f.src });
    const qp = r.stats.kind === "nic" ? r.stats.detail.qps.find((q) => q.qpn === f.qp) : undefined;
    if (qp === undefined) continue;
    const hops = await trace(lab, f.src, f.dst, qp.udpSrcPort);
    const switches = hops.flatMap((h) => (h.port === null ? [] : [h.port.split(":")[0]!]));
    out.push({ src: f.src, dst: f.dst, qpn: f.qp, udpSrcPort: qp.udpSrcPort, switches, hops });
  }
  return out;
}

export function formatFlowPaths(paths: readonly FlowPath[]): string {
  if (paths.length === 0) return "no workload QPs in this lab (start one: rocelab inject incast ...)";
  return paths
    .map(
      (p) =>
        `${`${p.src} -> ${p.dst}`.padEnd(14)} qp ${String(p.qpn).padEnd(5)} sport ${String(p.udpSrcPort).padEnd(6)} ${[...p.switches, p.dst].join(" > ")}`,
    )
    .join("\n");
}
