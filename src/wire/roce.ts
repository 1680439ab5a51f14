// InfiniBand transport headers as RoCE carries them: the 12-byte Base Transport Header (BTH), the RETH,
// AETH and ImmDt extension headers of the Reliable Connected (RC) opcodes the devices speak, the body of the
// RoCEv2 Congestion Notification Packet (CNP), 24-bit PSN arithmetic, the UDP source-port convention of
// Linux and rdma-core, and a builder of complete RoCEv2 frames.
//
// A RoCE packet after its network header: BTH, the extension headers its opcode calls for, payload, 0-3 pad
// bytes (count in BTH.PadCnt) and the 4-byte ICRC. All fields are big-endian except the ICRC (icrc.ts).

import {
  type Ipv4Address,
  type MacAddress,
  readU16,
  readU24,
  readU32,
  readU64,
  writeU16,
  writeU24,
  writeU32,
  writeU64,
} from "./bytes.js";
import {
  ETHERNET_HEADER_LENGTH,
  EtherType,
  serializeEthernet,
  VLAN_TAG_LENGTH,
  type VlanTag,
} from "./ethernet.js";
import { allocFrame } from "./frame-alloc.js";
import { ICRC_LENGTH, readIcrc, writeIcrcV2 } from "./icrc.js";
import { Ecn, IPV4_HEADER_LENGTH, IpProtocol, serializeIpv4 } from "./ipv4.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

/** UDP destination port of RoCEv2 (IANA "roce"). */
const ROCEV2_UDP_PORT = 4791;
const UDP_HEADER_LENGTH = 8;

export const BTH_LENGTH = 12;
export const RETH_LENGTH = 16;
export const AETH_LENGTH = 4;
export const IMMDT_LENGTH = 4;
/** The CNP carries 16 reserved bytes after its BTH, zero on send. */
export const CNP_RESERVED_LENGTH = 16;
/** The default (full-membership) partition key every RoCE QP uses unless configured otherwise. */
export const DEFAULT_PKEY = 0xffff;
/** PSNs are 24-bit sequence numbers; all PSN arithmetic is modulo 2^24. */
export const PSN_MASK = 0xff_ffff;
/** Queue pair numbers are 24 bits. */
export const QPN_MASK = 0xff_ffff;
/** DSCP ConnectX NICs give CNPs by default (`cnp_dscp`). */
export const CNP_DEFAULT_DSCP = 48;

/**
 * BTH opcodes we speak: the Reliable Connected (RC) transport (bits 7..5 = 000) and the RoCEv2 CNP.
 * Bits 4..0 name the operation; "first/middle/last/only" is the packet's place in a multi-packet message.
 */
export const Opcode = {
  SendFirst: 0x00,
  SendMiddle: 0x01,
  SendLast: 0x02,
  SendLastWithImmediate: 0x03,
  SendOnly: 0x04,
  SendOnlyWithImmediate: 0x05,
  RdmaWriteFirst: 0x06,
  RdmaWriteMiddle: 0x07,
  RdmaWriteLast: 0x08,
  RdmaWriteLastWithImmediate: 0x09,
  RdmaWriteOnly: 0x0a,
  RdmaWriteOnlyWithImmediate: 0x0b,
  RdmaReadRequest: 0x0c,
  RdmaReadResponseFirst: 0x0d,
  RdmaReadResponseMiddle: 0x0e,
  RdmaReadResponseLast: 0x0f,
  RdmaReadResponseOnly: 0x10,
  Acknowledge: 0x11,
  /** RoCEv2 CNP. Not 0x80: Linux's IB_OPCODE_CNP (and Wireshark's label) is the transport prefix. */
  Cnp: 0x81,
} as const;
export type Opcode = (typeof Opcode)[keyof typeof Opcode];

/** Where a packet sits in its message. Single-packet operations (READ request, ACK, CNP) are "only". */
export type MessagePosition = "first" | "middle" | "last" | "only";

/** What follows the BTH for one opcode. Extension headers come in the order RETH, AETH, ImmDt. */
export interface OpcodeLayout {
  /** Human-readable name, e.g. "RC RDMA WRITE ONLY". */
  readonly name: string;
  readonly reth: boolean;
  readonly aeth: boolean;
  readonly immDt: boolean;
  /** The CNP's 16 reserved bytes. */
  readonly cnpReserved: boolean;
  /** Whether the opcode carries payload (a zero-length payload is still allowed). */
  readonly payload: boolean;
  readonly position: MessagePosition;
  /** BTH plus extension headers, in bytes: where the payload starts, relative to the BTH. */
  readonly headerLength: number;
}

