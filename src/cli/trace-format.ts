// `rocelab trace`'s output: one 5-tuple's hops, or with --flows the path of every QP of a live lab's
// workloads, each probed with the UDP source port its NIC uses now (so path navigation's host-mode ports and
// network-mode entries show in it).

import { formatDuration } from "../device/units.js";
import type { FlowPath, TraceHop } from "../lab/live/trace.js";

export function formatFlowPaths(paths: readonly FlowPath[]): string {
  if (paths.length === 0) return "no workload QPs in this lab (start one: rocelab inject incast ...)";
  return paths
    .map(
      (p) =>
        `${`${p.src} -> ${p.dst}`.padEnd(14)} qp ${String(p.qpn).padEnd(5)} sport ${String(p.udpSrcPort).padEnd(6)} ${[...p.switches, p.dst].join(" > ")}`,
    )
    .join("\n");
}

export function formatTrace(src: string, dst: string, sport: number, hops: readonly TraceHop[]): string {
  const lines = [
    `trace ${src} -> ${dst}, UDP ${sport} -> 4791 (the ECMP path of this RoCE 5-tuple); round trips in emulated time, as ${src}'s NIC stamped probe and answer, and in real time`,
  ];
  for (const h of hops) {
    if (h.from === null) {
      lines.push(`  ${h.ttl}  ${dst} (destination: RoCE NICs do not answer probes)`);
      break;
    }
    const emulated = h.rttEmulatedNs === null ? "-" : formatDuration(h.rttEmulatedNs);
    lines.push(
      `  ${h.ttl}  ${(h.port ?? "?").padEnd(14)} ${h.from.padEnd(12)} ${`${emulated} emulated`.padEnd(18)} (${h.rttMs} ms real)`,
    );
  }
  return lines.join("\n");
}
