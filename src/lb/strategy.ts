// Load-balancing strategies: given a packet's flow fields and the ECMP group its route resolved to, which
// member carries it. Static ECMP (hash of fields) is the first; dynamic ones (DLB, spray, flowlets, path
// navigation's installed entries) implement the same interface and keep their state in a FlowTable.

import type { Nanoseconds } from "../device/contract.js";
import type { EcmpGroup, EcmpMember } from "./ecmp-group.js";

/** The packet fields a strategy may use (the switch's PacketMeta has them all). */
export interface FlowFields {
  readonly srcIp: number;
  readonly dstIp: number;
  readonly protocol: number;
  /** 0 unless an unfragmented UDP/TCP packet. */
  readonly srcPort: number;
  readonly dstPort: number;
  /** RoCEv2 BTH Dest QP, -1 for other packets. */
  readonly destQp: number;
  readonly length: number;
  /** The ingress port (-1 for packets the switch originates); LBN keys on it. Absent: not known. */
  readonly inPort?: number;
}

export interface LbStrategy {
  readonly name: string;
  /** The member that carries the packet; `group.live` is never empty when this is called. */
  select(meta: FlowFields, group: EcmpGroup, now: Nanoseconds): EcmpMember;
}
