// What pcap-check calls each frame it recognises (the tally of a capture), and the small helpers its
// checks share.

import type { WireError } from "../wire/result.js";

/** What a frame is, for the per-kind tally. A frame counts once, by its outermost meaning. */
export const FrameKind = {
  /** Any RoCE packet that is not an ACKNOWLEDGE or a CNP: requests, READ responses (v1 and v2). */
  RoceData: "roce-data",
  /** RC ACKNOWLEDGE with an ACK syndrome. */
  Ack: "ack",
  /** RC ACKNOWLEDGE with a NAK or RNR NAK syndrome. */
  Nak: "nak",
  Cnp: "cnp",
  /** RDMA CM MAD (REQ, REP, RTU, DREQ, DREP) in a UD SEND ONLY to QP1 (wire/cm-mad.ts). */
  Cm: "cm",
  /** PFC frame pausing at least one priority (an enabled time above 0). */
  PfcXoff: "pfc-xoff",
  /** PFC frame whose enabled times are all 0 (resume). */
  PfcXon: "pfc-xon",
  /** IEEE 802.3x PAUSE (whole link). */
  Pause: "pause",
  Arp: "arp",
  Lldp: "lldp",
  Icmp: "icmp",
  /** VXLAN-encapsulated frame (its inner frame is checked too, but the frame counts as VXLAN). */
  Vxlan: "vxlan",
  Other: "other",
} as const;

export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** Every kind, in the order summaries list them. */
export const FRAME_KINDS: readonly FrameKind[] = Object.values(FrameKind);

export const hex = (v: number, digits: number) => `0x${v.toString(16).padStart(digits, "0")}`;

/** A WireError as a problem line: its protocol, then its message, which names the field. */
export const wire = (e: WireError) => `${e.protocol}: ${e.message} (byte ${e.offset})`;
