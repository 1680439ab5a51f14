// Shared pieces of the RC transport: message operations, the settings both sides read, the link a QP
// sends on, and opcode helpers.

import type { Ipv4Address } from "../../wire/bytes.js";
import { Opcode } from "../../wire/roce.js";
import type { NicCounters } from "../counters.js";
import type { FrameBuilder, IntEcho } from "./frames.js";
import type { WcStatus } from "./work-completion.js";

/** The operation of a work request. */
export const MsgOp = {
  Write: 0,
  Send: 1,
  Read: 2,
} as const;
export type MsgOp = (typeof MsgOp)[keyof typeof MsgOp];

export const MSG_OP_NAMES = ["write", "send", "read"] as const;
export type MsgOpName = (typeof MSG_OP_NAMES)[number];

/** Transport settings every QP of a NIC reads (the NIC owns the object and updates it on `configure`). */
export interface TransportSettings {
  mtu: number;
  ackReqEvery: number;
  maxInflightPackets: number;
  nakRetryGuard: boolean;
  /** The retransmission timeout, ns (Infinity: none; features/transport.ts TransportConfig.rto). */
  rtoNs: number;
  /** Retries after a timeout or a PSN-sequence NAK without progress before the QP fails (0..7). */
  retryCnt: number;
  /** Retries after an RNR NAK before the QP fails (0..7, 7: for ever). */
  rnrRetry: number;
  /** The RNR timer code our responder's RNR NAKs carry (0..31). */
  minRnrTimer: number;
  /** Receives each responder QP has posted (null: always one posted, no RNR). */
  recvDepth: number | null;
  /** How long after a SEND lands in a receive the application posts it again, ns. */
  recvRepostNs: number;
  /** Out-of-order placement window of the responders, PSNs; 0 or absent: go-back-N. */
  reorderWindow?: number;
}

/** What a QP needs to put frames on the wire: its addressing, the NIC's builder and counters. */
export interface QpLink {
  readonly qpn: number;
  readonly remoteQpn: number;
  readonly remoteIp: Ipv4Address;
  readonly udpSrcPort: number;
  readonly builder: FrameBuilder;
  readonly counters: NicCounters;
  readonly settings: TransportSettings;
  /** What the responder echoes in its ACKs (INT trailer, ECN echo). */
  readonly echo: IntEcho;
  /** Data packets per AckReq: 1 when its congestion control asks for per-packet ACKs, else ackReqEvery. */
  ackReqEvery(): number;
  /** Packets it may have in flight: maxInflightPackets, or fewer when its congestion control's window says so. */
  inflightLimit(): number;
  /**
   * Moves the QP to the error state (IBTA 10.3.1): every outstanding work request completes, the one that
   * failed (if the requester's) with `status`, the others flushed; requests that arrive later are dropped.
   */
  qpError(status: WcStatus, now: number): void;
}

/** Packets of a message of `bytes` bytes at path MTU `mtu` (a zero-byte message still takes one). */
export function packetsFor(bytes: number, mtu: number): number {
  return bytes <= 0 ? 1 : Math.ceil(bytes / mtu);
}

/** Payload bytes of packet `k` of a message of `bytes` bytes in `npkts` packets. */
export function packetLength(bytes: number, npkts: number, k: number, mtu: number): number {
  return k < npkts - 1 ? mtu : bytes - k * mtu;
}

// Opcodes by operation and position (index: only, first, middle, last).
const POS_ONLY = 0;
const POS_FIRST = 1;
const POS_MIDDLE = 2;
const POS_LAST = 3;
const WRITE_OPCODES = [
  Opcode.RdmaWriteOnly,
  Opcode.RdmaWriteFirst,
  Opcode.RdmaWriteMiddle,
  Opcode.RdmaWriteLast,
];
const SEND_OPCODES = [Opcode.SendOnly, Opcode.SendFirst, Opcode.SendMiddle, Opcode.SendLast];
const READ_RESPONSE_OPCODES = [
  Opcode.RdmaReadResponseOnly,
  Opcode.RdmaReadResponseFirst,
  Opcode.RdmaReadResponseMiddle,
  Opcode.RdmaReadResponseLast,
];

function position(npkts: number, k: number): number {
  if (npkts === 1) return POS_ONLY;
  if (k === 0) return POS_FIRST;
  return k === npkts - 1 ? POS_LAST : POS_MIDDLE;
}

/** Opcode of packet `k` of an `npkts`-packet WRITE or SEND. */
export function requestOpcode(op: MsgOp, npkts: number, k: number): Opcode {
  return (op === MsgOp.Write ? WRITE_OPCODES : SEND_OPCODES)[position(npkts, k)]!;
}

/** Opcode of response packet `k` of an `npkts`-packet READ response. */
export function readResponseOpcode(npkts: number, k: number): Opcode {
  return READ_RESPONSE_OPCODES[position(npkts, k)]!;
}

/** Kinds of received RoCE packets, by opcode (index = opcode 0..0x1f; anything else: KIND_OTHER). */
export const KIND_OTHER = 0;
export const KIND_WRITE = 1;
export const KIND_SEND = 2;
export const KIND_READ_REQUEST = 3;
export const KIND_READ_RESPONSE = 4;
export const KIND_ACK = 5;
/**
 * An RC request opcode this NIC does not execute: the immediate-data and invalidate variants, the atomics
 * and the reserved RC opcodes (IBTA Vol. 1 9.9.3.1, responder class C: NAK Invalid Request). The atomic
 * ACKNOWLEDGE (0x12) is a response, not a request: KIND_OTHER.
 */
export const KIND_UNSUPPORTED = 6;

const KINDS = new Uint8Array(32);
for (const op of WRITE_OPCODES) KINDS[op] = KIND_WRITE;
for (const op of SEND_OPCODES) KINDS[op] = KIND_SEND;
for (const op of READ_RESPONSE_OPCODES) KINDS[op] = KIND_READ_RESPONSE;
KINDS[Opcode.RdmaReadRequest] = KIND_READ_REQUEST;
KINDS[Opcode.Acknowledge] = KIND_ACK;
for (const op of [0x03, 0x05, 0x09, 0x0b]) KINDS[op] = KIND_UNSUPPORTED;
for (let op = 0x13; op < 0x20; op++) KINDS[op] = KIND_UNSUPPORTED;

/** The kind of a received opcode (RC requests not spoken here are KIND_UNSUPPORTED). */
export function opcodeKind(opcode: number): number {
  return opcode < 32 ? KINDS[opcode]! : KIND_OTHER;
}

/** Position of a WRITE/SEND/READ-response opcode: 0 only, 1 first, 2 middle, 3 last. */
export function opcodePosition(opcode: number): number {
  switch (opcode) {
    case Opcode.RdmaWriteOnly:
    case Opcode.SendOnly:
    case Opcode.RdmaReadResponseOnly:
      return POS_ONLY;
    case Opcode.RdmaWriteFirst:
    case Opcode.SendFirst:
    case Opcode.RdmaReadResponseFirst:
      return POS_FIRST;
    case Opcode.RdmaWriteMiddle:
    case Opcode.SendMiddle:
    case Opcode.RdmaReadResponseMiddle:
      return POS_MIDDLE;
    default:
      return POS_LAST;
  }
}

/** Place of a packet in its message (values of `opcodePosition`). */
export const Position = { Only: POS_ONLY, First: POS_FIRST, Middle: POS_MIDDLE, Last: POS_LAST } as const;
