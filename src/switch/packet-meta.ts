// The packet context: what the parse stage found in a frame and what later stages decided about it. A
// switch keeps a few of these and refills them for every packet (parsed once, no allocation per packet);
// stages and feature hooks read and write its fields instead of passing the frame around with positional
// arguments. It carries the fields load-balancing strategies hash (lb/strategy.ts FlowFields).

import type { FlowFields } from "../lb/strategy.js";

export const Verdict = {
  /** Still travelling through the pipeline, or sent. */
  Forward: 0,
  Drop: 1,
  /** For the switch itself (control plane). */
  Local: 2,
  /** Waits for its next hop's MAC (ARP). */
  Held: 3,
} as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

/** What the parse stage recognised. */
export const FrameKind = {
  Malformed: 0,
  /** IEEE 802.3 MAC Control (PFC, PAUSE): consumed by the port. */
  MacControl: 1,
  /** Addressed to neither the port's MAC nor broadcast. */
  NotForUs: 2,
  Arp: 3,
  Ipv4: 4,
  /** Another EtherType (LLDP, IPv6, ...). */
  Other: 5,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

const EMPTY = new Uint8Array(0);

export class PacketMeta implements FlowFields {
  frame: Uint8Array = EMPTY;
  kind: FrameKind = FrameKind.Other;
  /** Ingress port, or -1 for packets the switch originates. */
  inPort = -1;
  length = 0;
  etherType = 0;
  /** Offsets of the IPv4 header and of the L4 header (-1 when absent). */
  l3 = -1;
  l4 = -1;
  srcIp = 0;
  dstIp = 0;
  protocol = 0;
  ttl = 0;
  dscp = 0;
  ecn = 0;
  /** UDP/TCP ports of unfragmented packets, else 0. */
  srcPort = 0;
  dstPort = 0;
  /** RoCEv2 (UDP 4791) BTH fields, -1 for other packets. */
  bthOpcode = -1;
  destQp = -1;
  psn = -1;
  // Decisions.
  /** Priority (= ingress priority group) and egress queue. */
  pg = 0;
  queue = 0;
  lossless = false;
  outPort = -1;
  nextHopIp = 0;
  nextHopMac = 0;
  /** Bytes of the packet charged to its ingress PG's headroom (see Mmu.admit). */
  headroom = 0;
  /** Set CE when the packet is rewritten (WRED/ECN or Fast ECN decided to mark). */
  mark = false;
  /** Drop precedence yellow (an elephant flow, features/elephant.ts): dropped before green traffic. */
  yellow = false;
  /** 802.1p priority (PCP of a tagged frame) and DSCP the packet leaves with, -1: unchanged (elephant.ts). */
  remarkDot1p = -1;
  remarkDscp = -1;
  enqueuedAt = 0;
  verdict: Verdict = Verdict.Forward;
  /**
   * The frame's ICRC is known to match its bytes (the sender said so: Device.receive's `verified`). It
   * leaves with the frame only if nothing but the routing rewrite touched it: a stage or hook that writes
   * any other byte (ECN or DSCP marking, an INT hop, VXLAN) clears it, so that the next receiver checks.
   */
  verified = false;

  /** Forgets the decisions of the previous packet. */
  reset(frame: Uint8Array, inPort: number): void {
    this.frame = frame;
    this.inPort = inPort;
    this.length = frame.length;
    this.kind = FrameKind.Other;
    this.etherType = 0;
    this.l3 = -1;
    this.l4 = -1;
    this.srcIp = 0;
    this.dstIp = 0;
    this.protocol = 0;
    this.ttl = 0;
    this.dscp = 0;
    this.ecn = 0;
    this.srcPort = 0;
    this.dstPort = 0;
    this.bthOpcode = -1;
    this.destQp = -1;
    this.psn = -1;
    this.pg = 0;
    this.queue = 0;
    this.lossless = false;
    this.outPort = -1;
    this.nextHopIp = 0;
    this.nextHopMac = 0;
    this.headroom = 0;
    this.mark = false;
    this.yellow = false;
    this.remarkDot1p = -1;
    this.remarkDscp = -1;
    this.verdict = Verdict.Forward;
    this.verified = false;
  }
}