// One frozen entry per opcode value, so the per-packet lookup is an array index with no allocation.
const LAYOUTS: (OpcodeLayout | null)[] = new Array<OpcodeLayout | null>(256).fill(null);

function define(
  opcode: Opcode,
  name: string,
  position: MessagePosition,
  payload: boolean,
  ext: { reth?: boolean; aeth?: boolean; immDt?: boolean; cnpReserved?: boolean } = {},
): void {
  const reth = ext.reth ?? false;
  const aeth = ext.aeth ?? false;
  const immDt = ext.immDt ?? false;
  const cnpReserved = ext.cnpReserved ?? false;
  const headerLength =
    BTH_LENGTH +
    (reth ? RETH_LENGTH : 0) +
    (aeth ? AETH_LENGTH : 0) +
    (immDt ? IMMDT_LENGTH : 0) +
    (cnpReserved ? CNP_RESERVED_LENGTH : 0);
  LAYOUTS[opcode] = Object.freeze({ name, reth, aeth, immDt, cnpReserved, payload, position, headerLength });
}

define(Opcode.SendFirst, "RC SEND FIRST", "first", true);
define(Opcode.SendMiddle, "RC SEND MIDDLE", "middle", true);
define(Opcode.SendLast, "RC SEND LAST", "last", true);
define(Opcode.SendLastWithImmediate, "RC SEND LAST WITH IMMEDIATE", "last", true, { immDt: true });
define(Opcode.SendOnly, "RC SEND ONLY", "only", true);
define(Opcode.SendOnlyWithImmediate, "RC SEND ONLY WITH IMMEDIATE", "only", true, { immDt: true });
// The RETH rides only on the first packet of a WRITE: the responder remembers VA and R_Key for the rest.
define(Opcode.RdmaWriteFirst, "RC RDMA WRITE FIRST", "first", true, { reth: true });
define(Opcode.RdmaWriteMiddle, "RC RDMA WRITE MIDDLE", "middle", true);
define(Opcode.RdmaWriteLast, "RC RDMA WRITE LAST", "last", true);
define(Opcode.RdmaWriteLastWithImmediate, "RC RDMA WRITE LAST WITH IMMEDIATE", "last", true, { immDt: true });
define(Opcode.RdmaWriteOnly, "RC RDMA WRITE ONLY", "only", true, { reth: true });
define(Opcode.RdmaWriteOnlyWithImmediate, "RC RDMA WRITE ONLY WITH IMMEDIATE", "only", true, {
  reth: true,
  immDt: true,
});
define(Opcode.RdmaReadRequest, "RC RDMA READ REQUEST", "only", false, { reth: true });
// READ responses carry an AETH on the packets that acknowledge (first, last, only), not on the middle ones.
define(Opcode.RdmaReadResponseFirst, "RC RDMA READ RESPONSE FIRST", "first", true, { aeth: true });
define(Opcode.RdmaReadResponseMiddle, "RC RDMA READ RESPONSE MIDDLE", "middle", true);
define(Opcode.RdmaReadResponseLast, "RC RDMA READ RESPONSE LAST", "last", true, { aeth: true });
define(Opcode.RdmaReadResponseOnly, "RC RDMA READ RESPONSE ONLY", "only", true, { aeth: true });
define(Opcode.Acknowledge, "RC ACKNOWLEDGE", "only", false, { aeth: true });
define(Opcode.Cnp, "RoCEv2 CNP", "only", false, { cnpReserved: true });

/** Which headers follow the BTH for `opcode`, or null for an opcode we do not speak. */
export function opcodeLayout(opcode: number): OpcodeLayout | null {
  return LAYOUTS[opcode & 0xff] ?? null;
}

/** Human-readable opcode name ("RC RDMA WRITE ONLY"); "UNKNOWN OPCODE 0x12" for opcodes we do not speak. */
export function opcodeName(opcode: number): string {
  const layout = LAYOUTS[opcode & 0xff];
  return layout ? layout.name : `UNKNOWN OPCODE 0x${(opcode & 0xff).toString(16).padStart(2, "0")}`;
}

// ---------------------------------------------------------------------------------------------------------
// PSN arithmetic. A PSN window is at most 2^23 packets, so the shorter way round the 24-bit circle decides
// which PSN comes first.

