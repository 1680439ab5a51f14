// In-band network telemetry (INT) for RoCEv2, as HPCC needs it (Li et al., "HPCC: High Precision Congestion
// Control", SIGCOMM 2019, §3 and §5; HPCC++: draft-miao-ccwg-hpcc, "Inband telemetry padding at the sender
// side"): the sender reserves room for a fixed number of hops in each data packet, every switch on the path
// writes its record into the next free slot as the packet leaves its egress queue, and the receiver copies
// the filled records into the ACK. The record carries what HPCC's ns-3 (alibaba-edu/High-Precision-
// Congestion-Control, network/utils/int-header.h IntHop) carries — link rate B, timestamp ts, cumulative
// transmitted bytes txBytes, queue length qLen — plus the switch id and egress port the issue asks for.
//
// Where it goes: a trailer at the end of the IB payload, in front of the ICRC, so the headers stay where
// IBTA puts them (tshark decodes Ethernet/IPv4/UDP/BTH/RETH/AETH as usual; the trailer shows as the last
// payload bytes). Its presence is flagged by bit 0x20 of BTH byte 4 (one of the six reserved bits after
// FECN and BECN; the ICRC masks that byte, so the flag can be set anywhere). The trailer is covered by
// the ICRC: a switch that writes a hop record updates the ICRC incrementally (icrc.ts patchIcrc), so the
// ICRC stays valid end to end — the receiver checks it as for any packet.
//
//   trailer = hop[0] … hop[maxHops-1] | shim (4 bytes)       (mode Collect / Echo)
//           = sender timestamp (8 bytes) | shim               (mode Timestamp: TIMELY's RTT sample)
//   shim    = byte 0: version (high nibble, 1) | mode (low nibble)
//             byte 1: hops written        byte 2: hop slots (maxHops)        byte 3: hop length in 4-byte words
//   hop     = switchId u16 | egressPort u8 | linkRate u24 (Mb/s) | timestamp u32 (ns, modulo 2³²)
//             | txBytes u24 (64-byte units, modulo 2²⁴) | qLen u24 (bytes, saturating)
// All fields big-endian. Departures from the public formats are listed in docs/int.md.

import { readU16, readU24, readU32, writeU16, writeU24, writeU32 } from "./bytes.js";
import { ICRC_LENGTH, patchIcrc } from "./icrc.js";

/** BTH byte 4 bit that says "this packet ends with an INT trailer". */
export const BTH_INT_FLAG = 0x20;
export const INT_VERSION = 1;
export const INT_SHIM_LENGTH = 4;
export const INT_HOP_LENGTH = 16;
export const INT_TIMESTAMP_LENGTH = 8;
/** HPCC ns-3's IntHeader::maxHop. */
export const INT_DEFAULT_MAX_HOPS = 5;
export const INT_MAX_HOPS = 15;
/** txBytes unit. */
export const INT_BYTES_UNIT = 64;
const U24 = 0x100_0000;

export const IntMode = {
  /** Switches write their hop record (data packets of HPCC senders). */
  Collect: 0,
  /** The sender's send time; switches leave it (TIMELY). */
  Timestamp: 1,
  /** The records of a data packet, copied by the receiver into its ACK; switches leave it. */
  Echo: 2,
} as const;
export type IntMode = (typeof IntMode)[keyof typeof IntMode];

/** Bytes of a trailer of `mode` with `maxHops` slots. */
export function intTrailerLength(mode: IntMode, maxHops: number): number {
  return INT_SHIM_LENGTH + (mode === IntMode.Timestamp ? INT_TIMESTAMP_LENGTH : maxHops * INT_HOP_LENGTH);
}

/** One hop record, decoded. */
export interface IntHop {
  switchId: number;
  egressPort: number;
  /** Link rate, bits/s (carried in Mb/s). */
  rateBps: number;
  /** Time the packet left the queue, ns modulo 2³². */
  ts: number;
  /** Bytes the port had sent before this packet, in 64-byte units modulo 2²⁴. */
  txUnits: number;
  /** Bytes queued on the port when the packet left, saturating at 2²⁴ − 1. */
  qLen: number;
}

/**
 * Length of the INT trailer of the RoCE packet whose BTH is at `bth` and which ends (ICRC included) at `end`,
 * or 0 when it has none or the shim does not add up (then the packet is taken as it is).
 */
export function intTrailerAt(frame: Uint8Array, bth: number, end: number): number {
  if ((frame[bth + 4]! & BTH_INT_FLAG) === 0) return 0;
  const shim = end - ICRC_LENGTH - INT_SHIM_LENGTH;
  if (shim < bth + 12) return 0;
  const v = frame[shim]!;
  if (v >>> 4 !== INT_VERSION) return 0;
  const mode = v & 0x0f;
  const slots = frame[shim + 2]!;
  if (mode === IntMode.Timestamp) return INT_SHIM_LENGTH + INT_TIMESTAMP_LENGTH;
  if (mode > IntMode.Echo || frame[shim + 3]! * 4 !== INT_HOP_LENGTH || frame[shim + 1]! > slots) return 0;
  const length = INT_SHIM_LENGTH + slots * INT_HOP_LENGTH;
  return shim + INT_SHIM_LENGTH - length >= bth + 12 ? length : 0;
}

