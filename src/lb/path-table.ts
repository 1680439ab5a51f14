// Path navigation's per-flow table (network mode): exact-match entries a controller installs — (source IP,
// destination IP, UDP source port) of a RoCEv2 flow → the out-port of its planned path — consulted by the
// forward stage before the load-balancing strategy (H3C RoCE overview §1.4.4, "网侧预选"). Kept in the shared
// FlowTable primitive; no allocation per packet.
//
// The costs H3C names against this mode are modelled (docs/path-navigation.md, "Network mode's costs"):
// - capacity: the table holds `capacity` entries; an entry that does not fit is refused, and its flow is
//   forwarded by ECMP (its packets are counted as `overflowPackets`);
// - install latency: the switch writes entries one after another, `installNs` each (so at most 1/installNs
//   writes per second: the refresh rate). A new or changed entry is in force only once written; until then
//   the flow keeps what it had (the old entry's port, or ECMP for a new one), counted as `pending`;
// - failover: when a port goes down, an entry whose port it is fails. With failover "fallback" the data
//   plane skips it at once and ECMP forwards the packet (H3C: "the flow table fails, the switch falls back
//   to the ECMP FIB"). With "refresh" the switch's software must rewrite each such entry (a write like any
//   other, in the same queue) and until then the entry still sends its packets to the dead port, where they
//   are lost (`blackholed`) — H3C: "the Traffic Matrix flow table's ACLs refresh slowly, so a failover loses
//   more packets".
// Removing an entry takes effect at once. Entries never age: the controller replaces the whole table when
// it re-plans; entries it keeps unchanged are not rewritten.

import type { Nanoseconds } from "../device/contract.js";
import { ROCEV2_UDP_PORT } from "../wire/udp.js";
import type { EcmpGroup, EcmpMember } from "./ecmp-group.js";
import { FlowTable } from "./flow-table.js";
import type { FlowFields } from "./strategy.js";

/** Consulted before the strategy: a member of the group, or null to let the strategy choose. */
export interface LbOverride {
  select(meta: FlowFields, group: EcmpGroup, now: Nanoseconds): EcmpMember | null;
}

export interface PathEntry {
  readonly srcIp: number;
  readonly dstIp: number;
  readonly srcPort: number;
  /** The out-port of the planned path at this switch. */
  readonly port: number;
}

export const PathFailover = { Fallback: "fallback", Refresh: "refresh" } as const;
export type PathFailover = (typeof PathFailover)[keyof typeof PathFailover];

export interface PathTableTiming {
  /** Time to write one entry, ns (writes are serial). */
  readonly installNs: Nanoseconds;
  readonly failover: PathFailover;
}

export interface PathTableCounters {
  /** Packets forwarded by an entry in force. */
  hits: number;
  /** Packets whose entry's port was down (or not a member of the route): ECMP took them. */
  fallbacks: number;
  /** Entries refused because the table was full. */
  overflows: number;
  /** Packets of a flow whose entry was refused: ECMP took them. */
  overflowPackets: number;
  /** Packets whose entry was not written yet: the previous entry (or ECMP) took them. */
  pending: number;
  /** Packets an entry still sent to its dead port because the switch had not refreshed it yet. */
  blackholed: number;
  /** Entry writes (installs, changes, failover refreshes). */
  writes: number;
}

const NONE = -1;

export class PathTable implements LbOverride {
  private readonly table: FlowTable;
  /** Per slot: the entry's port (NONE: free slot), the port before its write completes, when it does. */
  private readonly ports: Int32Array;
  private readonly prevPorts: Int32Array;
  private readonly activeAt: Float64Array;
  /** Per slot: when the switch has refreshed the entry after its port went down (failover "refresh"). */
  private readonly refreshAt: Float64Array;
  private overflow: FlowTable | null = null;
  private readonly key = new Uint32Array(3);
  private entryList: readonly PathEntry[] = [];
  /** Entries the last replace refused (the table was full). */
  lastRefused = 0;
  /** When the switch's entry writer is free again. */
  private busyUntil: Nanoseconds = 0;
  readonly counters: PathTableCounters = {
    hits: 0,
    fallbacks: 0,
    overflows: 0,
    overflowPackets: 0,
    pending: 0,
    blackholed: 0,
    writes: 0,
  };

  constructor(
    readonly capacity: number,
    readonly timing: PathTableTiming = { installNs: 0, failover: PathFailover.Fallback },
  ) {
    this.table = new FlowTable(capacity, 3, Number.POSITIVE_INFINITY);
    this.ports = new Int32Array(capacity).fill(NONE);
    this.prevPorts = new Int32Array(capacity).fill(NONE);
    this.activeAt = new Float64Array(capacity);
    this.refreshAt = new Float64Array(capacity);
  }

  get size(): number {
    return this.table.size;
  }

  get entries(): readonly PathEntry[] {
    return this.entryList;
  }

  /** Entries whose write has not completed at `now`. */
  pendingEntries(now: Nanoseconds): number {
    let n = 0;
    for (let s = 0; s < this.capacity; s++) if (this.ports[s]! !== NONE && this.activeAt[s]! > now) n++;
    return n;
  }