/** `a + n` modulo 2^24 (`n` may be negative; |a + n| < 2^31). */
export function psnAdd(a: number, n: number): number {
  return (a + n) & PSN_MASK;
}

/** Signed distance from `b` to `a` (a − b) in −2^23 .. 2^23−1: positive when `a` comes after `b`. */
export function psnDiff(a: number, b: number): number {
  // Shift the 24-bit difference into the top of an int32 and back, so bit 23 becomes the sign.
  return (((a - b) & PSN_MASK) << 8) >> 8;
}

/** True when `a` comes strictly before `b` in 24-bit sequence space. */
export function psnLessThan(a: number, b: number): boolean {
  return psnDiff(a, b) < 0;
}

// ---------------------------------------------------------------------------------------------------------
// BTH

export interface Bth {
  readonly opcode: number;
  /** Solicited Event: the responder should raise a completion event. */
  readonly se: boolean;
  /** MigReq: path-migration state (0 unless automatic path migration is used). */
  readonly migReq: boolean;
  /** Pad bytes (0..3) between the payload and the ICRC. */
  readonly padCount: number;
  /** Transport header version; always 0. */
  readonly tver: number;
  /** Partition key (0xFFFF by default). */
  readonly pkey: number;
  /** Forward ECN: congestion seen on the way to the destination (IB; RoCE uses IP ECN instead). */
  readonly fecn: boolean;
  /** Backward ECN: set on CNPs, telling the QP's sender to slow down. */
  readonly becn: boolean;
  /** Destination queue pair number, 24 bits. */
  readonly destQp: number;
  /** Acknowledge Request: the responder must acknowledge this packet. */
  readonly ackReq: boolean;
  /** Packet sequence number, 24 bits. */
  readonly psn: number;
}

export interface BthInit {
  readonly opcode: number;
  readonly destQp: number;
  readonly psn: number;
  readonly se?: boolean;
  readonly migReq?: boolean;
  readonly padCount?: number;
  /** Default 0; anything else makes a packet every receiver rejects. */
  readonly tver?: number;
  /** Default `DEFAULT_PKEY`. */
  readonly pkey?: number;
  readonly fecn?: boolean;
  readonly becn?: boolean;
  readonly ackReq?: boolean;
}

/** Parses the BTH at `offset`. Reserved bits are ignored, as receivers must; TVer must be 0. */
export function parseBth(buf: Uint8Array, offset = 0): Parsed<Bth> {
  const short = need("bth", buf, offset, BTH_LENGTH);
  if (short) return short;
  const flags = buf[offset + 1]!;
  const tver = flags & 0x0f;
  if (tver !== 0) return fail("bth", WireErrorCode.BadVersion, `TVer ${tver}, expected 0`, offset + 1);
  const ecnByte = buf[offset + 4]!;
  return ok({
    opcode: buf[offset]!,
    se: (flags & 0x80) !== 0,
    migReq: (flags & 0x40) !== 0,
    padCount: (flags >>> 4) & 0b11,
    tver,
    pkey: readU16(buf, offset + 2),
    fecn: (ecnByte & 0x80) !== 0,
    becn: (ecnByte & 0x40) !== 0,
    destQp: readU24(buf, offset + 5),
    ackReq: (buf[offset + 8]! & 0x80) !== 0,
    psn: readU24(buf, offset + 9),
  });
}

// Field-by-field writer shared by `serializeBth` and the frame builder, which has the fields in its spec and
// should not build an intermediate object per packet. Reserved bits are written as zero.
function writeBth(
  buf: Uint8Array,
  offset: number,
  opcode: number,
  se: boolean,
  migReq: boolean,
  padCount: number,
  tver: number,
  pkey: number,
  fecn: boolean,
  becn: boolean,
  destQp: number,
  ackReq: boolean,
  psn: number,
): number {
  buf[offset] = opcode & 0xff;
  buf[offset + 1] = (se ? 0x80 : 0) | (migReq ? 0x40 : 0) | ((padCount & 0b11) << 4) | (tver & 0x0f);
  writeU16(buf, offset + 2, pkey);
  buf[offset + 4] = (fecn ? 0x80 : 0) | (becn ? 0x40 : 0);
  writeU24(buf, offset + 5, destQp);
  buf[offset + 8] = ackReq ? 0x80 : 0;
  writeU24(buf, offset + 9, psn);
  return offset + BTH_LENGTH;
}

