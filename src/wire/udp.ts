// UDP (RFC 768) over IPv4: header codec, the pseudo-header checksum, and hot-path port accessors.
// RoCEv2 and VXLAN both send checksum 0 ("none") over IPv4; the checksum is here for the kernel-made
// traffic that shares the fabric.

import { type Ipv4Address, internetChecksum, readU16, writeU16 } from "./bytes.js";
import { IpProtocol } from "./ipv4.js";
import { fail, ok, type Parsed, WireErrorCode } from "./result.js";

export const UDP_HEADER_LENGTH = 8;

/** IANA port of RoCEv2 (the BTH follows the UDP header). */
export const ROCEV2_UDP_PORT = 4791;
/** IANA port of VXLAN (RFC 7348 §5). */
export const VXLAN_UDP_PORT = 4789;

export interface UdpHeader {
  readonly srcPort: number;
  readonly dstPort: number;
  /** The length field: header plus payload, in bytes. */
  readonly length: number;
  /** As carried; 0 means the sender computed none. */
  readonly checksum: number;
  /** Where the payload starts in the buffer handed to the parser. */
  readonly payloadOffset: number;
  /** Payload bytes according to the length field. */
  readonly payloadLength: number;
}

/**
 * Parses the header at `offset`. `end` is where the IP payload ends (the IPv4 total length, not the end of
 * the frame, which may carry Ethernet padding). The length field must cover at least the header and must
 * fit before `end`. A datagram shorter than the IP payload is accepted and the rest ignored, as Linux does
 * (it trims the packet to the UDP length).
 */
export function parseUdp(buf: Uint8Array, offset = 0, end = buf.length): Parsed<UdpHeader> {
  if (end > buf.length) {
    return fail(
      "udp",
      WireErrorCode.Truncated,
      `IP payload ends at byte ${end} but the buffer holds ${buf.length}`,
      offset,
    );
  }
  if (offset < 0 || offset + UDP_HEADER_LENGTH > end) {
    const have = Math.max(0, end - offset);
    return fail("udp", WireErrorCode.Truncated, `header needs 8 bytes, ${have} left`, offset);
  }
  const length = readU16(buf, offset + 4);
  if (length < UDP_HEADER_LENGTH) {
    return fail("udp", WireErrorCode.BadLength, `length ${length} is below the header size 8`, offset + 4);
  }
  if (offset + length > end) {
    return fail(
      "udp",
      WireErrorCode.BadLength,
      `length ${length} but the IP payload holds ${end - offset} bytes`,
      offset + 4,
    );
  }
  return ok({
    srcPort: readU16(buf, offset),
    dstPort: readU16(buf, offset + 2),
    length,
    checksum: readU16(buf, offset + 6),
    payloadOffset: offset + UDP_HEADER_LENGTH,
    payloadLength: length - UDP_HEADER_LENGTH,
  });
}

export interface UdpInit {
  readonly srcPort: number;
  readonly dstPort: number;
  /** Bytes after the UDP header. */
  readonly payloadLength: number;
  /** Default 0 (no checksum), what RoCEv2 and VXLAN send. Use `udpChecksum` once the payload is in place. */
  readonly checksum?: number;
}

/** Writes the 8-byte header at `offset`; returns the offset just past it. */
export function serializeUdp(h: UdpInit, buf: Uint8Array, offset = 0): number {
  writeU16(buf, offset, h.srcPort);
  writeU16(buf, offset + 2, h.dstPort);
  writeU16(buf, offset + 4, UDP_HEADER_LENGTH + h.payloadLength);
  writeU16(buf, offset + 6, h.checksum ?? 0);
  return offset + UDP_HEADER_LENGTH;
}

/**
 * The checksum the datagram of `udpLength` bytes at `udpOffset` should carry, over the IPv4 pseudo-header
 * (source, destination, protocol 17, UDP length) and the datagram with its checksum field taken as zero.
 * A computed 0 is returned as 0xffff, because 0 on the wire means "no checksum" (RFC 768).
 * To verify a received datagram, compare with its checksum field when that is not 0.
 */
export function udpChecksum(
  srcIp: Ipv4Address,
  dstIp: Ipv4Address,
  buf: Uint8Array,
  udpOffset: number,
  udpLength: number,
): number {
  const pseudoAndHeader =
    (srcIp >>> 16) +
    (srcIp & 0xffff) +
    (dstIp >>> 16) +
    (dstIp & 0xffff) +
    IpProtocol.UDP +
    udpLength +
    readU16(buf, udpOffset) +
    readU16(buf, udpOffset + 2) +
    readU16(buf, udpOffset + 4);
  // The payload starts 8 bytes in, an even offset, so its 16-bit words line up with the datagram's.
  const c = internetChecksum(
    buf,
    udpOffset + UDP_HEADER_LENGTH,
    udpLength - UDP_HEADER_LENGTH,
    pseudoAndHeader,
  );
  return c === 0 ? 0xffff : c;
}

// Hot-path accessors: no parse, no allocation. `off` is the offset of the UDP header, which the caller has
// checked is there.

export function udpSrcPort(buf: Uint8Array, off: number): number {
  return readU16(buf, off);
}

export function udpDstPort(buf: Uint8Array, off: number): number {
  return readU16(buf, off + 2);
}

export function udpLength(buf: Uint8Array, off: number): number {
  return readU16(buf, off + 4);
}
