// What `rocelab status` and `rocelab stats` print: tables a person reads, so counters show as the numbers
// they are (no float noise from summed nanoseconds) and no header stands without rows under it.

import { formatDuration, formatRate, formatSize } from "../device/units.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { TopologyView } from "../lab/lab.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { lldpNeighbourText } from "../report/report.js";
import { ipToString } from "../wire/bytes.js";
import { type HostNames, hostText, switchDetailLines } from "./stats-detail-format.js";

/** What a gauge reports for a setting that is not configured (see the counters' help in the registry). */
const NOT_CONFIGURED = -1;

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

/** The lab's hosts by address, so that the stats text names them (`h1`) where it would print an address. */
export function hostNames(topology: TopologyView): HostNames {
  return new Map(topology.nodes.flatMap((n) => (n.ip === undefined ? [] : [[n.ip, n.name] as const])));
}

/**
 * `stats`: the counters that carry news. Zeros are left out unless `all`; a gauge's "-1" (the registry's
 * "not configured", e.g. `ecn_kmin_bytes` on a queue without WRED/ECN or `ai_ecn_level` before AI ECN
 * tunes) is always left out of the text (`--json` keeps every value); addresses of the lab's hosts print
 * as their names.
 */
export function formatStats(s: AnyDeviceStats, all: boolean, names: HostNames = new Map()): string {
  const keep = (v: number) => v !== NOT_CONFIGURED && (all || v !== 0);
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
      lines.push(
        `  ${hostText(e.srcIp, names)} -> ${hostText(e.dstIp, names)} sport ${e.srcPort}: eth${e.port}`,
      );
  }
  if (s.kind === "switch") lines.push(...switchDetailLines(s.detail, all, names));
  const port = s.kind === "nic" ? s.ports[0] : undefined;
  if (port) {
    const rows = Object.entries(port.counters)
      .filter(([k, v]) => /prio\d/.test(k) && keep(v))
      .map(([k, v]) => row(k, v));
    if (rows.length > 0) lines.push("", `${port.name} (priority pause counters):`, ...rows);
  }
  return lines.join("\n");
}
