// What `rocelab status` and `rocelab stats` print: tables a person reads, so counters show as the numbers
// they are (no float noise from summed nanoseconds) and no header stands without rows under it.

import { formatDuration, formatRate, formatSize } from "../device/units.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { TopologyView } from "../lab/lab.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { lldpNeighbourText } from "../report/report.js";
import { ipToString } from "../wire/bytes.js";
import { switchDetailLines } from "./stats-detail-format.js";

/** A counter as printed: integers as they are, fractions (time sums) to at most three decimals. */
export function formatCounter(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
}

/** `status`: the lab, then one row per device (hosts with their address, for ping and trace), then links. */
export function formatStatus(s: LabStatus, topology?: TopologyView): string {
  const ips = new Map((topology?.nodes ?? []).map((n) => [n.name, n.ip]));
  const address = (node: string) => {
    const ip = ips.get(node);
    return ip === undefined ? "-" : ipToString(ip);
  };
  const lines = [
    `lab ${s.lab}: ${s.status}, topology ${s.topology}, dilation ${s.dilation}${s.dilationAuto ? " (auto)" : ""}, emulated time ${formatDuration(s.now)}, ${s.clock} clocks${s.clock === "synced" ? ` (${formatDuration(s.behindNs)} behind real time / dilation)` : ""}`,
    ...(s.metrics !== undefined ? [`Prometheus metrics: ${s.metrics}`] : []),
    "",
    "device      kind    address          status    pid      restarts  loop lag p99  timer late  cpu      clock held  holds  silent>grace (worst)  unstamped",
  ];
  for (const d of s.devices) {
    const h = d.health;
    const sync = h?.sync
      ? `${formatDuration(h.sync.heldNs).padEnd(11)} ${String(h.sync.holds).padEnd(6)} ${`${h.sync.graceExceeded} (${h.sync.worstSilenceMs.toFixed(1)} ms)`.padEnd(20)} ${h.sync.unstamped}`
      : "-";
    lines.push(
      `${d.node.padEnd(11)} ${d.kind.padEnd(7)} ${address(d.node).padEnd(16)} ${d.status.padEnd(9)} ${String(d.pid ?? "-").padEnd(8)} ${String(d.restarts).padEnd(9)} ${h ? `${h.lagP99Ms.toFixed(1)} ms`.padEnd(13) : "-".padEnd(13)} ${h ? formatDuration(Math.round(h.timerLateMeanNs)).padEnd(11) : "-".padEnd(11)} ${(h ? `${h.cpuSeconds.toFixed(1)} s` : "-").padEnd(8)} ${sync}`,
    );
  }
  lines.push("", "links:");
  for (const l of s.links)
    lines.push(
      `  ${l.a.padEnd(14)} <-> ${l.b.padEnd(14)} ${l.up ? "up" : "DOWN"}  ${formatRate(l.rateBps)}b/s`,
    );
  return lines.join("\n");
}

export function formatStats(s: AnyDeviceStats, all: boolean): string {
  const keep = (v: number) => all || v !== 0;
  const row = (k: string, v: number) => `  ${k.padEnd(36)} ${formatCounter(v)}`;
  const lines = [`${s.name} (${s.kind}) at ${formatDuration(s.now)} emulated`, ""];
  const device = Object.entries(s.counters).filter(([, v]) => keep(v));
  if (device.length > 0) {
    lines.push("device:");
    for (const [k, v] of device) lines.push(row(k, v));
  }
  for (const p of s.ports) {
    if (s.kind === "nic") continue; // a NIC's port table repeats its device counters (ethtool -S style)
    const rows = Object.entries(p.counters)
      .filter(([, v]) => keep(v))
      .map(([k, v]) => row(k, v));
    for (const q of p.queues ?? []) {
      const qc = Object.entries(q.counters).filter(([, v]) => keep(v));
      if (qc.length === 0 && q.depthBytes === 0 && !q.paused) continue;
      rows.push(
        `  queue ${q.queue}: depth ${formatSize(q.depthBytes)}${q.paused ? " PAUSED" : ""}  ${qc.map(([k, v]) => `${k}=${formatCounter(v)}`).join(" ")}`,
      );
    }
    // A port with nothing to show gets no header (unless it is down, which is news).
    if (rows.length > 0 || !p.up) lines.push("", `${p.name}${p.up ? "" : " (DOWN)"}:`, ...rows);
  }
  if (s.kind === "switch" && s.detail?.lldp) {
    lines.push("", "LLDP neighbours:");
    const heard = new Map(s.detail.lldp.neighbours.map((n) => [n.port, n]));
    for (const p of s.detail.lldp.ports) {
      const n = heard.get(p.port);
      const ttl = n ? ` (TTL ${n.ttlSeconds} s)` : "";
      lines.push(`  ${p.name.padEnd(8)} ${n ? lldpNeighbourText(n) : p.up ? "-" : "(down)"}${ttl}`);
    }
  }
  if (s.kind === "switch" && s.detail?.pathTable) {
    lines.push("", "path-navigation entries:");
    for (const e of s.detail.pathTable)
      lines.push(`  ${ipToString(e.srcIp)} -> ${ipToString(e.dstIp)} sport ${e.srcPort}: eth${e.port}`);
  }
  if (s.kind === "switch") lines.push(...switchDetailLines(s.detail, all));
  const port = s.kind === "nic" ? s.ports[0] : undefined;
  if (port) {
    const rows = Object.entries(port.counters)
      .filter(([k, v]) => /prio\d/.test(k) && keep(v))
      .map(([k, v]) => row(k, v));
    if (rows.length > 0) lines.push("", `${port.name} (priority pause counters):`, ...rows);
  }
  return lines.join("\n");
}
