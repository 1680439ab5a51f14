// IPCC's RoCEv2 flow table: what the switch learned about the RoCE flows it forwards, enough to build a
// CNP for the sender of any of them and to send it back the way the flow came in.
//
// As H3C's document describes it, one entry per direction of a connection, keyed (source IP,
// destination IP, Dest QP), learned from RDMA CM connection set-up messages, first data packets and ACKs.
// An entry holds the ingress port, the previous hop's MAC (the CNP's destination MAC on that port), the
// egress port and queue, the UDP source port, when data was last seen, and the sender's QP — the QP the
// CNP goes to. The sender's own QP number is not in its data packets (BTH carries only the destination
// QP); it is learned in one of two ways:
//   * from connection management: a REQ carries the active side's QPN and communication ID, the REP the
//     passive side's QPN and the REQ's communication ID, so when a REP matches a REQ the switch knows both
//     QPs and enters both directions, before the first data packet (IBTA Vol. 1 §12.6);
//   * from the reverse direction: the destination QP of the ACKs (or, for READ responses, of the READ
//     requests). The two directions are paired by their UDP source port: Linux and rdma-core derive it
//     symmetrically from both QP numbers (rdma_get_udp_sport, ibv_flow_label_to_udp_sport). H3C does not
//     say how its switch pairs them; this is rocelab's choice.
// A flow whose sender QP is known from neither has no QP to notify; the feature counts those CNPs as not
// sent.
//
// Entries are refreshed by every packet, aged out after `agingNs` without one, and bounded by the table's
// capacity (lb/flow-table.ts: typed arrays, no allocation per packet). A REQ waits for its REP in a second
// table of the same capacity and aging. A DREQ (connection teardown, IBTA Vol. 1 §12.6.10) removes both
// directions of its connection at once: it names the QP it goes to (its Remote QPN), which is the Dest QP
// of its sender's direction, and that entry's sender QP is the Dest QP of the reverse one. The DREP
// carries only communication IDs, and by then the DREQ has done it; a connection whose DREQ took another
// path ages out as before.

import type { Nanoseconds } from "../../device/contract.js";
import { FlowTable } from "../../lb/flow-table.js";
import { readMac } from "../../wire/bytes.js";
import { CmAttr, type CmIds, GSI_QP, peekCmIds } from "../../wire/cm-mad.js";
import { Opcode } from "../../wire/roce.js";
import type { PacketMeta } from "../packet-meta.js";

const UDP_HEADER = 8;

/** Where an entry was first learned from (the index of `IpccFlows.learned`). */
export const LearnSource = { Cm: 0, Data: 1, Ack: 2 } as const;
export type LearnSource = (typeof LearnSource)[keyof typeof LearnSource];

/** RC opcodes that carry payload: SEND and RDMA WRITE (0x00..0x0B) and READ responses (0x0D..0x10). */
function carriesData(opcode: number): boolean {
  return (
    opcode <= Opcode.RdmaWriteOnlyWithImmediate ||
    (opcode >= Opcode.RdmaReadResponseFirst && opcode <= Opcode.RdmaReadResponseOnly)
  );
}

/** Where a packet was seen: ingress port, previous hop, egress port and queue. */
interface Placement {
  readonly inPort: Int16Array;
  readonly outPort: Int16Array;
  readonly queue: Int8Array;
  readonly prevMac: Float64Array;
  readonly udpPort: Uint16Array;
}

function placements(capacity: number): Placement {
  return {
    inPort: new Int16Array(capacity),
    outPort: new Int16Array(capacity),
    queue: new Int8Array(capacity),
    prevMac: new Float64Array(capacity),
    udpPort: new Uint16Array(capacity),
  };
}

function place(p: Placement, s: number, m: PacketMeta): void {
  p.inPort[s] = m.inPort;
  p.outPort[s] = m.outPort;
  p.queue[s] = m.queue;
  p.prevMac[s] = readMac(m.frame, 6);
  p.udpPort[s] = m.srcPort;
}

