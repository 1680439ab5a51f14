// IPv4 (RFC 791) without options on transmit; options are accepted and skipped on receive.
// DSCP and ECN (RFC 2474, RFC 3168) accessors, and in-place rewrites of ECN, DSCP and TTL that keep the
// header checksum right with the incremental update of RFC 1624 (HC' = ~(~HC + ~m + m')).

import { type Ipv4Address, internetChecksum, readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

export const IPV4_HEADER_LENGTH = 20;

export const IpProtocol = {
  ICMP: 1,
  TCP: 6,
  UDP: 17,
} as const;

/** The two ECN bits of the TOS byte (RFC 3168 §5). */
export const Ecn = {
  NotEct: 0b00,
  Ect1: 0b01,
  Ect0: 0b10,
  Ce: 0b11,
} as const;
export type Ecn = (typeof Ecn)[keyof typeof Ecn];

export const IPV4_FLAG_DF = 0x4000;
export const IPV4_FLAG_MF = 0x2000;

export interface Ipv4Header {
  readonly dscp: number;
  readonly ecn: Ecn;
  /** Header length in bytes (IHL × 4). */
  readonly headerLength: number;
  readonly totalLength: number;
  readonly identification: number;
  readonly dontFragment: boolean;
  readonly moreFragments: boolean;
  readonly fragmentOffset: number;
  readonly ttl: number;
  readonly protocol: number;
  readonly checksum: number;
  readonly src: Ipv4Address;
  readonly dst: Ipv4Address;
}

export interface ParseIpv4Options {
  /** Verify the header checksum (default true). */
  readonly verifyChecksum?: boolean;
}

/**
 * Parses the header at `offset`. `buf` may extend past the packet (Ethernet padding): the packet ends at
 * `offset + totalLength`, which must fit in `buf`.
 */
export function parseIpv4(buf: Uint8Array, offset = 0, opts: ParseIpv4Options = {}): Parsed<Ipv4Header> {
  const short = need("ipv4", buf, offset, IPV4_HEADER_LENGTH);
  if (short) return short;
  const version = buf[offset]! >>> 4;
  if (version !== 4) return fail("ipv4", WireErrorCode.BadVersion, `version ${version}, expected 4`, offset);
  const headerLength = (buf[offset]! & 0x0f) * 4;
  if (headerLength < IPV4_HEADER_LENGTH) {
    return fail("ipv4", WireErrorCode.BadLength, `IHL ${headerLength / 4} is below the minimum 5`, offset);
  }
  const totalLength = readU16(buf, offset + 2);
  if (totalLength < headerLength) {
    return fail(
      "ipv4",
      WireErrorCode.BadLength,
      `total length ${totalLength} is shorter than the header (${headerLength})`,
      offset + 2,
    );
  }
  if (offset + totalLength > buf.length) {
    return fail(
      "ipv4",
      WireErrorCode.Truncated,
      `total length ${totalLength} but only ${buf.length - offset} bytes present`,
      offset + 2,
    );
  }
  const checksum = readU16(buf, offset + 10);
  if (opts.verifyChecksum !== false && internetChecksum(buf, offset, headerLength) !== 0) {
    const expected = ipv4HeaderChecksum(buf, offset);
    return fail(
      "ipv4",
      WireErrorCode.BadChecksum,
      `header checksum 0x${checksum.toString(16).padStart(4, "0")}, expected 0x${expected.toString(16).padStart(4, "0")}`,
      offset + 10,
    );
  }
  const flagsFrag = readU16(buf, offset + 6);
  return ok({
    dscp: buf[offset + 1]! >>> 2,
    ecn: (buf[offset + 1]! & 0b11) as Ecn,
    headerLength,
    totalLength,
    identification: readU16(buf, offset + 4),
    dontFragment: (flagsFrag & IPV4_FLAG_DF) !== 0,
    moreFragments: (flagsFrag & IPV4_FLAG_MF) !== 0,
    fragmentOffset: (flagsFrag & 0x1fff) * 8,
    ttl: buf[offset + 8]!,
    protocol: buf[offset + 9]!,
    checksum,
    src: readU32(buf, offset + 12),
    dst: readU32(buf, offset + 16),
  });
}

export interface Ipv4Init {
  readonly src: Ipv4Address;
  readonly dst: Ipv4Address;
  readonly protocol: number;
  /** Bytes after the IPv4 header. */
  readonly payloadLength: number;
  readonly dscp?: number;
  readonly ecn?: Ecn;
  /** Default 64. */
  readonly ttl?: number;
  readonly identification?: number;
  /** Default true (RoCEv2 sets DF). */
  readonly dontFragment?: boolean;
}

/** Writes a 20-byte header with a correct checksum at `offset`; returns the offset just past it. */
export function serializeIpv4(h: Ipv4Init, buf: Uint8Array, offset = 0): number {
  buf[offset] = 0x45;
  buf[offset + 1] = (((h.dscp ?? 0) & 0x3f) << 2) | ((h.ecn ?? Ecn.NotEct) & 0b11);
  writeU16(buf, offset + 2, IPV4_HEADER_LENGTH + h.payloadLength);
  writeU16(buf, offset + 4, h.identification ?? 0);
  writeU16(buf, offset + 6, h.dontFragment === false ? 0 : IPV4_FLAG_DF);
  buf[offset + 8] = h.ttl ?? 64;
  buf[offset + 9] = h.protocol;
  writeU16(buf, offset + 10, 0);
  writeU32(buf, offset + 12, h.src);
  writeU32(buf, offset + 16, h.dst);
  writeU16(buf, offset + 10, internetChecksum(buf, offset, IPV4_HEADER_LENGTH));
  return offset + IPV4_HEADER_LENGTH;
}

/** The checksum the header at `offset` should carry (computed with the checksum field taken as zero). */
export function ipv4HeaderChecksum(buf: Uint8Array, offset = 0): number {
  const headerLength = (buf[offset]! & 0x0f) * 4;
  let sum = 0;
  for (let i = 0; i < headerLength; i += 2) if (i !== 10) sum += readU16(buf, offset + i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

// Hot-path accessors and in-place rewrites. `off` is the offset of the IPv4 header in `buf`; the
// caller has checked that a header is there.

export function ipv4Dscp(buf: Uint8Array, off: number): number {
  return buf[off + 1]! >>> 2;
}

export function ipv4Ecn(buf: Uint8Array, off: number): Ecn {
  return (buf[off + 1]! & 0b11) as Ecn;
}

export function ipv4Ttl(buf: Uint8Array, off: number): number {
  return buf[off + 8]!;
}

export function ipv4Protocol(buf: Uint8Array, off: number): number {
  return buf[off + 9]!;
}

export function ipv4Src(buf: Uint8Array, off: number): Ipv4Address {
  return readU32(buf, off + 12);
}

export function ipv4Dst(buf: Uint8Array, off: number): Ipv4Address {
  return readU32(buf, off + 16);
}

export function ipv4HeaderLength(buf: Uint8Array, off: number): number {
  return (buf[off]! & 0x0f) * 4;
}

export function ipv4TotalLength(buf: Uint8Array, off: number): number {
  return readU16(buf, off + 2);
}

/**
 * Replaces the 16-bit word at `off + wordOffset` (even offset inside the header) and updates the checksum
 * incrementally (RFC 1624 eqn. 3).
 */
function rewriteWord(buf: Uint8Array, off: number, wordOffset: number, newWord: number): void {
  const oldWord = readU16(buf, off + wordOffset);
  if (oldWord === newWord) return;
  writeU16(buf, off + wordOffset, newWord);
  const hc = readU16(buf, off + 10);
  let sum = (~hc & 0xffff) + (~oldWord & 0xffff) + newWord;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  writeU16(buf, off + 10, ~sum & 0xffff);
}

/** Sets the ECN field in place (checksum kept valid). */
export function setIpv4Ecn(buf: Uint8Array, off: number, ecn: Ecn): void {
  rewriteWord(buf, off, 0, (buf[off]! << 8) | (buf[off + 1]! & 0xfc) | ecn);
}

/** Sets the DSCP field in place, keeping ECN (checksum kept valid). */
export function setIpv4Dscp(buf: Uint8Array, off: number, dscp: number): void {
  rewriteWord(buf, off, 0, (buf[off]! << 8) | ((dscp & 0x3f) << 2) | (buf[off + 1]! & 0b11));
}

/** Sets the TTL in place (checksum kept valid). */
export function setIpv4Ttl(buf: Uint8Array, off: number, ttl: number): void {
  rewriteWord(buf, off, 8, ((ttl & 0xff) << 8) | buf[off + 9]!);
}

/** Decrements TTL in place (checksum kept valid); returns the new TTL. The caller drops at 0. */
export function decrementIpv4Ttl(buf: Uint8Array, off: number): number {
  const ttl = buf[off + 8]!;
  const next = ttl === 0 ? 0 : ttl - 1;
  setIpv4Ttl(buf, off, next);
  return next;
}

/** A TOS byte from DSCP and ECN (what Linux calls the TOS, and `cma_roce_tos` takes). */
export function tos(dscp: number, ecn: Ecn): number {
  return ((dscp & 0x3f) << 2) | ecn;
}

/** DSCP code points: the 6-bit field of the IPv4 traffic class (RFC 2474). */
export const DSCP_VALUES = 64;