/** Writes the 12-byte BTH at `offset`; returns the offset just past it. */
export function serializeBth(h: BthInit, buf: Uint8Array, offset = 0): number {
  return writeBth(
    buf,
    offset,
    h.opcode,
    h.se ?? false,
    h.migReq ?? false,
    h.padCount ?? 0,
    h.tver ?? 0,
    h.pkey ?? DEFAULT_PKEY,
    h.fecn ?? false,
    h.becn ?? false,
    h.destQp,
    h.ackReq ?? false,
    h.psn,
  );
}

// ---------------------------------------------------------------------------------------------------------
// RETH: where an RDMA WRITE or READ lands in the responder's memory.

export interface Reth {
  /** Virtual address in the responder's registered memory region (64 bits). */
  readonly va: bigint;
  /** Remote key of the memory region. */
  readonly rkey: number;
  /** Total length of the whole message in bytes (not of this packet). */
  readonly dmaLength: number;
}

function readReth(buf: Uint8Array, offset: number): Reth {
  return { va: readU64(buf, offset), rkey: readU32(buf, offset + 8), dmaLength: readU32(buf, offset + 12) };
}

export function parseReth(buf: Uint8Array, offset = 0): Parsed<Reth> {
  const short = need("reth", buf, offset, RETH_LENGTH);
  if (short) return short;
  return ok(readReth(buf, offset));
}

/** Writes the 16-byte RETH at `offset`; returns the offset just past it. */
export function serializeReth(h: Reth, buf: Uint8Array, offset = 0): number {
  writeU64(buf, offset, h.va);
  writeU32(buf, offset + 8, h.rkey);
  writeU32(buf, offset + 12, h.dmaLength);
  return offset + RETH_LENGTH;
}

// ---------------------------------------------------------------------------------------------------------
// AETH: the responder's ACK or NAK. Syndrome bits 7..5 give the kind, bits 4..0 a credit count (ACK),
// an RNR timer code (RNR NAK) or an error code (NAK).

export interface Aeth {
  /** 8-bit syndrome (see `AethSyndrome`, `aethKind`). */
  readonly syndrome: number;
  /** Message sequence number: count of messages the responder has completed, 24 bits. */
  readonly msn: number;
}

/** Credit count meaning "no end-to-end flow control" (what RC receivers without an SRQ limit send). */
export const AETH_CREDITS_UNLIMITED = 0x1f;

/** Whole syndrome values, and builders for the ones that carry a 5-bit argument. */
export const AethSyndrome = {
  /** ACK with unlimited credits. */
  AckUnlimited: 0x1f,
  /** NAK: a PSN was skipped; the requester must resend from the PSN the NAK carries. */
  NakPsnSequenceError: 0x60,
  NakInvalidRequest: 0x61,
  NakRemoteAccessError: 0x62,
  NakRemoteOperationalError: 0x63,
  /** ACK with a 5-bit credit count (`AETH_CREDITS_UNLIMITED` for none). */
  ack: (credits: number): number => credits & 0x1f,
  /** Receiver-not-ready NAK with a 5-bit timer code (how long the requester waits before retrying). */
  rnrNak: (timerCode: number): number => 0x20 | (timerCode & 0x1f),
} as const;

export type AethKind = "ack" | "rnr-nak" | "nak" | "reserved";

/** Kind of an AETH syndrome. Bit 7 is reserved, so a syndrome with it set is "reserved" too. */
export function aethKind(syndrome: number): AethKind {
  switch (syndrome & 0xe0) {
    case 0x00:
      return "ack";
    case 0x20:
      return "rnr-nak";
    case 0x60:
      return "nak";
    default:
      return "reserved";
  }
}

/** The 5-bit argument of a syndrome: credit count, RNR timer code or NAK code, depending on the kind. */
export function aethValue(syndrome: number): number {
  return syndrome & 0x1f;
}

function readAeth(buf: Uint8Array, offset: number): Aeth {
  return { syndrome: buf[offset]!, msn: readU24(buf, offset + 1) };
}

export function parseAeth(buf: Uint8Array, offset = 0): Parsed<Aeth> {
  const short = need("aeth", buf, offset, AETH_LENGTH);
  if (short) return short;
  return ok(readAeth(buf, offset));
}

/** Writes the 4-byte AETH at `offset`; returns the offset just past it. */
export function serializeAeth(h: Aeth, buf: Uint8Array, offset = 0): number {
  buf[offset] = h.syndrome & 0xff;
  writeU24(buf, offset + 1, h.msn);
  return offset + AETH_LENGTH;
}

