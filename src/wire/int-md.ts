// In-band network telemetry (INT) for RoCEv2 in P4.org's format: "In-band Network Telemetry (INT) Dataplane
// Specification", version 2.1, 2020-11-11, The P4.org Applications Working Group
// (https://github.com/p4lang/p4-applications, docs/INT_v2_1.pdf; source telemetry/specs/INT.mdk), as HPCC
// needs it (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3, §5) and as HPCC++
// (IETF draft-miao-ccwg-hpcc) carries it: the sender reserves room for the hops, every switch on the path
// writes its record as the packet leaves its egress queue, the receiver echoes the records in its ACK.
//
// Where the block goes (§5.5 "INT over any encapsulation" leaves the location to the domain; §5.7.2 "INT
// over TCP/UDP" puts INT between the L4 header and its payload): for RoCEv2, after the InfiniBand
// transport headers (BTH and its extension headers RETH/AETH/ImmDt) and before the IB payload, so every
// header stays where IBTA puts it and tshark decodes them all (the block shows as the first payload bytes).
// Its presence is signalled by §5.7.2 option 3, a 64-bit probe marker in front of the shim (the spec
// assigns no value; rocelab's is "ROCELAB!"): no reserved BTH bit, no DSCP bit, no UDP port is used.
//
//   block  = probe marker (8) | shim (4) | INT-MD header (12) | hop slots           (Collect, Type 1)
//          = probe marker (8) | shim (4) | destination (4) | INT-MD header | slots  (Echo, Type 2)
//          = probe marker (8) | shim (4) | destination (4) | sender time (8)       (Timestamp, Type 2)
//   shim   = Type (4b) | NPT (2b) = 0 | R R | Length (8b, words after the shim) | 16b reserved   (§5.7.2)
//   INT-MD = Ver 2 | D E M | 12b reserved | Hop ML (5b) = 7 | Remaining Hop Count (8b)
//            | Instruction Bitmap | Domain Specific ID | DS Instruction | DS Flags              (§5.8)
//   hop    = node id (4) | ingress port u16 | egress port u16 | queue id u8 | queue occupancy u24 (bytes)
//            | egress timestamp (8, ns) | DS: tx bytes u32 (modulo 2³²) | DS: link rate u32 (Mb/s) — 28 bytes
//
// Instruction Bitmap bits 0, 1, 3, 5 (node id; level 1 ingress + egress interface ids; queue id +
// occupancy; egress timestamp; §5.8 and §4.3); HPCC's cumulative tx bytes and link rate are domain specific
// metadata (Domain Specific ID 0x4850, DS Instruction bits 0 and 1; §5.8 lets operators assign them).
// Padding (HPCC++ "inband telemetry padding at the sender side"): the source reserves `maxHops` slots and
// sets Remaining Hop Count to `maxHops`; a transit hop writes slot Remaining − 1 and decrements it, so the
// filled slots form §5.8's stack (newest on top, next to the header) and the packet never changes length on
// the path. A hop finding Remaining Hop Count 0 writes nothing and sets E (§5.8). The ICRC covers the block:
// a switch updates it incrementally over the bytes it changed (icrc.ts patchIcrcAt), as §5.6 asks of L4
// checksums. Destination-type headers (Type 2) are ignored by transit hops (§5.1); their body is
// rocelab's (the spec leaves its format to a future revision): a 4-byte kind word, then the echoed INT-MD
// header and stack or the sender's timestamp. All fields big-endian (§5.8). Departures: docs/int.md.

import { readU16, readU24, readU32, writeU16, writeU24, writeU32 } from "./bytes.js";
import { patchIcrcAt } from "./icrc.js";
import { opcodeLayout } from "./roce-opcodes.js";

