// Dynamic load balancing (DLB), as merchant silicon does it (Broadcom Trident/Tomahawk DLB; Cisco's
// flowlet switching): the member is chosen by port quality (port-quality.ts), not by a hash alone.
//   eligibility: a flowset table remembers each flow's member; packets closer together than the
//                inactivity time stay on it, and after a longer gap (a flowlet boundary: the earlier
//                packets have drained, so moving cannot reorder) the next packet picks the best member;
//   fixed:       the first packet of a flow picks the best member and the flow stays there;
//   spray:       every packet picks the best member (reorders: the receiver must cope).
// Ties between equally good members rotate, so equal members share. The flowset table is bounded (the
// shared FlowTable): when it is full, a new flow falls back to static ECMP and is counted. An entry idle
// for the aging time frees its slot.

import type { Nanoseconds } from "../device/contract.js";
import type { EcmpGroup, EcmpMember } from "./ecmp-group.js";
import { FlowTable } from "./flow-table.js";
import type { StaticEcmp } from "./static-ecmp.js";
import type { FlowFields, LbStrategy } from "./strategy.js";

export const DlbMode = {
  Eligibility: "dlb-eligibility",
  Fixed: "dlb-fixed",
  Spray: "dlb-spray",
} as const;
export type DlbMode = (typeof DlbMode)[keyof typeof DlbMode];

export interface DlbSettings {
  /** A gap longer than this ends a flowlet (eligibility mode), ns. */
  readonly inactivityNs: Nanoseconds;
  /** An idle flowset frees its table entry after this, ns (at least the inactivity time). */
  readonly agingNs: Nanoseconds;
  /** Flowset table entries. */
  readonly flowsets: number;
}

/** What DLB counts (the feature declares them on the switch's counter set). */
export interface DlbCounters {
  flowsetsCreated: number;
  flowletMoves: number;
  /** New flows that found the table full and were hashed by static ECMP. */
  overflow: number;
}

/** The port measure DLB picks by: lower is better. */
export interface PortQuality {
  quality(port: number, now: Nanoseconds): number;
}

const KEY_WORDS = 4;

export class Dlb implements LbStrategy {
  readonly name: DlbMode;
  readonly table: FlowTable;
  private readonly memberPort: Int32Array;
  private readonly lastPacket: Float64Array;
  private readonly key = new Uint32Array(KEY_WORDS);
  private rotate = 0;

  constructor(
    private readonly mode: DlbMode,
    private readonly settings: DlbSettings,
    private readonly meter: PortQuality,
    private readonly fallback: StaticEcmp,
    private readonly counters: DlbCounters,
    /** Packets sent to each port by this strategy, indexed by port. */
    private readonly perPort: Float64Array,
  ) {
    this.name = mode;
    const capacity = Math.max(1, settings.flowsets);
    this.table = new FlowTable(capacity, KEY_WORDS, Math.max(settings.agingNs, settings.inactivityNs));
    this.memberPort = new Int32Array(capacity);
    this.lastPacket = new Float64Array(capacity);
  }

  select(m: FlowFields, group: EcmpGroup, now: Nanoseconds): EcmpMember {
    const live = group.live;
    if (live.length === 1) return this.count(live[0]!);
    if (this.mode === DlbMode.Spray) return this.count(this.best(live, now));
    const k = this.key;
    k[0] = m.srcIp;
    k[1] = m.dstIp;
    k[2] = ((m.srcPort << 16) | m.dstPort) >>> 0;
    k[3] = ((m.protocol << 24) | (m.destQp & 0xff_ffff)) >>> 0;
    const t = this.table;
    const inserts = t.counters.inserts;
    const slot = t.insert(k, now);
    if (slot < 0) {
      this.counters.overflow++;
      return this.count(this.fallback.select(m, group, now));
    }
    if (t.counters.inserts !== inserts) {
      this.counters.flowsetsCreated++;
      return this.count(this.assign(slot, this.best(live, now), now));
    }
    const gap = now - this.lastPacket[slot]!;
    this.lastPacket[slot] = now;
    const port = this.memberPort[slot]!;
    let current: EcmpMember | undefined;
    for (let i = 0; i < live.length; i++) if (live[i]!.port === port) current = live[i];
    if (current !== undefined && (this.mode === DlbMode.Fixed || gap <= this.settings.inactivityNs))
      return this.count(current);
    const next = this.best(live, now);
    if (next.port !== port) this.counters.flowletMoves++;
    return this.count(this.assign(slot, next, now));
  }

  private assign(slot: number, hop: EcmpMember, now: Nanoseconds): EcmpMember {
    this.memberPort[slot] = hop.port;
    this.lastPacket[slot] = now;
    return hop;
  }

  /** The member of best quality; ties rotate from one decision to the next. */
  private best(live: readonly EcmpMember[], now: Nanoseconds): EcmpMember {
    const n = live.length;
    const start = this.rotate++ % n;
    let best = live[start]!;
    let bestQ = this.meter.quality(best.port, now);
    for (let i = 1; i < n; i++) {
      const c = live[(start + i) % n]!;
      const q = this.meter.quality(c.port, now);
      if (q < bestQ) {
        best = c;
        bestQ = q;
      }
    }
    return best;
  }

  private count(hop: EcmpMember): EcmpMember {
    this.perPort[hop.port]!++;
    return hop;
  }
}