// ---------------------------------------------------------------------------------------------------------
// A whole RoCE packet from the BTH on.

export interface RoceHeaders {
  readonly bth: Bth;
  readonly reth: Reth | null;
  readonly aeth: Aeth | null;
  /** Immediate data, an opaque 32-bit value handed to the receiver's completion. */
  readonly immDt: number | null;
  /**
   * A CNP's 16 reserved bytes as received (a copy), null for other opcodes. Senders zero them; receivers
   * accept any value, so a non-zero one is reported here rather than rejected.
   */
  readonly cnpReserved: Uint8Array | null;
  /** Offset of the payload in the buffer handed to `parseRoce`. */
  readonly payloadOffset: number;
  /** Payload bytes, pad excluded. */
  readonly payloadLength: number;
  /** Pad bytes after the payload (BTH.PadCnt). */
  readonly padCount: number;
  /** The ICRC as carried (the unsigned value whose least-significant byte comes first on the wire). */
  readonly icrc: number;
  /** BTH plus extension headers, in bytes. */
  readonly headerLength: number;
}

/**
 * Parses a RoCE packet whose BTH starts at `bthOffset` and which ends, ICRC included, at `end`: the end of
 * the UDP payload for RoCEv2, the end of the GRH's payload for RoCEv1. Does not check the ICRC (icrc.ts
 * does, given the network header). Nothing at or after `end` is read.
 */
export function parseRoce(buf: Uint8Array, bthOffset: number, end: number): Parsed<RoceHeaders> {
  if (end > buf.length) {
    return fail(
      "bth",
      WireErrorCode.Truncated,
      `packet ends at ${end} but the buffer holds ${buf.length}`,
      end,
    );
  }
  if (bthOffset < 0) {
    return fail("bth", WireErrorCode.Truncated, `BTH offset ${bthOffset} is before the buffer`, bthOffset);
  }
  if (end - bthOffset < BTH_LENGTH) {
    const have = Math.max(0, end - bthOffset);
    return fail("bth", WireErrorCode.Truncated, `header needs ${BTH_LENGTH} bytes, ${have} left`, bthOffset);
  }
  const parsedBth = parseBth(buf, bthOffset);
  if (!parsedBth.ok) return parsedBth;
  const bth = parsedBth.value;
  const layout = LAYOUTS[bth.opcode];
  if (!layout) {
    return fail(
      "bth",
      WireErrorCode.BadValue,
      `opcode 0x${bth.opcode.toString(16).padStart(2, "0")} is not one we speak`,
      bthOffset,
    );
  }

  // Walk the extension headers, checking each fits before `end` with room for the ICRC behind it.
  let off = bthOffset + BTH_LENGTH;
  const icrcOffset = end - ICRC_LENGTH;
  let reth: Reth | null = null;
  let aeth: Aeth | null = null;
  let immDt: number | null = null;
  let cnpReserved: Uint8Array | null = null;
  if (layout.reth) {
    if (off + RETH_LENGTH > icrcOffset) return truncatedExtension("reth", RETH_LENGTH, off, icrcOffset);
    reth = readReth(buf, off);
    off += RETH_LENGTH;
  }
  if (layout.aeth) {
    if (off + AETH_LENGTH > icrcOffset) return truncatedExtension("aeth", AETH_LENGTH, off, icrcOffset);
    aeth = readAeth(buf, off);
    off += AETH_LENGTH;
  }
  if (layout.immDt) {
    if (off + IMMDT_LENGTH > icrcOffset) return truncatedExtension("immdt", IMMDT_LENGTH, off, icrcOffset);
    immDt = readU32(buf, off);
    off += IMMDT_LENGTH;
  }
  if (layout.cnpReserved) {
    if (off + CNP_RESERVED_LENGTH > icrcOffset) {
      return truncatedExtension("cnp", CNP_RESERVED_LENGTH, off, icrcOffset);
    }
    cnpReserved = buf.slice(off, off + CNP_RESERVED_LENGTH);
    off += CNP_RESERVED_LENGTH;
  }
  if (off + ICRC_LENGTH > end) {
    return fail("icrc", WireErrorCode.Truncated, `ICRC needs ${ICRC_LENGTH} bytes, ${end - off} left`, off);
  }

  // What lies between the headers and the ICRC is payload plus pad.
  const padded = icrcOffset - off;
  if (bth.padCount > padded) {
    return fail(
      "bth",
      WireErrorCode.BadLength,
      `PadCnt ${bth.padCount} exceeds the ${padded} bytes between headers and ICRC`,
      bthOffset + 1,
    );
  }
  if (padded % 4 !== 0) {
    return fail(
      "bth",
      WireErrorCode.BadLength,
      `payload plus pad is ${padded} bytes, not a multiple of 4`,
      off,
    );
  }
  if (!layout.payload && padded !== 0) {
    return fail(
      "bth",
      WireErrorCode.BadLength,
      `${layout.name} carries no payload but ${padded} bytes precede the ICRC`,
      off,
    );
  }
  return ok({
    bth,
    reth,
    aeth,
    immDt,
    cnpReserved,
    payloadOffset: off,
    payloadLength: padded - bth.padCount,
    padCount: bth.padCount,
    icrc: readIcrc(buf, end),
    headerLength: layout.headerLength,
  });
}

