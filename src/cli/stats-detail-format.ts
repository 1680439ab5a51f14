// What `rocelab stats SWITCH` prints of the feature tables in a switch's stats beyond LLDP and path
// navigation: the flow paths (each RoCEv2 flow's egress ports and split), the elephant table (each flow's
// bytes and class) and the VTEP (VNI, ECN overlay, per-tunnel encap/decap and CE each way).

import { formatSize } from "../device/units.js";
import { memberWord } from "../switch/features/lag-state.js";
import type { SwitchDetail } from "../switch/stats-types.js";
import { ipToString } from "../wire/bytes.js";

/** The lab's hosts by IPv4 address (host order). */
export type HostNames = ReadonlyMap<number, string>;

/** A host's name where the lab knows the address, else the dotted address (a tunnel end, a foreign host). */
export function hostText(ip: number, names: HostNames): string {
  return names.get(ip) ?? ipToString(ip);
}

/** Rows each table prints unless `all`. */
const SHOWN = 32;

function more(total: number, shown: number): string[] {
  return total > shown ? [`  ... ${total - shown} more (--all lists every one)`] : [];
}

export function switchDetailLines(
  d: SwitchDetail | undefined,
  all: boolean,
  names: HostNames = new Map(),
): string[] {
  const lines: string[] = [];
  const limit = all ? Number.POSITIVE_INFINITY : SHOWN;
  if (d?.flowPaths && d.flowPaths.length > 0) {
    lines.push("", "flow paths (RoCEv2 flows by bytes: egress ports, packets, bytes, share):");
    for (const f of d.flowPaths.slice(0, limit)) {
      const total = f.ports.reduce((a, p) => a + p.bytes, 0);
      const ports = f.ports
        .map(
          (p) =>
            `eth${p.port} ${p.packets} pkts ${formatSize(p.bytes)} (${total > 0 ? Math.round((p.bytes / total) * 100) : 0}%)`,
        )
        .join(", ");
      lines.push(
        `  ${hostText(f.srcIp, names)} -> ${hostText(f.dstIp, names)} qp ${f.destQp}${f.vxlan ? " (VXLAN)" : ""}: ${ports}`,
      );
    }
    lines.push(...more(d.flowPaths.length, Math.min(limit, d.flowPaths.length)));
  }
  if (d?.elephants && d.elephants.length > 0) {
    lines.push("", "elephant table (flows by bytes):");
    for (const f of d.elephants.slice(0, limit))
      lines.push(
        `  ${`${hostText(f.srcIp, names)}:${f.srcPort} -> ${hostText(f.dstIp, names)}:${f.dstPort}${f.destQp >= 0 ? ` qp ${f.destQp}` : ""}`.padEnd(48)} ${formatSize(f.bytes).padStart(9)}  ${f.elephant ? "elephant" : "mice"}`,
      );
    lines.push(...more(d.elephants.length, Math.min(limit, d.elephants.length)));
  }
  for (const g of d?.lag ?? []) {
    lines.push(
      "",
      `link aggregation ${g.name} (${g.mode}, ${g.balance}${g.balance === "hash" ? ` over ${g.hash.join(", ")}` : ""}):`,
      "  member  state     mux                      partner",
    );
    for (const m of g.members) {
      const partner =
        m.partner === null ? "-" : `${m.partner.system} key ${m.partner.key} port ${m.partner.port}`;
      lines.push(
        `  ${m.name.padEnd(7)} ${memberWord(m).padEnd(9)} ${(m.mux ?? "static").padEnd(24)} ${partner}`,
      );
    }
  }
  const v = d?.vtep;
  if (v) {
    lines.push(
      "",
      `VTEP ${ipToString(v.address)}, VNI ${v.vni}, ECN overlay ${v.ecn ? "on (outer CE copied to the inner header)" : "off (outer CE discarded)"}:`,
      "  tunnel to          hosts  encap pkts  encap bytes  CE in->out  decap pkts  decap bytes  outer CE  CE out->in  CE lost",
    );
    for (const t of v.tunnels)
      lines.push(
        `  ${ipToString(t.remote).padEnd(18)} ${String(t.hosts).padStart(5)}  ${String(t.encapPackets).padStart(10)}  ${formatSize(t.encapBytes).padStart(11)}  ${String(t.encapCe).padStart(10)}  ${String(t.decapPackets).padStart(10)}  ${formatSize(t.decapBytes).padStart(11)}  ${String(t.outerCe).padStart(8)}  ${String(t.ceCopied).padStart(10)}  ${String(t.ceLost).padStart(7)}`,
      );
  }
  return lines;
}