/** Offset of the shim of a packet ending at `end`. */
export function intShimOffset(end: number): number {
  return end - ICRC_LENGTH - INT_SHIM_LENGTH;
}

export function intMode(frame: Uint8Array, end: number): number {
  return frame[intShimOffset(end)]! & 0x0f;
}

export function intHopCount(frame: Uint8Array, end: number): number {
  return frame[intShimOffset(end) + 1]!;
}

/** Writes an empty trailer of `mode` into `frame` at `at` (its `intTrailerLength` bytes; see `flagInt`). */
export function writeIntTrailer(
  frame: Uint8Array,
  at: number,
  mode: IntMode,
  maxHops: number,
  timestamp: number,
): void {
  const length = intTrailerLength(mode, maxHops);
  frame.fill(0, at, at + length);
  const shim = at + length - INT_SHIM_LENGTH;
  if (mode === IntMode.Timestamp) {
    writeU32(frame, at, Math.floor(timestamp / 0x1_0000_0000));
    writeU32(frame, at + 4, timestamp >>> 0);
  }
  frame[shim] = (INT_VERSION << 4) | mode;
  frame[shim + 1] = 0;
  frame[shim + 2] = mode === IntMode.Timestamp ? 0 : maxHops;
  frame[shim + 3] = mode === IntMode.Timestamp ? 0 : INT_HOP_LENGTH / 4;
}

/** Flags the BTH at `bth` as followed by an INT trailer (a masked bit: the ICRC does not change). */
export function flagInt(frame: Uint8Array, bth: number): void {
  frame[bth + 4] = frame[bth + 4]! | BTH_INT_FLAG;
}

/** The sender timestamp of a Timestamp-mode trailer of a packet ending at `end`. */
export function intTimestamp(frame: Uint8Array, end: number): number {
  const at = intShimOffset(end) - INT_TIMESTAMP_LENGTH;
  return readU32(frame, at) * 0x1_0000_0000 + readU32(frame, at + 4);
}

/** Offset of hop slot `i` of a Collect/Echo trailer of a packet ending at `end`. */
export function intHopOffset(frame: Uint8Array, end: number, i: number): number {
  const shim = intShimOffset(end);
  return shim - frame[shim + 2]! * INT_HOP_LENGTH + i * INT_HOP_LENGTH;
}

export function readIntHop(frame: Uint8Array, off: number, into: IntHop): IntHop {
  into.switchId = readU16(frame, off);
  into.egressPort = frame[off + 2]!;
  into.rateBps = readU24(frame, off + 3) * 1e6;
  into.ts = readU32(frame, off + 6);
  into.txUnits = readU24(frame, off + 10);
  into.qLen = readU24(frame, off + 13);
  return into;
}

/** Difference scratch for the ICRC update: one hop plus the rest of the trailer at most. */
const diff = new Uint8Array(INT_MAX_HOPS * INT_HOP_LENGTH + INT_SHIM_LENGTH);

/**
 * A switch's record for a Collect-mode packet ending at `end`: written into the next free slot, the hop
 * count advanced, the ICRC updated. False when every slot is taken (nothing written).
 */
export function pushIntHop(
  frame: Uint8Array,
  end: number,
  switchId: number,
  egressPort: number,
  rateBps: number,
  ts: number,
  txBytes: number,
  qLen: number,
): boolean {
  const shim = intShimOffset(end);
  const n = frame[shim + 1]!;
  if (n >= frame[shim + 2]!) return false;
  const off = intHopOffset(frame, end, n);
  const span = end - ICRC_LENGTH - off;
  for (let i = 0; i < span; i++) diff[i] = frame[off + i]!;
  writeU16(frame, off, switchId & 0xffff);
  frame[off + 2] = egressPort & 0xff;
  writeU24(frame, off + 3, Math.min(U24 - 1, Math.round(rateBps / 1e6)));
  writeU32(frame, off + 6, ts % 0x1_0000_0000);
  writeU24(frame, off + 10, Math.floor(txBytes / INT_BYTES_UNIT) % U24);
  writeU24(frame, off + 13, Math.min(U24 - 1, qLen));
  frame[shim + 1] = n + 1;
  for (let i = 0; i < span; i++) diff[i] = diff[i]! ^ frame[off + i]!;
  patchIcrc(frame, end, diff, span);
  return true;
}

/** Bytes sent between two records of one hop (txBytes modulo 2²⁴ units). */
export function intBytesDelta(now: IntHop, before: IntHop): number {
  const d = now.txUnits - before.txUnits;
  return (d >= 0 ? d : d + U24) * INT_BYTES_UNIT;
}

/** Nanoseconds between two records of one hop (timestamps modulo 2³²). */
export function intTimeDelta(now: IntHop, before: IntHop): number {
  const d = now.ts - before.ts;
  return d >= 0 ? d : d + 0x1_0000_0000;
}

export function emptyIntHop(): IntHop {
  return { switchId: 0, egressPort: 0, rateBps: 0, ts: 0, txUnits: 0, qLen: 0 };
}