export class IpccFlows implements Placement {
  /** The flow table, keyed (source IP, destination IP, Dest QP). */
  readonly table: FlowTable;
  readonly srcIp: Uint32Array;
  readonly dstIp: Uint32Array;
  /** The destination QP this direction's packets carry (the key's third word). */
  readonly destQp: Int32Array;
  readonly inPort: Int16Array;
  readonly outPort: Int16Array;
  readonly queue: Int8Array;
  readonly prevMac: Float64Array;
  readonly udpPort: Uint16Array;
  /** The QP of this direction's sender (where its CNPs go), -1 while unknown. */
  private readonly sender: Int32Array;
  /** When this direction last carried data, or -Infinity (an ACK-only direction). */
  readonly lastData: Float64Array;
  readonly dataBytes: Float64Array;
  /** Entries created, by `LearnSource`. */
  readonly learned = new Float64Array(3);
  /** Entries removed by a DREQ (connection teardown), [0]. */
  readonly removedCm = new Float64Array(1);
  /** (source IP, destination IP, UDP source port) → slot: pairs the two directions without CM. */
  private readonly byPort: FlowTable;
  private readonly byPortSlot: Int32Array;
  /** The `byPort` slot of each entry, refreshed with the entry so it lives as long as the entry. */
  private readonly portIndex: Int32Array;
  /** REQs waiting for their REP, keyed (REQ source IP, REQ destination IP, local communication ID). */
  private readonly pending: FlowTable;
  private readonly pendingQp: Int32Array;
  private readonly pendingAt: Placement;
  private readonly key = new Uint32Array(3);
  private readonly cm: CmIds = { attr: 0, localCommId: 0, remoteCommId: 0, qpn: 0 };

  constructor(capacity: number, agingNs: Nanoseconds) {
    this.table = new FlowTable(capacity, 3, agingNs);
    this.srcIp = new Uint32Array(capacity);
    this.dstIp = new Uint32Array(capacity);
    this.destQp = new Int32Array(capacity);
    const at = placements(capacity);
    this.inPort = at.inPort;
    this.outPort = at.outPort;
    this.queue = at.queue;
    this.prevMac = at.prevMac;
    this.udpPort = at.udpPort;
    this.sender = new Int32Array(capacity).fill(-1);
    this.lastData = new Float64Array(capacity).fill(Number.NEGATIVE_INFINITY);
    this.dataBytes = new Float64Array(capacity);
    this.byPort = new FlowTable(capacity, 3, agingNs);
    this.byPortSlot = new Int32Array(capacity);
    this.portIndex = new Int32Array(capacity).fill(-1);
    this.pending = new FlowTable(capacity, 3, agingNs);
    this.pendingQp = new Int32Array(capacity);
    this.pendingAt = placements(capacity);
  }

  get capacity(): number {
    return this.table.capacity;
  }

  /** Learns or refreshes the flow of a received RoCEv2 packet that was queued (out-port and queue known). */
  learn(m: PacketMeta, now: Nanoseconds): void {
    if (m.bthOpcode < 0 || m.bthOpcode === Opcode.Cnp || m.inPort < 0) return;
    if (m.destQp === GSI_QP) {
      this.learnCm(m, now);
      return;
    }
    const data = carriesData(m.bthOpcode);
    const s = this.upsert(
      m.srcIp,
      m.dstIp,
      m.destQp,
      m.srcPort,
      data ? LearnSource.Data : LearnSource.Ack,
      now,
    );
    if (s < 0) return;
    const i = this.portIndex[s]!;
    if (i >= 0 && this.byPortSlot[i] === s) this.byPort.touch(i, now);
    place(this, s, m);
    if (data) {
      this.lastData[s] = now;
      this.dataBytes[s]! += m.length;
    }
  }

  /** Whether `slot` holds a flow that carried data within `activeNs` (an aged-out slot never does). */
  activeData(slot: number, now: Nanoseconds, activeNs: Nanoseconds): boolean {
    return now - this.lastData[slot]! <= activeNs && now - this.lastData[slot]! <= this.table.agingNs;
  }

  /** The QP of the sender of `slot`'s flow (learned from CM or from the reverse direction), or -1. */
  senderQp(slot: number, now: Nanoseconds): number {
    if (this.sender[slot]! < 0) this.pair(slot, now);
    return this.sender[slot]!;
  }