function truncatedExtension(protocol: string, length: number, offset: number, icrcOffset: number) {
  return fail(
    protocol,
    WireErrorCode.Truncated,
    `header needs ${length} bytes, ${Math.max(0, icrcOffset - offset)} left before the ICRC`,
    offset,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Building packets.

/** Everything from the BTH on: the fields a requester or responder chooses per packet. */
export interface RoceTransportSpec {
  readonly opcode: Opcode;
  /** Destination QP number (24 bits). */
  readonly destQp: number;
  /** Packet sequence number (24 bits). */
  readonly psn: number;
  readonly ackReq?: boolean;
  readonly se?: boolean;
  readonly migReq?: boolean;
  /** Default `DEFAULT_PKEY`. */
  readonly pkey?: number;
  readonly fecn?: boolean;
  readonly becn?: boolean;
  /** Required by opcodes that carry a RETH; ignored by the others (same for `aeth` and `immDt`). */
  readonly reth?: Reth | null;
  readonly aeth?: Aeth | null;
  readonly immDt?: number | null;
  /** Payload bytes (may be a view into a larger buffer; copied once into the frame). Default empty. */
  readonly payload?: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** Layout of `spec.opcode`, after checking the spec supplies the headers it needs. Throws on caller bugs. */
function layoutFor(spec: RoceTransportSpec): OpcodeLayout {
  const layout = LAYOUTS[spec.opcode];
  if (!layout) throw new RangeError(`cannot build opcode ${spec.opcode}: not one we speak`);
  if (layout.reth && !spec.reth) throw new TypeError(`${layout.name} needs a RETH`);
  if (layout.aeth && !spec.aeth) throw new TypeError(`${layout.name} needs an AETH`);
  if (layout.immDt && (spec.immDt === undefined || spec.immDt === null)) {
    throw new TypeError(`${layout.name} needs immediate data`);
  }
  if (!layout.payload && spec.payload && spec.payload.length > 0) {
    throw new TypeError(`${layout.name} carries no payload, got ${spec.payload.length} bytes`);
  }
  return layout;
}

/** Pad bytes that bring `payloadLength` to a multiple of 4. */
export function padCountFor(payloadLength: number): number {
  return -payloadLength & 3;
}

/** Bytes from the BTH through the ICRC for this packet. Throws if the spec is not buildable. */
export function roceTransportLength(spec: RoceTransportSpec): number {
  const layout = layoutFor(spec);
  const payloadLength = spec.payload?.length ?? 0;
  return layout.headerLength + payloadLength + padCountFor(payloadLength) + ICRC_LENGTH;
}

function writeTransport(
  spec: RoceTransportSpec,
  layout: OpcodeLayout,
  buf: Uint8Array,
  offset: number,
): number {
  const payload = spec.payload ?? EMPTY;
  const padCount = padCountFor(payload.length);
  let off = writeBth(
    buf,
    offset,
    spec.opcode,
    spec.se ?? false,
    spec.migReq ?? false,
    padCount,
    0,
    spec.pkey ?? DEFAULT_PKEY,
    spec.fecn ?? false,
    spec.becn ?? false,
    spec.destQp,
    spec.ackReq ?? false,
    spec.psn,
  );
  if (layout.reth) off = serializeReth(spec.reth!, buf, off);
  if (layout.aeth) off = serializeAeth(spec.aeth!, buf, off);
  if (layout.immDt) {
    writeU32(buf, off, spec.immDt!);
    off += IMMDT_LENGTH;
  }
  if (layout.cnpReserved) {
    buf.fill(0, off, off + CNP_RESERVED_LENGTH);
    off += CNP_RESERVED_LENGTH;
  }
  buf.set(payload, off);
  off += payload.length;
  buf.fill(0, off, off + padCount);
  return off + padCount;
}

/**
 * Writes BTH, extension headers, payload and zero pad at `offset` (PadCnt computed from the payload length);
 * returns the offset where the 4-byte ICRC goes, which the caller computes once the network header is in
 * place. `buf` must hold `roceTransportLength(spec)` bytes from `offset`. Throws if the spec is not buildable.
 */
export function serializeRoceTransport(spec: RoceTransportSpec, buf: Uint8Array, offset = 0): number {
  return writeTransport(spec, layoutFor(spec), buf, offset);
}

/** A whole RoCEv2 frame: Ethernet, IPv4, UDP and the transport fields. */
export interface RoceV2FrameSpec extends RoceTransportSpec {
  readonly srcMac: MacAddress;
  readonly dstMac: MacAddress;
  /** 802.1Q tag (its PCP selects the PFC priority on tagged links); default none. */
  readonly vlan?: VlanTag | null;
  readonly srcIp: Ipv4Address;
  readonly dstIp: Ipv4Address;
  readonly dscp: number;
  readonly ecn: Ecn;
  /** Default 64. */
  readonly ttl?: number;
  /** IPv4 identification; default 0. */
  readonly identification?: number;
  /** UDP source port: the flow's ECMP entropy (see `roceUdpSourcePort`). */
  readonly udpSrcPort: number;
}

/** Frame bytes for `spec` after checking it is buildable (throws, a caller bug, when it is not). */
function frameLength(spec: RoceV2FrameSpec, layout: OpcodeLayout): number {
  const payloadLength = spec.payload?.length ?? 0;
  const ipLength =
    IPV4_HEADER_LENGTH +
    UDP_HEADER_LENGTH +
    layout.headerLength +
    payloadLength +
    padCountFor(payloadLength) +
    ICRC_LENGTH;
  if (ipLength > 0xffff) throw new RangeError(`RoCEv2 packet of ${ipLength} bytes exceeds the IPv4 maximum`);
  return (spec.vlan ? ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH : ETHERNET_HEADER_LENGTH) + ipLength;
}

function writeFrame(
  spec: RoceV2FrameSpec,
  layout: OpcodeLayout,
  buf: Uint8Array,
  offset: number,
  end: number,
) {
  const ipOffset = serializeEthernet(
    { dst: spec.dstMac, src: spec.srcMac, etherType: EtherType.IPv4, vlan: spec.vlan ?? null },
    buf,
    offset,
  );
  const udpLength = end - ipOffset - IPV4_HEADER_LENGTH;
  let off = serializeIpv4(
    {
      src: spec.srcIp,
      dst: spec.dstIp,
      protocol: IpProtocol.UDP,
      payloadLength: udpLength,
      dscp: spec.dscp,
      ecn: spec.ecn,
      ttl: spec.ttl ?? 64,
      identification: spec.identification ?? 0,
      dontFragment: true,
    },
    buf,
    ipOffset,
  );
  writeU16(buf, off, spec.udpSrcPort);
  writeU16(buf, off + 2, ROCEV2_UDP_PORT);
  writeU16(buf, off + 4, udpLength);
  // Checksum 0 means "none" for UDP over IPv4; the ICRC protects the packet instead.
  writeU16(buf, off + 6, 0);
  off += UDP_HEADER_LENGTH;
  writeTransport(spec, layout, buf, off);
  writeIcrcV2(buf, ipOffset, end);
}

/** Bytes `buildRoceV2Frame` / `serializeRoceV2Frame` produce for `spec`. Throws if it is not buildable. */
export function roceV2FrameLength(spec: RoceV2FrameSpec): number {
  return frameLength(spec, layoutFor(spec));
}

/**
 * Writes the frame `buildRoceV2Frame` builds at `offset` of a caller's buffer (a slab or ring, to avoid an
 * allocation per packet); returns the offset just past it. Every byte of the frame is written, so the
 * buffer may hold stale data. `buf` must have `roceV2FrameLength(spec)` bytes from `offset`.
 */
export function serializeRoceV2Frame(spec: RoceV2FrameSpec, buf: Uint8Array, offset = 0): number {
  const layout = layoutFor(spec);
  const end = offset + frameLength(spec, layout);
  if (end > buf.length)
    throw new RangeError(`frame needs ${end - offset} bytes, ${buf.length - offset} left`);
  writeFrame(spec, layout, buf, offset, end);
  return end;
}

/**
 * Builds a complete RoCEv2 frame (no FCS, no padding to 60 bytes): Ethernet (optional 802.1Q tag), IPv4
 * with DF set and a valid checksum, UDP to port 4791 with checksum 0 (as RoCE NICs send it), BTH, the
 * extension headers the opcode needs, payload, zero pad and ICRC. One allocation: the returned frame (a view
 * into a shared slab, frame-alloc.ts).
 * Throws (a caller bug) when the opcode is unknown, a required header is missing, a no-payload opcode is
 * given payload, or the packet exceeds 65535 IPv4 bytes.
 */
export function buildRoceV2Frame(spec: RoceV2FrameSpec): Uint8Array {
  const layout = layoutFor(spec);
  const frame = allocFrame(frameLength(spec, layout));
  writeFrame(spec, layout, frame, 0, frame.length);
  return frame;
}

export interface CnpFrameSpec {
  /** The notification point (the receiver of the marked traffic). */
  readonly srcMac: MacAddress;
  /** Next hop towards the reaction point (the sender of the marked traffic). */
  readonly dstMac: MacAddress;
  readonly vlan?: VlanTag | null;
  readonly srcIp: Ipv4Address;
  /** The reaction point: the data sender being told to slow down. */
  readonly dstIp: Ipv4Address;
  readonly udpSrcPort: number;
  /** The reaction point's QP number (the sender's own QP, not the one the marked packets addressed). */
  readonly destQp: number;
  /** Default `CNP_DEFAULT_DSCP` (48). */
  readonly dscp?: number;
  /** Default Not-ECT, so no switch can CE-mark a CNP. */
  readonly ecn?: Ecn;
  /** Default 64. */
  readonly ttl?: number;
  readonly identification?: number;
}

/**
 * Builds a RoCEv2 CNP: opcode 0x81, BECN set, P_Key 0xFFFF, PSN 0, no AckReq, 16 zero reserved bytes and
 * the ICRC; 74 bytes untagged.
 */
export function buildCnpFrame(spec: CnpFrameSpec): Uint8Array {
  return buildRoceV2Frame({
    srcMac: spec.srcMac,
    dstMac: spec.dstMac,
    vlan: spec.vlan ?? null,
    srcIp: spec.srcIp,
    dstIp: spec.dstIp,
    dscp: spec.dscp ?? CNP_DEFAULT_DSCP,
    ecn: spec.ecn ?? Ecn.NotEct,
    ttl: spec.ttl ?? 64,
    identification: spec.identification ?? 0,
    udpSrcPort: spec.udpSrcPort,
    opcode: Opcode.Cnp,
    destQp: spec.destQp,
    psn: 0,
    becn: true,
    pkey: DEFAULT_PKEY,
  });
}

// ---------------------------------------------------------------------------------------------------------
// UDP source port.

/**
 * The RoCEv2 UDP source port Linux drivers (`rdma_get_udp_sport`) and rdma-core
 * (`ibv_flow_label_to_udp_sport`) use: the 20-bit flow label, or when it is 0 a label folded from the
 * product of the two QP numbers (symmetric, so both ends of a connection agree), squeezed into 14 bits and
 * placed in 0xC000..0xFFFF. `flowLabel` is the GRH/AH flow label (20 bits; higher bits are ignored, as
 * the kernel ignores them once it has found the label non-zero).
 */
export function roceUdpSourcePort(localQpn: number, remoteQpn: number, flowLabel = 0): number {
  let fl = flowLabel;
  if (fl === 0) {
    // The kernel XORs a 48-bit product v with v >> 20 and v >> 40 and keeps 20 bits: that is bits 0..19,
    // 20..39 and 40..47 of v XORed together. The product of two 24-bit numbers is exact in a double.
    const v = (localQpn & QPN_MASK) * (remoteQpn & QPN_MASK);
    const low = v % 0x10_0000;
    const mid = Math.floor(v / 0x10_0000) % 0x10_0000;
    const high = Math.floor(v / 0x100_0000_0000);
    fl = low ^ mid ^ high;
  }
  return ((fl & 0x3fff) ^ ((fl & 0xf_c000) >>> 14)) | 0xc000;
}
