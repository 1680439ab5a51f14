// Pure derivations from lab snapshots: what each port did between two snapshots (utilisation from wire
// time, pause fractions from pause time, counter deltas), link rows, fabric tiers, per-QP goodput, totals.
// All rates are over emulated time, from the counters' own `now`, so they read the same at any dilation.

import type { PortStats } from "../device/contract.js";
import { type CounterDef, readCounter } from "../device/counters.js";
import { PfcCounter } from "../device/l2/pfc-counters.js";
import { PortCounter } from "../device/l2/port-counters.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { LabSnapshot, LinkView } from "../lab/lab.js";
import { NicCounter } from "../nic/counters.js";
import type { QpStats } from "../nic/stats-types.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import { PfcWatchdogCounter } from "../switch/features/pfc-watchdog.js";
import { PRIORITIES } from "../wire/pfc.js";
import { dottedQuad, NATURAL, type PeerNamer } from "./peer-names.js";

/** 802.1p priorities a port has (PFC and queue counters are kept per priority). */

/** A queue at least this deep counts as congested even before it marks (bytes). */
export const CONGESTED_BYTES = 100_000;

/** What one port did between two snapshots, and its state now. */
export interface PortMetrics {
  readonly node: string;
  readonly port: number;
  readonly up: boolean;
  /** Fraction of the interval the wire was busy sending; null without an earlier sample. */
  readonly util: number | null;
  /** Fraction of the interval the most-paused priority of this egress was stopped by the peer's PFC. */
  readonly pausedFrac: number;
  /** An egress queue is stopped by a received PFC right now. */
  readonly pausedNow: boolean;
  /** Fraction of the interval this port held its peer paused (XOFF sent), most-paused priority. */
  readonly xoffFrac: number;
  /** This port holds its peer paused right now (an ingress priority group is in XOFF). */
  readonly xoffNow: boolean;
  /** Bytes queued for this egress now (all queues). */
  readonly queueBytes: number;
  /** The deepest any of its queues has been (bytes). */
  readonly watermarkBytes: number;
  /** CE marks on this egress, cumulative and during the interval. */
  readonly ecnMarked: number;
  readonly ecnDelta: number;
  /** Drops at this egress (queue drops and WRED drops), cumulative and during the interval. */
  readonly drops: number;
  readonly dropDelta: number;
  /** PFC XOFF frames this port sent / received, all priorities, cumulative. */
  readonly txPause: number;
  readonly rxPause: number;
  readonly txPauseDelta: number;
  readonly rxPauseDelta: number;
  /** The PFC watchdog holds a priority of this port stormed (1) or latched (2), else 0. */
  readonly watchdog: number;
}

/** A link and what each direction did: `ab` is a's egress (traffic a→b), `ba` is b's. */
export interface LinkRow {
  readonly id: number;
  readonly a: string;
  readonly b: string;
  readonly up: boolean;
  readonly rateBps: number;
  readonly ab: PortMetrics | null;
  readonly ba: PortMetrics | null;
  /** What the link table shows instead of "a ↔ b" (an aggregation group's row and its members'). */
  readonly label?: string;
}

/** A node at a glance, for the fabric diagram. */
export interface NodeState {
  readonly name: string;
  readonly kind: "switch" | "host";
  /** The device process: "running", "killed", "crashed", "starting", "stopped", or "unknown". */
  readonly status: string;
  readonly running: boolean;
  /** A queue built up or marked CE during the last interval. */
  readonly congested: boolean;
  /** It held a peer paused (sent XOFF) during the last interval. */
  readonly pausing: boolean;
  /** A peer paused one of its egresses during the last interval. */
  readonly paused: boolean;
  /** It dropped packets during the last interval. */
  readonly dropping: boolean;
  /** Its PFC watchdog holds a port stormed or latched (a PFC storm or deadlock being recovered). */
  readonly stormed: boolean;
}

/** One QP of one host and how it moves. */
export interface QpRow {
  /** "host/qpn" */
  readonly key: string;
  readonly host: string;
  readonly qpn: number;
  /** The host at the other end (or its address when unknown). */
  readonly peer: string;
  /** "tx": it sends (requester), "rx": it receives, "idle": nothing moved yet. */
  readonly role: "tx" | "rx" | "idle";
  readonly rateBps: number;
  readonly targetRateBps: number;
  readonly alpha: number;
  /** The congestion window (HPCC, DCTCP), bytes; TIMELY's last RTT, ns; HPCC's utilisation U (0: none). */
  readonly windowBytes: number;
  readonly rttNs: number;
  readonly utilisation: number;
  /** Payload bits/s acknowledged (tx) or delivered (rx) during the interval; null without an earlier sample. */
  readonly goodputBps: number | null;
  readonly bytes: number;
  readonly cnpHandled: number;
  readonly cnpSent: number;
  readonly ecnMarked: number;
  readonly retransmits: number;
  readonly pending: number;
  readonly inflight: number;
  readonly paused: boolean;
  /** "error": the QP failed (its requests completed with an error or flushed; it sends nothing). */
  readonly state: "rts" | "error";
}