  /** Replaces every entry at `now`; returns how many did not fit. Unchanged entries are not rewritten. */
  replace(entries: readonly PathEntry[], now: Nanoseconds = 0): number {
    const old = this.snapshotAndClear();
    const start = Math.max(now, this.busyUntil);
    let writes = 0;
    const kept: PathEntry[] = [];
    const refusedKeys: PathEntry[] = [];
    for (const e of entries) {
      this.setKey(e.srcIp, e.dstIp, e.srcPort);
      const slot = this.table.insert(this.key, 0);
      if (slot < 0) {
        refusedKeys.push(e);
        continue;
      }
      if (this.ports[slot]! !== NONE) {
        this.ports[slot] = e.port; // the same flow twice in one list: the last entry counts
        continue;
      }
      kept.push(e);
      this.ports[slot] = e.port;
      const o = old.get(keyText(e));
      if (o !== undefined && o.port === e.port) {
        this.prevPorts[slot] = o.prev;
        this.activeAt[slot] = o.activeAt;
        this.refreshAt[slot] = o.refreshAt;
        continue;
      }
      writes++;
      this.prevPorts[slot] = o === undefined ? NONE : now >= o.activeAt ? o.port : o.prev;
      this.activeAt[slot] = start + writes * this.timing.installNs;
      this.refreshAt[slot] = o?.refreshAt ?? 0;
    }
    if (writes > 0) this.busyUntil = start + writes * this.timing.installNs;
    this.counters.writes += writes;
    this.entryList = kept;
    this.counters.overflows += refusedKeys.length;
    this.lastRefused = refusedKeys.length;
    this.overflow = null;
    if (refusedKeys.length > 0) {
      this.overflow = new FlowTable(refusedKeys.length, 3, Number.POSITIVE_INFINITY);
      for (const e of refusedKeys) {
        this.setKey(e.srcIp, e.dstIp, e.srcPort);
        this.overflow.insert(this.key, 0);
      }
    }
    return refusedKeys.length;
  }

  /** `port` lost carrier at `now`: with failover "refresh", its entries are queued for rewriting. */
  linkDown(port: number, now: Nanoseconds): void {
    if (this.timing.failover !== PathFailover.Refresh) return;
    let t = Math.max(now, this.busyUntil);
    for (let s = 0; s < this.capacity; s++) {
      if (this.ports[s]! === NONE) continue;
      if (this.ports[s]! !== port && this.prevPorts[s]! !== port) continue;
      t += this.timing.installNs;
      this.refreshAt[s] = t;
      this.counters.writes++;
    }
    this.busyUntil = t;
  }

  /**
   * The member to use, or null for the strategy. May return a member that is down (failover "refresh",
   * entry not refreshed yet): the forward stage then drops the packet, as the dead port would.
   */
  select(m: FlowFields, group: EcmpGroup, now: Nanoseconds): EcmpMember | null {
    if (m.dstPort !== ROCEV2_UDP_PORT) return null;
    this.setKey(m.srcIp, m.dstIp, m.srcPort);
    const slot = this.table.lookup(this.key, now);
    if (slot < 0) {
      if (this.overflow !== null && this.overflow.lookup(this.key, now) >= 0) this.counters.overflowPackets++;
      return null;
    }
    let port = this.ports[slot]!;
    if (now < this.activeAt[slot]!) {
      this.counters.pending++;
      port = this.prevPorts[slot]!;
      if (port === NONE) return null;
    }
    const members = group.members;
    for (let i = 0; i < members.length; i++) {
      if (members[i]!.port !== port) continue;
      if (group.isUp(i)) {
        this.counters.hits++;
        return members[i]!;
      }
      if (now < this.refreshAt[slot]!) {
        this.counters.blackholed++;
        return members[i]!;
      }
      break;
    }
    this.counters.fallbacks++;
    return null;
  }

  private setKey(srcIp: number, dstIp: number, srcPort: number): void {
    this.key[0] = srcIp;
    this.key[1] = dstIp;
    this.key[2] = srcPort;
  }

  private snapshotAndClear(): Map<
    string,
    { port: number; prev: number; activeAt: number; refreshAt: number }
  > {
    const old = new Map<string, { port: number; prev: number; activeAt: number; refreshAt: number }>();
    for (let s = 0; s < this.capacity; s++) {
      if (this.ports[s]! === NONE) continue;
      const k = `${this.table.keyWord(s, 0)},${this.table.keyWord(s, 1)},${this.table.keyWord(s, 2)}`;
      old.set(k, {
        port: this.ports[s]!,
        prev: this.prevPorts[s]!,
        activeAt: this.activeAt[s]!,
        refreshAt: this.refreshAt[s]!,
      });
      this.table.delete(s);
      this.ports[s] = NONE;
      this.prevPorts[s] = NONE;
    }
    return old;
  }
}

function keyText(e: PathEntry): string {
  return `${e.srcIp >>> 0},${e.dstIp >>> 0},${e.srcPort >>> 0}`;
}
