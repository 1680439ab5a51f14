// VXLAN (RFC 7348): an Ethernet frame carried in UDP to port 4789 behind an 8-byte header (flags with the
// I bit, 24 reserved bits, the 24-bit VNI, 8 reserved bits). The outer UDP source port carries a hash of
// the inner flow so that underlay ECMP spreads overlay flows (RFC 7348 §5).

import { type Ipv4Address, type MacAddress, readU16, readU24, writeU24, writeU32 } from "./bytes.js";
import {
  ETHERNET_HEADER_LENGTH,
  ETHERNET_MIN_FRAME,
  EtherType,
  serializeEthernet,
  VLAN_TAG_LENGTH,
} from "./ethernet.js";
import { type Ecn, IPV4_HEADER_LENGTH, IpProtocol, serializeIpv4 } from "./ipv4.js";
import { fail, ok, type Parsed, WireErrorCode } from "./result.js";
import { serializeUdp, UDP_HEADER_LENGTH, VXLAN_UDP_PORT } from "./udp.js";

export const VXLAN_HEADER_LENGTH = 8;
/** The I flag: the VNI field is valid. The only flag RFC 7348 defines. */
export const VXLAN_FLAG_I = 0x08;
/** Largest VXLAN network identifier (24 bits). */
export const MAX_VNI = 0xff_ffff;
/** Bytes VXLAN adds in front of the inner frame: outer Ethernet, IPv4, UDP and the VXLAN header. */
export const VXLAN_OVERHEAD =
  ETHERNET_HEADER_LENGTH + IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + VXLAN_HEADER_LENGTH;
/** First port of the dynamic range, where `vxlanSourcePort` picks from (RFC 7348 §5 recommends it). */
export const VXLAN_SOURCE_PORT_MIN = 49152;

export interface VxlanHeader {
  readonly vni: number;
  /** Where the inner Ethernet frame starts in the buffer handed to the parser. */
  readonly innerOffset: number;
  /** Bytes of the inner frame (up to `end`). */
  readonly innerLength: number;
}

/**
 * Parses the header at `offset` (the UDP payload); `end` is where the UDP payload ends. The I flag must be
 * set (BadValue otherwise); the reserved bits are ignored on receipt as RFC 7348 asks.
 */
export function parseVxlan(buf: Uint8Array, offset = 0, end = buf.length): Parsed<VxlanHeader> {
  if (end > buf.length) {
    return fail(
      "vxlan",
      WireErrorCode.Truncated,
      `UDP payload ends at byte ${end} but the buffer holds ${buf.length}`,
      offset,
    );
  }
  if (offset < 0 || offset + VXLAN_HEADER_LENGTH > end) {
    const have = Math.max(0, end - offset);
    return fail("vxlan", WireErrorCode.Truncated, `header needs 8 bytes, ${have} left`, offset);
  }
  const flags = buf[offset]!;
  if ((flags & VXLAN_FLAG_I) === 0) {
    return fail(
      "vxlan",
      WireErrorCode.BadValue,
      `flags 0x${flags.toString(16).padStart(2, "0")}: the I bit (0x08) is clear, so the VNI is not valid`,
      offset,
    );
  }
  return ok({
    vni: readU24(buf, offset + 4),
    innerOffset: offset + VXLAN_HEADER_LENGTH,
    innerLength: end - offset - VXLAN_HEADER_LENGTH,
  });
}

/** Writes the 8-byte header for `vni` (masked to 24 bits) at `offset`; returns the offset just past it. */
export function serializeVxlan(vni: number, buf: Uint8Array, offset = 0): number {
  writeU32(buf, offset, VXLAN_FLAG_I << 24);
  writeU24(buf, offset + 4, vni & MAX_VNI);
  buf[offset + 7] = 0;
  return offset + VXLAN_HEADER_LENGTH;
}

export interface VxlanFrameInit {
  readonly outerSrcMac: MacAddress;
  readonly outerDstMac: MacAddress;
  readonly outerSrcIp: Ipv4Address;
  readonly outerDstIp: Ipv4Address;
  /** Outer UDP source port: use `vxlanSourcePort(inner)` so the underlay hashes per inner flow. */
  readonly srcPort: number;
  /** 0..16777215; RangeError otherwise. */
  readonly vni: number;
  /** The whole inner Ethernet frame (no FCS). */
  readonly inner: Uint8Array;
  /**
   * Outer DSCP. Default: the inner IPv4 DSCP (0 when the inner frame is not IPv4), so the underlay puts
   * RoCE traffic in its lossless class just as it would without the overlay.
   */
  readonly dscp?: number;
  /**
   * Outer ECN. Default: the inner IPv4 ECN field (Not-ECT when not IPv4), the "normal mode" of RFC 6040,
   * so underlay switches can mark CE on ECN-capable overlay traffic.
   */
  readonly ecn?: Ecn;
  /** Default 64. */
  readonly ttl?: number;
  /** Default true, as serializeIpv4: we never fragment, a too-big packet should fail visibly. */
  readonly dontFragment?: boolean;
}