/** Fabric-wide cumulative counters (they restart with a restarted device). */
export interface FabricTotals {
  /** PFC XOFF frames sent by switches and NICs. */
  readonly xoffSent: number;
  /** CE marks by switches. */
  readonly ecnMarked: number;
  /** CNPs sent by notification points (receivers). */
  readonly cnpSent: number;
  /** CNPs reaction points acted on (senders). */
  readonly cnpHandled: number;
  readonly droppedLossless: number;
  readonly droppedLossy: number;
}

/** cur − prev for a cumulative counter; 0 when there is no earlier value or the counter restarted. */
export function counterDelta(cur: number, prev: number | undefined): number {
  if (prev === undefined || cur < prev) return 0;
  return cur - prev;
}

/** The fraction of `dtNs` a cumulative time counter advanced (0..1). */
function timeFraction(cur: number, prev: number | undefined, dtNs: number): number {
  if (dtNs <= 0) return 0;
  return Math.min(1, counterDelta(cur, prev) / dtNs);
}

/** A per-queue counter summed over a port's queues (a switch's ports have queues; a NIC's none). */
function sumQueues(p: PortStats, def: CounterDef): number {
  let s = 0;
  for (const q of p.queues ?? []) s += readCounter(q.counters, def);
  return s;
}

/** A per-priority counter of a port summed over the priorities. */
function sumPriorities(p: PortStats, def: CounterDef): number {
  let s = 0;
  for (let priority = 0; priority < PRIORITIES; priority++) s += readCounter(p.counters, def, { priority });
  return s;
}

/** Metrics of every port of one device, keyed "node:ethN", from its stats now and (if any) before. */
export function portMetrics(cur: AnyDeviceStats, prev: AnyDeviceStats | undefined): Map<string, PortMetrics> {
  const out = new Map<string, PortMetrics>();
  const dt = prev ? cur.now - prev.now : 0;
  const nic = cur.kind === "nic";
  const detail = cur.kind === "nic" ? cur.detail : undefined;
  for (const p of cur.ports) {
    const before = prev?.ports.find((x) => x.port === p.port);
    const pc = p.counters;
    const bc = before?.counters;
    // Both devices keep the PFC counters under the same (mlx5) names; PG XOFF and the watchdog are a
    // switch's.
    const at = (t: Readonly<Record<string, number>> | undefined, def: CounterDef, priority: number) =>
      t === undefined ? undefined : readCounter(t, def, { priority });
    let pausedFrac = 0;
    let xoffFrac = 0;
    let xoffNow = false;
    let watchdog = 0;
    for (let priority = 0; priority < PRIORITIES; priority++) {
      const paused = PfcCounter.rxPauseDuration;
      const xoff = PfcCounter.txPauseDuration;
      pausedFrac = Math.max(
        pausedFrac,
        timeFraction(at(pc, paused, priority)!, at(bc, paused, priority), dt),
      );
      xoffFrac = Math.max(xoffFrac, timeFraction(at(pc, xoff, priority)!, at(bc, xoff, priority), dt));
      if (nic) continue;
      if (readCounter(pc, SwitchCounter.pgXoff, { priority }) > 0) xoffNow = true;
      watchdog = Math.max(watchdog, readCounter(pc, PfcWatchdogCounter.state, { priority }));
    }
    if (nic && detail?.rxBuffer.xoff) xoffNow = true;
    const pausedNow = nic
      ? (detail?.qps.some((q) => q.paused) ?? false)
      : (p.queues ?? []).some((q) => q.paused);
    const ecnMarked = sumQueues(p, SwitchCounter.ecnMarked);
    const drops = sumQueues(p, SwitchCounter.queueDropped) + sumQueues(p, SwitchCounter.wredDropped);
    const txPause = sumPriorities(p, PfcCounter.txPause);
    const rxPause = sumPriorities(p, PfcCounter.rxPause);
    const busy = PortCounter.txBusy;
    out.set(`${cur.name}:eth${p.port}`, {
      node: cur.name,
      port: p.port,
      up: p.up,
      util: bc && dt > 0 ? timeFraction(readCounter(pc, busy), readCounter(bc, busy), dt) : null,
      pausedFrac,
      pausedNow,
      xoffFrac,
      xoffNow,
      watchdog,
      queueBytes: (p.queues ?? []).reduce((a, q) => a + q.depthBytes, 0),
      watermarkBytes: Math.max(
        0,
        ...(p.queues ?? []).map((q) => readCounter(q.counters, SwitchCounter.watermark)),
      ),
      ecnMarked,
      ecnDelta: before ? counterDelta(ecnMarked, sumQueues(before, SwitchCounter.ecnMarked)) : 0,
      drops,
      dropDelta: before
        ? counterDelta(
            drops,
            sumQueues(before, SwitchCounter.queueDropped) + sumQueues(before, SwitchCounter.wredDropped),
          )
        : 0,
      txPause,
      rxPause,
      txPauseDelta: before ? counterDelta(txPause, sumPriorities(before, PfcCounter.txPause)) : 0,
      rxPauseDelta: before ? counterDelta(rxPause, sumPriorities(before, PfcCounter.rxPause)) : 0,
    });
  }
  return out;
}