/** The probe marker (§5.7.2 option 3), as two 32-bit words: ASCII "ROCELAB!". */
export const INT_PROBE_HI = 0x524f4345;
export const INT_PROBE_LO = 0x4c414221;
export const INT_PROBE_LENGTH = 8;
export const INT_SHIM_LENGTH = 4;
export const INT_MD_HEADER_LENGTH = 12;
export const INT_DESTINATION_LENGTH = 4;
export const INT_VERSION = 2;
/** Shim Type values (§5.1). */
export const IntType = { Md: 1, Destination: 2 } as const;
/** Destination header kinds (rocelab's). */
export const IntDestination = { Echo: 1, Timestamp: 2 } as const;
/** Instruction Bitmap: node id (bit 0), L1 ingress/egress ids (1), queue id + occupancy (3), egress ts (5). */
export const INT_INSTRUCTIONS = 0x8000 | 0x4000 | 0x1000 | 0x0400;
/** Domain Specific ID of rocelab's HPCC metadata, and its DS Instruction: tx bytes (bit 0), link rate (1). */
export const INT_DOMAIN_ID = 0x4850;
export const INT_DS_INSTRUCTIONS = 0x8000 | 0x4000;
export const INT_HOP_WORDS = 7;
export const INT_HOP_LENGTH = INT_HOP_WORDS * 4;
/** HPCC ns-3's IntHeader::maxHop. */
export const INT_DEFAULT_MAX_HOPS = 5;
export const INT_MAX_HOPS = 15;
const U24 = 0x100_0000;
const U32 = 0x1_0000_0000;

export const IntMode = {
  /** INT-MD: switches write their hop record (data packets of HPCC senders). */
  Collect: 0,
  /** The sender's send time; switches leave it (TIMELY). */
  Timestamp: 1,
  /** The INT-MD header and stack of a data packet, copied by the receiver into its ACK. */
  Echo: 2,
} as const;
export type IntMode = (typeof IntMode)[keyof typeof IntMode];

/** Bytes of a block of `mode` with `maxHops` slots. */
export function intBlockLength(mode: IntMode, maxHops: number): number {
  const fixed = INT_PROBE_LENGTH + INT_SHIM_LENGTH;
  if (mode === IntMode.Timestamp) return fixed + INT_DESTINATION_LENGTH + 8;
  const md = INT_MD_HEADER_LENGTH + maxHops * INT_HOP_LENGTH;
  return mode === IntMode.Collect ? fixed + md : fixed + INT_DESTINATION_LENGTH + md;
}

/** One hop record, decoded. */
export interface IntHop {
  switchId: number;
  ingressPort: number;
  egressPort: number;
  queueId: number;
  /** Bytes queued on the egress port when the packet left (all its queues, as HPCC's ns-3), saturating. */
  qLen: number;
  /** Time the packet left the queue, ns. */
  ts: number;
  /** Bytes the port had sent before this packet, modulo 2³². */
  txBytes: number;
  /** Link rate, bits/s (carried in Mb/s). */
  rateBps: number;
}

export function emptyIntHop(): IntHop {
  return { switchId: 0, ingressPort: 0, egressPort: 0, queueId: 0, qLen: 0, ts: 0, txBytes: 0, rateBps: 0 };
}

/** Where an INT block would start in the RoCE packet whose BTH is at `bth` (after its transport headers). */
export function intOffset(frame: Uint8Array, bth: number): number {
  const layout = opcodeLayout(frame[bth]!);
  return layout === null ? -1 : bth + layout.headerLength;
}

/**
 * Length of the INT block at `at` that must end by `limit` (the ICRC's offset), or 0 when there is none or
 * it does not add up (then the bytes are taken as payload).
 */
export function intBlockAt(frame: Uint8Array, at: number, limit: number): number {
  if (at < 0 || at + INT_PROBE_LENGTH + INT_SHIM_LENGTH > limit) return 0;
  if (readU32(frame, at) !== INT_PROBE_HI || readU32(frame, at + 4) !== INT_PROBE_LO) return 0;
  const shim = at + INT_PROBE_LENGTH;
  const length = INT_PROBE_LENGTH + INT_SHIM_LENGTH + frame[shim + 1]! * 4;
  if (at + length > limit) return 0;
  const type = frame[shim]! >>> 4;
  let md = shim + INT_SHIM_LENGTH;
  if (type === IntType.Destination) {
    const kind = frame[md]!;
    if (kind === IntDestination.Timestamp)
      return length === intBlockLength(IntMode.Timestamp, 0) ? length : 0;
    if (kind !== IntDestination.Echo) return 0;
    md += INT_DESTINATION_LENGTH;
  } else if (type !== IntType.Md) return 0;
  if (md + INT_MD_HEADER_LENGTH > at + length || frame[md]! >>> 4 !== INT_VERSION) return 0;
  const hopMl = frame[md + 2]! & 0x1f;
  const stack = at + length - md - INT_MD_HEADER_LENGTH;
  if (hopMl !== INT_HOP_WORDS || stack % INT_HOP_LENGTH !== 0) return 0;
  return frame[md + 3]! <= stack / INT_HOP_LENGTH ? length : 0;
}