/**
 * A complete outer Ethernet/IPv4/UDP/VXLAN frame around `inner` (UDP checksum 0, as RFC 7348 recommends for
 * IPv4). Throws RangeError when `vni` does not fit in 24 bits.
 */
export function buildVxlanFrame(init: VxlanFrameInit): Uint8Array {
  if (!Number.isInteger(init.vni) || init.vni < 0 || init.vni > MAX_VNI) {
    throw new RangeError(`VNI ${init.vni} is not an integer in 0..${MAX_VNI}`);
  }
  const inner = init.inner;
  const frame = new Uint8Array(Math.max(ETHERNET_MIN_FRAME, VXLAN_OVERHEAD + inner.length));
  const innerIp = innerIpv4Offset(inner);
  const innerTos = innerIp >= 0 ? inner[innerIp + 1]! : 0;
  let at = serializeEthernet(
    { dst: init.outerDstMac, src: init.outerSrcMac, etherType: EtherType.IPv4 },
    frame,
    0,
  );
  at = serializeIpv4(
    {
      src: init.outerSrcIp,
      dst: init.outerDstIp,
      protocol: IpProtocol.UDP,
      payloadLength: UDP_HEADER_LENGTH + VXLAN_HEADER_LENGTH + inner.length,
      dscp: init.dscp ?? innerTos >>> 2,
      ecn: init.ecn ?? ((innerTos & 0b11) as Ecn),
      ttl: init.ttl ?? 64,
      dontFragment: init.dontFragment ?? true,
    },
    frame,
    at,
  );
  at = serializeUdp(
    { srcPort: init.srcPort, dstPort: VXLAN_UDP_PORT, payloadLength: VXLAN_HEADER_LENGTH + inner.length },
    frame,
    at,
  );
  at = serializeVxlan(init.vni, frame, at);
  frame.set(inner, at);
  return frame;
}

/** Offset of the IPv4 header in an Ethernet frame (looking through one 802.1Q tag), or -1. */
function innerIpv4Offset(frame: Uint8Array): number {
  if (frame.length < ETHERNET_HEADER_LENGTH) return -1;
  let at = ETHERNET_HEADER_LENGTH;
  let type = readU16(frame, 12);
  if (type === EtherType.VLAN) {
    if (frame.length < ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH) return -1;
    type = readU16(frame, 16);
    at += VLAN_TAG_LENGTH;
  }
  if (type !== EtherType.IPv4 || frame.length < at + IPV4_HEADER_LENGTH) return -1;
  if (frame[at]! >>> 4 !== 4) return -1;
  return at;
}

const FNV_OFFSET_BASIS = 0x811c_9dc5;
const FNV_PRIME = 0x0100_0193;
/** SCTP has ports where TCP and UDP do; ipv4.ts does not list it. */
const IP_PROTOCOL_SCTP = 132;

function fnv1a(h: number, buf: Uint8Array, off: number, len: number): number {
  let x = h;
  for (let i = off; i < off + len; i++) x = Math.imul(x ^ buf[i]!, FNV_PRIME);
  return x >>> 0;
}

/**
 * A deterministic outer UDP source port in 49152..65535 for an inner Ethernet frame, so that every frame
 * of one inner flow takes one underlay path and different flows spread (RFC 7348 §5).
 *
 * Hash: 32-bit FNV-1a (offset basis 0x811c9dc5, prime 0x01000193) over, in order, the inner destination
 * MAC, source MAC and EtherType (bytes 0..13, or what the frame has); then, when the frame (after at most
 * one 802.1Q tag, whose TCI is not hashed) is IPv4: the protocol byte and the source and destination
 * addresses; then, when the protocol is TCP, UDP or SCTP, the packet is not a fragment and the 4 bytes are
 * present: the source and destination ports. Fragments leave the ports out so that all pieces of a
 * datagram follow one path. The 32-bit hash is folded (h ^ h >>> 16) and its low 14 bits select the port:
 * 49152 + (fold & 0x3fff). Never reads past the frame, whatever its content.
 */
export function vxlanSourcePort(inner: Uint8Array): number {
  let h = fnv1a(FNV_OFFSET_BASIS, inner, 0, Math.min(inner.length, ETHERNET_HEADER_LENGTH));
  const ip = innerIpv4Offset(inner);
  if (ip >= 0) {
    h = fnv1a(h, inner, ip + 9, 1);
    h = fnv1a(h, inner, ip + 12, 8);
    const protocol = inner[ip + 9]!;
    const headerLength = (inner[ip]! & 0x0f) * 4;
    const fragment = (readU16(inner, ip + 6) & 0x3fff) !== 0;
    const l4 = ip + headerLength;
    if (
      (protocol === IpProtocol.TCP || protocol === IpProtocol.UDP || protocol === IP_PROTOCOL_SCTP) &&
      !fragment &&
      headerLength >= IPV4_HEADER_LENGTH &&
      l4 + 4 <= inner.length
    ) {
      h = fnv1a(h, inner, l4, 4);
    }
  }
  const folded = (h ^ (h >>> 16)) >>> 0;
  return VXLAN_SOURCE_PORT_MIN + (folded & 0x3fff);
}
