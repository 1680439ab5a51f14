// ICMP for IPv4 (RFC 792): echo request and reply, and the two common router errors: time exceeded (what
// makes traceroute work through our switches, which send it) and destination unreachable (including RFC
// 1191's fragmentation-needed, which carries the next-hop MTU; the codec has it, the switch drops a packet
// without a route silently). Errors quote the offending datagram's IP header
// and the first 8 bytes of its payload, enough for the sender to match its ports.

import { type Ipv4Address, internetChecksum, type MacAddress, readU16, writeU16, writeU32 } from "./bytes.js";
import { ETHERNET_HEADER_LENGTH, ETHERNET_MIN_FRAME, EtherType, serializeEthernet } from "./ethernet.js";
import { IPV4_HEADER_LENGTH, IpProtocol, serializeIpv4 } from "./ipv4.js";
import { fail, ok, type Parsed, WireErrorCode } from "./result.js";

/** Type, code, checksum and the 4-byte rest-of-header every ICMP message starts with. */
export const ICMP_HEADER_LENGTH = 8;
/** Bytes of the original datagram's payload quoted after its IP header (RFC 792). */
export const ICMP_QUOTED_PAYLOAD = 8;

export const IcmpType = {
  EchoReply: 0,
  DestinationUnreachable: 3,
  EchoRequest: 8,
  TimeExceeded: 11,
} as const;
export type IcmpType = (typeof IcmpType)[keyof typeof IcmpType];

/** Codes of Destination Unreachable. */
export const IcmpUnreachableCode = {
  Net: 0,
  Host: 1,
  Protocol: 2,
  Port: 3,
  /** Fragmentation needed and DF set; the message carries the next-hop MTU (RFC 1191). */
  FragmentationNeeded: 4,
} as const;
export type IcmpUnreachableCode = (typeof IcmpUnreachableCode)[keyof typeof IcmpUnreachableCode];

/** Codes of Time Exceeded. */
export const IcmpTimeExceededCode = {
  /** TTL reached 0 in transit: what a router sends. */
  Ttl: 0,
  FragmentReassembly: 1,
} as const;
export type IcmpTimeExceededCode = (typeof IcmpTimeExceededCode)[keyof typeof IcmpTimeExceededCode];

export type IcmpEchoType = typeof IcmpType.EchoRequest | typeof IcmpType.EchoReply;
export type IcmpErrorType = typeof IcmpType.DestinationUnreachable | typeof IcmpType.TimeExceeded;

export interface IcmpEcho {
  readonly type: IcmpEchoType;
  readonly code: number;
  readonly identifier: number;
  readonly sequence: number;
  /** Where the echo data starts in the buffer handed to the parser. */
  readonly dataOffset: number;
  readonly dataLength: number;
}

export interface IcmpError {
  readonly type: IcmpErrorType;
  readonly code: number;
  /**
   * Next-hop MTU in bytes for Destination Unreachable / Fragmentation Needed (0 from routers older than
   * RFC 1191), null for every other error.
   */
  readonly nextHopMtu: number | null;
  /** Where the quoted original datagram (its IP header first) starts in the buffer handed to the parser. */
  readonly dataOffset: number;
  /**
   * Bytes quoted. A quote normally stops 8 bytes into the original's payload, short of its IPv4 total
   * length: read it with the ipv4 accessors rather than `parseIpv4`, which would report it truncated.
   */
  readonly dataLength: number;
}

export type IcmpMessage = IcmpEcho | IcmpError;

/**
 * Parses the message from `offset` to `end` (the end of the IP payload, not of the frame) and verifies its
 * checksum, which covers the whole message. Types other than the four above are BadValue; codes are
 * returned as carried.
 */