/** The mode of a valid block at `at`. */
export function intModeAt(frame: Uint8Array, at: number): IntMode {
  const shim = at + INT_PROBE_LENGTH;
  if (frame[shim]! >>> 4 === IntType.Md) return IntMode.Collect;
  return frame[shim + INT_SHIM_LENGTH] === IntDestination.Timestamp ? IntMode.Timestamp : IntMode.Echo;
}

/** Offset of the INT-MD header of a Collect or Echo block at `at`. */
export function intMdOffset(frame: Uint8Array, at: number): number {
  const md = at + INT_PROBE_LENGTH + INT_SHIM_LENGTH;
  return frame[at + INT_PROBE_LENGTH]! >>> 4 === IntType.Md ? md : md + INT_DESTINATION_LENGTH;
}

/** Hop slots of the valid Collect or Echo block of `length` bytes at `at`. */
export function intSlots(frame: Uint8Array, at: number, length: number): number {
  return (at + length - intMdOffset(frame, at) - INT_MD_HEADER_LENGTH) / INT_HOP_LENGTH;
}

/** Hop records written into the valid Collect or Echo block of `length` bytes at `at`. */
export function intHopCount(frame: Uint8Array, at: number, length: number): number {
  return intSlots(frame, at, length) - frame[intMdOffset(frame, at) + 3]!;
}

/** Offset of the record of the `i`-th switch on the path (0: the first) in the block of `length` at `at`. */
export function intHopOffset(at: number, length: number, i: number): number {
  return at + length - (i + 1) * INT_HOP_LENGTH;
}

function writeProbeAndShim(buf: Uint8Array, at: number, type: number, length: number): number {
  writeU32(buf, at, INT_PROBE_HI);
  writeU32(buf, at + 4, INT_PROBE_LO);
  const shim = at + INT_PROBE_LENGTH;
  buf[shim] = type << 4; // NPT 0: presence is not signalled by the UDP port (§5.7.2)
  buf[shim + 1] = (length - INT_PROBE_LENGTH - INT_SHIM_LENGTH) / 4;
  buf[shim + 2] = 0;
  buf[shim + 3] = 0;
  return shim + INT_SHIM_LENGTH;
}

function writeMdHeader(buf: Uint8Array, md: number, maxHops: number): void {
  buf[md] = INT_VERSION << 4; // D, E, M clear
  buf[md + 1] = 0;
  buf[md + 2] = INT_HOP_WORDS;
  buf[md + 3] = maxHops;
  writeU16(buf, md + 4, INT_INSTRUCTIONS);
  writeU16(buf, md + 6, INT_DOMAIN_ID);
  writeU16(buf, md + 8, INT_DS_INSTRUCTIONS);
  writeU16(buf, md + 10, 0);
}

/** Writes an empty INT-MD block with `maxHops` slots at `at` (its `intBlockLength(Collect, maxHops)` bytes). */
export function writeIntCollect(buf: Uint8Array, at: number, maxHops: number): void {
  const length = intBlockLength(IntMode.Collect, maxHops);
  const md = writeProbeAndShim(buf, at, IntType.Md, length);
  writeMdHeader(buf, md, maxHops);
  buf.fill(0, md + INT_MD_HEADER_LENGTH, at + length);
}

/** Writes a Timestamp block carrying `timestamp` (ns) at `at`. */
export function writeIntTimestamp(buf: Uint8Array, at: number, timestamp: number): void {
  const d = writeProbeAndShim(buf, at, IntType.Destination, intBlockLength(IntMode.Timestamp, 0));
  writeU32(buf, d, IntDestination.Timestamp << 24);
  writeU32(buf, d + 4, Math.floor(timestamp / U32));
  writeU32(buf, d + 8, timestamp >>> 0);
}

/** The sender timestamp of a Timestamp block at `at`. */
export function intTimestamp(frame: Uint8Array, at: number): number {
  const d = at + INT_PROBE_LENGTH + INT_SHIM_LENGTH + INT_DESTINATION_LENGTH;
  return readU32(frame, d) * U32 + readU32(frame, d + 4);
}

/**
 * Copies the valid block of `length` bytes at `at` into `dst` as the receiver's echo and returns the echo's
 * length: a Collect block goes back as a Destination-type Echo (its INT-MD header and stack unchanged), a
 * Timestamp block as it is.
 */