  /** A CM message: a REQ waits for its REP; the REP enters both directions with both QPs. */
  private learnCm(m: PacketMeta, now: Nanoseconds): void {
    const cm = this.cm;
    if (m.l4 < 0 || !peekCmIds(m.frame, m.l4 + UDP_HEADER, m.frame.length, cm)) return;
    const k = this.key;
    if (cm.attr === CmAttr.Req) {
      k[0] = m.srcIp;
      k[1] = m.dstIp;
      k[2] = cm.localCommId;
      const p = this.pending.insert(k, now);
      if (p < 0) return;
      this.pendingQp[p] = cm.qpn;
      place(this.pendingAt, p, m);
      return;
    }
    if (cm.attr === CmAttr.Dreq) {
      this.teardown(m.srcIp, m.dstIp, cm.qpn, now);
      return;
    }
    if (cm.attr !== CmAttr.Rep) return;
    k[0] = m.dstIp;
    k[1] = m.srcIp;
    k[2] = cm.remoteCommId;
    const p = this.pending.lookup(k, now);
    if (p < 0) return;
    const activeQp = this.pendingQp[p]!;
    const at = this.pendingAt;
    // The active side's direction (REQ's path): its packets carry the passive QP; its CNPs go to activeQp.
    const a = this.upsert(m.dstIp, m.srcIp, cm.qpn, at.udpPort[p]!, LearnSource.Cm, now);
    if (a >= 0) {
      this.sender[a] = activeQp;
      this.inPort[a] = at.inPort[p]!;
      this.outPort[a] = at.outPort[p]!;
      this.queue[a] = at.queue[p]!;
      this.prevMac[a] = at.prevMac[p]!;
    }
    const b = this.upsert(m.srcIp, m.dstIp, activeQp, m.srcPort, LearnSource.Cm, now);
    if (b >= 0) {
      this.sender[b] = cm.qpn;
      place(this, b, m);
    }
    this.pending.delete(p);
  }

  /** A DREQ from `src` to `dst`'s QP `destQp`: removes that direction and, if its sender is known, the other. */
  private teardown(src: number, dst: number, destQp: number, now: Nanoseconds): void {
    const a = this.find(src, dst, destQp, now);
    if (a < 0) return;
    const back = this.senderQp(a, now);
    this.remove(a);
    if (back < 0) return;
    const b = this.find(dst, src, back, now);
    if (b >= 0) this.remove(b);
  }

  private find(src: number, dst: number, destQp: number, now: Nanoseconds): number {
    const k = this.key;
    k[0] = src;
    k[1] = dst;
    k[2] = destQp;
    return this.table.lookup(k, now);
  }

  /** Removes entry `s` and its UDP-port index entry; counted as removed by CM. */
  private remove(s: number): void {
    const i = this.portIndex[s]!;
    if (i >= 0 && this.byPortSlot[i] === s) this.byPort.delete(i);
    this.portIndex[s] = -1;
    this.table.delete(s);
    this.removedCm[0]!++;
  }

  /** The slot of (src, dst, destQp), created (and counted under `source`) if new; -1 if the table is full. */
  private upsert(
    src: number,
    dst: number,
    destQp: number,
    udpPort: number,
    source: LearnSource,
    now: Nanoseconds,
  ): number {
    const k = this.key;
    k[0] = src;
    k[1] = dst;
    k[2] = destQp;
    const t = this.table;
    const inserts = t.counters.inserts;
    const s = t.insert(k, now);
    if (s < 0 || t.counters.inserts === inserts) return s;
    this.learned[source]!++;
    this.srcIp[s] = src;
    this.dstIp[s] = dst;
    this.destQp[s] = destQp;
    this.udpPort[s] = udpPort;
    this.sender[s] = -1;
    this.lastData[s] = Number.NEGATIVE_INFINITY;
    this.dataBytes[s] = 0;
    k[2] = udpPort;
    const i = this.byPort.insert(k, now);
    this.portIndex[s] = i;
    if (i >= 0) this.byPortSlot[i] = s;
    this.pair(s, now);
    return s;
  }

  /** Pairs `s` with the reverse direction of the same UDP source port, if that is in the table. */
  private pair(s: number, now: Nanoseconds): void {
    const k = this.key;
    const src = this.srcIp[s]!;
    const dst = this.dstIp[s]!;
    const port = this.udpPort[s]!;
    k[0] = dst;
    k[1] = src;
    k[2] = port;
    const i = this.byPort.lookup(k, now);
    if (i < 0) return;
    const r = this.byPortSlot[i]!;
    if (!this.table.holds(r) || this.srcIp[r] !== dst || this.dstIp[r] !== src || this.udpPort[r] !== port)
      return;
    if (this.sender[s]! < 0) this.sender[s] = this.destQp[r]!;
    if (this.sender[r]! < 0) this.sender[r] = this.destQp[s]!;
  }
}