/** Metrics of every port in the fabric, from two consecutive snapshots. */
export function fabricPortMetrics(cur: LabSnapshot, prev: LabSnapshot | null): Map<string, PortMetrics> {
  const out = new Map<string, PortMetrics>();
  for (const [node, stats] of Object.entries(cur.stats)) {
    for (const [k, m] of portMetrics(stats, prev?.stats[node])) out.set(k, m);
  }
  return out;
}

/** Link rows in the snapshot's order (its links carry the current up/down state). */
export function linkRows(links: readonly LinkView[], ports: ReadonlyMap<string, PortMetrics>): LinkRow[] {
  return links.map((l) => ({
    id: l.id,
    a: l.a,
    b: l.b,
    up: l.up,
    rateBps: l.rateBps,
    ab: ports.get(l.a) ?? null,
    ba: ports.get(l.b) ?? null,
  }));
}

/** The link attached to `node`:eth`port`, and the far end. */
export function peerOf(
  links: readonly LinkView[],
  node: string,
  port: number,
): { link: LinkView; peer: string } | null {
  const me = `${node}:eth${port}`;
  for (const l of links) {
    if (l.a === me) return { link: l, peer: l.b };
    if (l.b === me) return { link: l, peer: l.a };
  }
  return null;
}

function qpRole(q: QpStats): QpRow["role"] {
  if (q.bytesSent > 0 || q.pendingMessages > 0 || q.inflightPackets > 0) return "tx";
  if (q.bytesDelivered > 0 || q.readBytesReceived > 0) return "rx";
  return "idle";
}

/** Every QP of every host, with goodput over the interval between the two snapshots. */
export function qpRows(
  cur: LabSnapshot,
  prev: LabSnapshot | null,
  peerName: PeerNamer = dottedQuad,
): QpRow[] {
  const rows: QpRow[] = [];
  for (const [host, stats] of Object.entries(cur.stats)) {
    if (stats.kind !== "nic") continue;
    const detail = stats.detail;
    const before = prev?.stats[host];
    const beforeQps = before?.kind === "nic" ? before.detail.qps : undefined;
    const dt = before ? stats.now - before.now : 0;
    for (const q of detail.qps) {
      const role = qpRole(q);
      const bytes = role === "rx" ? q.bytesDelivered + q.readBytesReceived : q.bytesAcked;
      const b = beforeQps?.find((x) => x.qpn === q.qpn);
      const bytesBefore = b
        ? role === "rx"
          ? b.bytesDelivered + b.readBytesReceived
          : b.bytesAcked
        : undefined;
      rows.push({
        key: `${host}/${q.qpn}`,
        host,
        qpn: q.qpn,
        peer: peerName(q.remoteIp),
        role,
        rateBps: q.rateBps,
        targetRateBps: q.targetRateBps,
        alpha: q.alpha,
        windowBytes: q.windowBytes,
        rttNs: q.rttNs,
        utilisation: q.utilisation,
        goodputBps: b && dt > 0 ? (counterDelta(bytes, bytesBefore) * 8e9) / dt : null,
        bytes,
        cnpHandled: q.cnpHandled,
        cnpSent: q.cnpSent,
        ecnMarked: q.ecnMarked,
        retransmits: q.retransmits,
        pending: q.pendingMessages,
        inflight: q.inflightPackets,
        paused: q.paused,
        state: q.state,
      });
    }
  }
  // Hosts in natural order (h2 before h10), whatever order the devices answered in.
  return rows.sort((x, y) => NATURAL.compare(x.host, y.host) || x.qpn - y.qpn);
}

/** Fabric-wide totals from the cumulative counters of one snapshot. */
export function fabricTotals(s: LabSnapshot): FabricTotals {
  let xoffSent = 0;
  let ecnMarked = 0;
  let cnpSent = 0;
  let cnpHandled = 0;
  let droppedLossless = 0;
  let droppedLossy = 0;
  for (const stats of Object.values(s.stats)) {
    // Switches and NICs keep tx_prio<p>_pause alike.
    for (const p of stats.ports) xoffSent += sumPriorities(p, PfcCounter.txPause);
    if (stats.kind === "switch") {
      droppedLossless += readCounter(stats.counters, SwitchCounter.droppedLossless);
      droppedLossy += readCounter(stats.counters, SwitchCounter.droppedLossy);
      for (const p of stats.ports) ecnMarked += sumQueues(p, SwitchCounter.ecnMarked);
    } else {
      cnpSent += readCounter(stats.counters, NicCounter.npCnpSent);
      cnpHandled += readCounter(stats.counters, NicCounter.rpCnpHandled);
    }
  }
  return { xoffSent, ecnMarked, cnpSent, cnpHandled, droppedLossless, droppedLossy };
}

/** `items` appended to `list`, keeping the newest `max` (a new array; the inputs are not touched). */
export function appendBounded<T>(list: readonly T[], items: readonly T[], max: number): T[] {
  const all = list.length + items.length;
  if (all <= max) return [...list, ...items];
  const drop = all - max;
  return drop >= list.length ? items.slice(drop - list.length) : [...list.slice(drop), ...items];
}