export function copyIntEcho(dst: Uint8Array, frame: Uint8Array, at: number, length: number): number {
  if (intModeAt(frame, at) !== IntMode.Collect) {
    for (let i = 0; i < length; i++) dst[i] = frame[at + i]!;
    return length;
  }
  const echo = length + INT_DESTINATION_LENGTH;
  const d = writeProbeAndShim(dst, 0, IntType.Destination, echo);
  writeU32(dst, d, IntDestination.Echo << 24);
  const from = at + INT_PROBE_LENGTH + INT_SHIM_LENGTH;
  for (let i = d + INT_DESTINATION_LENGTH, j = from; j < at + length; i++, j++) dst[i] = frame[j]!;
  return echo;
}

export function readIntHop(frame: Uint8Array, off: number, into: IntHop): IntHop {
  into.switchId = readU32(frame, off);
  into.ingressPort = readU16(frame, off + 4);
  into.egressPort = readU16(frame, off + 6);
  into.queueId = frame[off + 8]!;
  into.qLen = readU24(frame, off + 9);
  into.ts = readU32(frame, off + 12) * U32 + readU32(frame, off + 16);
  into.txBytes = readU32(frame, off + 20);
  into.rateBps = readU32(frame, off + 24) * 1e6;
  return into;
}

/** Difference scratch for the ICRC update: one hop record at most. */
const diff = new Uint8Array(INT_HOP_LENGTH);

/** What a switch writes into a hop record: the fields it decodes to. */
export type IntHopValues = IntHop;

/**
 * A switch's record for the Collect block at `at` of the packet ending (ICRC included) at `end`: written
 * into slot Remaining Hop Count − 1, the count decremented, the ICRC updated over the bytes changed. When
 * no slot is left, only E is set (§5.8) and false is returned.
 */
export function pushIntHop(frame: Uint8Array, at: number, end: number, h: IntHopValues): boolean {
  const md = at + INT_PROBE_LENGTH + INT_SHIM_LENGTH;
  const remaining = frame[md + 3]!;
  if (remaining === 0) {
    diff[0] = 0x04; // E: max hop count exceeded
    frame[md] = frame[md]! | 0x04;
    patchIcrcAt(frame, end, md, diff, 1);
    return false;
  }
  // Two changes, two ICRC patches: the count byte, then the slot (whose old bytes are the zeros the
  // source wrote, so its difference is the record itself).
  diff[0] = remaining ^ (remaining - 1);
  frame[md + 3] = remaining - 1;
  patchIcrcAt(frame, end, md + 3, diff, 1);
  const off = md + INT_MD_HEADER_LENGTH + (remaining - 1) * INT_HOP_LENGTH;
  for (let i = 0; i < INT_HOP_LENGTH; i++) diff[i] = frame[off + i]!;
  writeU32(frame, off, h.switchId >>> 0);
  writeU16(frame, off + 4, h.ingressPort & 0xffff);
  writeU16(frame, off + 6, h.egressPort & 0xffff);
  frame[off + 8] = h.queueId & 0xff;
  writeU24(frame, off + 9, Math.min(U24 - 1, h.qLen));
  writeU32(frame, off + 12, Math.floor(h.ts / U32));
  writeU32(frame, off + 16, h.ts >>> 0);
  writeU32(frame, off + 20, h.txBytes % U32);
  writeU32(frame, off + 24, Math.min(U32 - 1, Math.round(h.rateBps / 1e6)));
  for (let i = 0; i < INT_HOP_LENGTH; i++) diff[i] = diff[i]! ^ frame[off + i]!;
  patchIcrcAt(frame, end, off, diff, INT_HOP_LENGTH);
  return true;
}

/** Whether the E bit (a hop found no slot left) is set in the Collect or Echo block at `at`. */
export function intExceeded(frame: Uint8Array, at: number): boolean {
  return (frame[intMdOffset(frame, at)]! & 0x04) !== 0;
}

/** Bytes sent between two records of one hop (tx bytes modulo 2³²). */
export function intBytesDelta(now: IntHop, before: IntHop): number {
  const d = now.txBytes - before.txBytes;
  return d >= 0 ? d : d + U32;
}

/** Nanoseconds between two records of one hop. */
export function intTimeDelta(now: IntHop, before: IntHop): number {
  return now.ts - before.ts;
}