export function parseIcmp(buf: Uint8Array, offset = 0, end = buf.length): Parsed<IcmpMessage> {
  if (end > buf.length) {
    return fail(
      "icmp",
      WireErrorCode.Truncated,
      `IP payload ends at byte ${end} but the buffer holds ${buf.length}`,
      offset,
    );
  }
  if (offset < 0 || offset + ICMP_HEADER_LENGTH > end) {
    const have = Math.max(0, end - offset);
    return fail("icmp", WireErrorCode.Truncated, `header needs 8 bytes, ${have} left`, offset);
  }
  if (internetChecksum(buf, offset, end - offset) !== 0) {
    const carried = readU16(buf, offset + 2);
    const expected = icmpChecksum(buf, offset, end - offset);
    return fail(
      "icmp",
      WireErrorCode.BadChecksum,
      `checksum 0x${carried.toString(16).padStart(4, "0")}, expected 0x${expected.toString(16).padStart(4, "0")}`,
      offset + 2,
    );
  }
  const type = buf[offset]!;
  const code = buf[offset + 1]!;
  const dataOffset = offset + ICMP_HEADER_LENGTH;
  const dataLength = end - dataOffset;
  switch (type) {
    case IcmpType.EchoRequest:
    case IcmpType.EchoReply:
      return ok({
        type,
        code,
        identifier: readU16(buf, offset + 4),
        sequence: readU16(buf, offset + 6),
        dataOffset,
        dataLength,
      });
    case IcmpType.DestinationUnreachable:
    case IcmpType.TimeExceeded: {
      const fragNeeded =
        type === IcmpType.DestinationUnreachable && code === IcmpUnreachableCode.FragmentationNeeded;
      return ok({
        type,
        code,
        nextHopMtu: fragNeeded ? readU16(buf, offset + 6) : null,
        dataOffset,
        dataLength,
      });
    }
    default:
      return fail(
        "icmp",
        WireErrorCode.BadValue,
        `type ${type} is not echo (0, 8), destination unreachable (3) or time exceeded (11)`,
        offset,
      );
  }
}

/** The checksum the message of `length` bytes at `offset` should carry (its checksum field taken as 0). */
export function icmpChecksum(buf: Uint8Array, offset: number, length: number): number {
  // Sum the type/code word, skip the checksum word, then the rest (from an even offset, so words align).
  return internetChecksum(buf, offset + 4, length - 4, readU16(buf, offset));
}

export interface IcmpEchoInit {
  readonly type: IcmpEchoType;
  readonly identifier: number;
  readonly sequence: number;
  /** Echo data; a reply must carry the request's data unchanged. Default empty. */
  readonly data?: Uint8Array;
}

/** Bytes of an echo message carrying `dataLength` bytes of data. */
export function icmpEchoLength(dataLength: number): number {
  return ICMP_HEADER_LENGTH + dataLength;
}

/** Writes a complete echo message (code 0, checksum filled in) at `offset`; returns the offset past it. */
export function serializeIcmpEcho(m: IcmpEchoInit, buf: Uint8Array, offset = 0): number {
  const data = m.data ?? EMPTY;
  buf[offset] = m.type;
  buf[offset + 1] = 0;
  writeU16(buf, offset + 2, 0);
  writeU16(buf, offset + 4, m.identifier);
  writeU16(buf, offset + 6, m.sequence);
  buf.set(data, offset + ICMP_HEADER_LENGTH);
  const length = ICMP_HEADER_LENGTH + data.length;
  writeU16(buf, offset + 2, internetChecksum(buf, offset, length));
  return offset + length;
}

const EMPTY = new Uint8Array(0);

export interface IcmpErrorInit {
  readonly type: IcmpErrorType;
  /** An `IcmpUnreachableCode` or `IcmpTimeExceededCode`. */
  readonly code: number;
  /**
   * The offending datagram from its IPv4 header on (a subarray of the received frame will do; Ethernet
   * padding after the datagram's total length is not quoted).
   */
  readonly original: Uint8Array;
  /** For Fragmentation Needed: the MTU of the next hop in bytes. Ignored for other codes. */
  readonly nextHopMtu?: number;
}

/**
 * Bytes of `original` an error message quotes: its IP header and the first 8 bytes of its payload, or
 * fewer when the datagram is shorter. A header whose IHL is below 5 is taken as 20 bytes so a broken
 * datagram is still quoted.
 */
