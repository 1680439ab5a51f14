// IPCC's RoCEv2 flow table: what the switch learned about the RoCE flows it forwards, enough to build a
// CNP for the sender of any of them and to send it back the way the flow came in.
//
// One entry per direction of a connection, keyed (source IP, destination IP, UDP source port). It holds
// the ingress port, the previous hop's MAC (the CNP's destination MAC on that port), the egress port and
// queue, the destination QP the packets carry (the QP at the destination address) and when data was last
// seen. The sender's own QP number is not in its data packets: it is the destination QP of the packets
// going the other way (its ACKs, or READ requests for READ responses). The two directions of one RC
// connection carry the same UDP source port — Linux and rdma-core derive it symmetrically from both QP
// numbers (rdma_get_udp_sport, ibv_flow_label_to_udp_sport) — so the sender's QP is found in the reverse
// entry (destination IP, source IP, same port). A flow whose reverse direction has not been seen (yet)
// has no QP to notify; the feature counts those CNPs as not sent.
//
// Entries are refreshed by every packet, aged out after `agingNs` without one, and bounded by the table's
// capacity (lb/flow-table.ts: typed arrays, no allocation per packet).

import type { Nanoseconds } from "../../device/contract.js";
import { FlowTable } from "../../lb/flow-table.js";
import { readMac } from "../../wire/bytes.js";
import { Opcode } from "../../wire/roce.js";
import type { PacketMeta } from "../packet-meta.js";

/** RC opcodes that carry payload: SEND and RDMA WRITE (0x00..0x0B) and READ responses (0x0D..0x10). */
function carriesData(opcode: number): boolean {
  return (
    opcode <= Opcode.RdmaWriteOnlyWithImmediate ||
    (opcode >= Opcode.RdmaReadResponseFirst && opcode <= Opcode.RdmaReadResponseOnly)
  );
}

export class IpccFlows {
  readonly table: FlowTable;
  readonly srcIp: Uint32Array;
  readonly dstIp: Uint32Array;
  readonly udpPort: Uint16Array;
  readonly inPort: Int16Array;
  readonly outPort: Int16Array;
  readonly queue: Int8Array;
  readonly prevMac: Float64Array;
  /** The destination QP this direction's packets carry. */
  readonly destQp: Int32Array;
  /** When this direction last carried data, or -Infinity (an ACK-only direction). */
  readonly lastData: Float64Array;
  readonly dataBytes: Float64Array;
  private readonly key = new Uint32Array(3);

  constructor(capacity: number, agingNs: Nanoseconds) {
    this.table = new FlowTable(capacity, 3, agingNs);
    this.srcIp = new Uint32Array(capacity);
    this.dstIp = new Uint32Array(capacity);
    this.udpPort = new Uint16Array(capacity);
    this.inPort = new Int16Array(capacity);
    this.outPort = new Int16Array(capacity);
    this.queue = new Int8Array(capacity);
    this.prevMac = new Float64Array(capacity);
    this.destQp = new Int32Array(capacity);
    this.lastData = new Float64Array(capacity).fill(Number.NEGATIVE_INFINITY);
    this.dataBytes = new Float64Array(capacity);
  }

  get capacity(): number {
    return this.table.capacity;
  }

  /** Learns or refreshes the flow of a received RoCEv2 packet that was queued (out-port and queue known). */
  learn(m: PacketMeta, now: Nanoseconds): void {
    if (m.bthOpcode < 0 || m.bthOpcode === Opcode.Cnp || m.inPort < 0) return;
    const k = this.key;
    k[0] = m.srcIp;
    k[1] = m.dstIp;
    k[2] = m.srcPort;
    const t = this.table;
    const inserts = t.counters.inserts;
    const s = t.insert(k, now);
    if (s < 0) return;
    if (t.counters.inserts !== inserts) {
      this.srcIp[s] = m.srcIp;
      this.dstIp[s] = m.dstIp;
      this.udpPort[s] = m.srcPort;
      this.lastData[s] = Number.NEGATIVE_INFINITY;
      this.dataBytes[s] = 0;
    }
    this.inPort[s] = m.inPort;
    this.outPort[s] = m.outPort;
    this.queue[s] = m.queue;
    this.prevMac[s] = readMac(m.frame, 6);
    this.destQp[s] = m.destQp;
    if (carriesData(m.bthOpcode)) {
      this.lastData[s] = now;
      this.dataBytes[s]! += m.length;
    }
  }

  /** Whether `slot` holds a flow that carried data within `activeNs` (an aged-out slot never does). */
  activeData(slot: number, now: Nanoseconds, activeNs: Nanoseconds): boolean {
    return now - this.lastData[slot]! <= activeNs && now - this.lastData[slot]! <= this.table.agingNs;
  }

  /** The QP of the sender of `slot`'s flow (the reverse direction's destination QP), or -1. */
  senderQp(slot: number, now: Nanoseconds): number {
    const k = this.key;
    k[0] = this.dstIp[slot]!;
    k[1] = this.srcIp[slot]!;
    k[2] = this.udpPort[slot]!;
    const r = this.table.lookup(k, now);
    return r < 0 ? -1 : this.destQp[r]!;
  }
}
