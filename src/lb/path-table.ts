// Path navigation's per-flow table (network mode): exact-match entries a controller installs — (source IP,
// destination IP, UDP source port) of a RoCEv2 flow → the out-port of its planned path — consulted by the
// forward stage before the load-balancing strategy. An entry whose port is down or no longer in the route's
// ECMP group is not used: the packet falls back to the strategy (H3C RoCE overview §1.4.4: "the
// traffic-matrix flow table fails, the switch falls back to the ECMP FIB"). Entries never age: the controller
// replaces the whole table when it re-plans. Kept in the shared FlowTable primitive; no allocation per
// packet.

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

export interface PathTableCounters {
  /** Packets forwarded by an entry. */
  hits: number;
  /** Packets whose entry's port was down (or not a member of the route): ECMP took them. */
  fallbacks: number;
  /** Entries refused because the table was full. */
  overflows: number;
}

export class PathTable implements LbOverride {
  private readonly table: FlowTable;
  private readonly ports: Int32Array;
  private readonly key = new Uint32Array(3);
  private entryList: readonly PathEntry[] = [];
  readonly counters: PathTableCounters = { hits: 0, fallbacks: 0, overflows: 0 };

  constructor(readonly capacity: number) {
    this.table = new FlowTable(capacity, 3, Number.POSITIVE_INFINITY);
    this.ports = new Int32Array(capacity).fill(-1);
  }

  get size(): number {
    return this.table.size;
  }

  get entries(): readonly PathEntry[] {
    return this.entryList;
  }

  /** Replaces every entry; returns how many did not fit. */
  replace(entries: readonly PathEntry[]): number {
    for (let s = 0; s < this.capacity; s++) {
      if (this.ports[s]! >= 0) this.table.delete(s);
      this.ports[s] = -1;
    }
    const kept: PathEntry[] = [];
    let refused = 0;
    for (const e of entries) {
      this.key[0] = e.srcIp;
      this.key[1] = e.dstIp;
      this.key[2] = e.srcPort;
      const slot = this.table.insert(this.key, 0);
      if (slot < 0) {
        refused++;
        continue;
      }
      if (this.ports[slot]! < 0) kept.push(e);
      this.ports[slot] = e.port;
    }
    this.entryList = kept;
    this.counters.overflows += refused;
    return refused;
  }

  select(m: FlowFields, group: EcmpGroup, now: Nanoseconds): EcmpMember | null {
    if (m.dstPort !== ROCEV2_UDP_PORT) return null;
    this.key[0] = m.srcIp;
    this.key[1] = m.dstIp;
    this.key[2] = m.srcPort;
    const slot = this.table.lookup(this.key, now);
    if (slot < 0) return null;
    const port = this.ports[slot]!;
    const members = group.members;
    for (let i = 0; i < members.length; i++) {
      if (members[i]!.port !== port) continue;
      if (!group.isUp(i)) break;
      this.counters.hits++;
      return members[i]!;
    }
    this.counters.fallbacks++;
    return null;
  }
}