export function icmpQuoteLength(original: Uint8Array): number {
  if (original.length < IPV4_HEADER_LENGTH) return original.length;
  const headerLength = Math.max((original[0]! & 0x0f) * 4, IPV4_HEADER_LENGTH);
  const totalLength = readU16(original, 2);
  // Trust the total length only when it is plausible; otherwise quote what is there.
  const available = totalLength >= headerLength ? Math.min(totalLength, original.length) : original.length;
  return Math.min(available, headerLength + ICMP_QUOTED_PAYLOAD);
}

/** Bytes of the error message `serializeIcmpError` writes for `original`. */
export function icmpErrorLength(original: Uint8Array): number {
  return ICMP_HEADER_LENGTH + icmpQuoteLength(original);
}

/** Writes a complete error message (checksum filled in) at `offset`; returns the offset just past it. */
export function serializeIcmpError(m: IcmpErrorInit, buf: Uint8Array, offset = 0): number {
  const quoted = icmpQuoteLength(m.original);
  buf[offset] = m.type;
  buf[offset + 1] = m.code;
  writeU16(buf, offset + 2, 0);
  // Rest of header: unused (zero), except the next-hop MTU in the low 16 bits for Fragmentation Needed.
  const fragNeeded =
    m.type === IcmpType.DestinationUnreachable && m.code === IcmpUnreachableCode.FragmentationNeeded;
  writeU32(buf, offset + 4, fragNeeded ? (m.nextHopMtu ?? 0) & 0xffff : 0);
  buf.set(m.original.subarray(0, quoted), offset + ICMP_HEADER_LENGTH);
  const length = ICMP_HEADER_LENGTH + quoted;
  writeU16(buf, offset + 2, internetChecksum(buf, offset, length));
  return offset + length;
}

export type IcmpInit = IcmpEchoInit | IcmpErrorInit;

function isEcho(m: IcmpInit): m is IcmpEchoInit {
  return m.type === IcmpType.EchoRequest || m.type === IcmpType.EchoReply;
}

/** Bytes of the message `serializeIcmp` writes for `m`. */
export function icmpLength(m: IcmpInit): number {
  return isEcho(m) ? icmpEchoLength(m.data?.length ?? 0) : icmpErrorLength(m.original);
}

/** Writes an echo or error message at `offset`; returns the offset just past it. */
export function serializeIcmp(m: IcmpInit, buf: Uint8Array, offset = 0): number {
  return isEcho(m) ? serializeIcmpEcho(m, buf, offset) : serializeIcmpError(m, buf, offset);
}

export interface IcmpFrameInit {
  readonly srcMac: MacAddress;
  readonly dstMac: MacAddress;
  readonly srcIp: Ipv4Address;
  readonly dstIp: Ipv4Address;
  readonly message: IcmpInit;
  /** Default 0. Our switches send their own ICMP with DSCP 48 (network control). */
  readonly dscp?: number;
  /** Default 64. */
  readonly ttl?: number;
  readonly identification?: number;
  /**
   * Default false: Linux sends its ICMP without DF (its ICMP socket uses IP_PMTUDISC_DONT), so an error
   * about a too-big packet can itself be fragmented rather than lost.
   */
  readonly dontFragment?: boolean;
}

/** A complete Ethernet/IPv4/ICMP frame (no FCS), zero-padded to 60 bytes when shorter. */
export function buildIcmpFrame(init: IcmpFrameInit): Uint8Array {
  const icmpLen = icmpLength(init.message);
  const frame = new Uint8Array(
    Math.max(ETHERNET_MIN_FRAME, ETHERNET_HEADER_LENGTH + IPV4_HEADER_LENGTH + icmpLen),
  );
  let at = serializeEthernet({ dst: init.dstMac, src: init.srcMac, etherType: EtherType.IPv4 }, frame, 0);
  at = serializeIpv4(
    {
      src: init.srcIp,
      dst: init.dstIp,
      protocol: IpProtocol.ICMP,
      payloadLength: icmpLen,
      dscp: init.dscp ?? 0,
      ttl: init.ttl ?? 64,
      identification: init.identification ?? 0,
      dontFragment: init.dontFragment ?? false,
    },
    frame,
    at,
  );
  serializeIcmp(init.message, frame, at);
  return frame;
}
