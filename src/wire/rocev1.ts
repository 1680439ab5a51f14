// RoCEv1: the InfiniBand transport straight over Ethernet (EtherType 0x8915), with IB's 40-byte Global
// Route Header (GRH) in place of an IP header. The GRH is shaped like an IPv6 header (version 6, traffic
// class, flow label, payload length, next header, hop limit, 128-bit source and destination GIDs), but its
// next header is 0x1B, "IBA transport", and the packet is not routable: RoCEv1 stays in one L2 domain.
//
// Frame: Ethernet | GRH (40) | BTH (12) | extension headers | payload | pad | ICRC (4).

import { type MacAddress, readU16, writeU16 } from "./bytes.js";
import {
  ETHERNET_HEADER_LENGTH,
  type EthernetHeader,
  EtherType,
  parseEthernet,
  serializeEthernet,
  VLAN_TAG_LENGTH,
  type VlanTag,
} from "./ethernet.js";
import { computeIcrcV1, ICRC_LENGTH, readIcrc, writeIcrcV1 } from "./icrc.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";
import { type RoceTransportSpec, roceTransportLength, serializeRoceTransport } from "./roce-frame.js";
import { parseRoce, type RoceHeaders } from "./roce-packet.js";

export const GRH_LENGTH = 40;
/** The GRH's IPVer field: always 6, since it shares the IPv6 header's shape. */
export const GRH_IP_VERSION = 6;
/** The GRH's NxtHdr value for an IBA transport header (the BTH) following. */
export const GRH_NEXT_HEADER_IBA = 0x1b;
/** Bytes of a GID (an IPv6-format address: for RoCEv1, the link-local address derived from the MAC). */
export const GID_LENGTH = 16;

export interface Grh {
  /** 8 bits; the IB counterpart of the IP TOS byte. */
  readonly trafficClass: number;
  /** 20 bits. */
  readonly flowLabel: number;
  /** Bytes after the GRH up to and including the ICRC. */
  readonly payloadLength: number;
  readonly nextHeader: number;
  readonly hopLimit: number;
  /** Source GID, 16 bytes (a copy). */
  readonly sgid: Uint8Array;
  /** Destination GID, 16 bytes (a copy). */
  readonly dgid: Uint8Array;
}

export interface GrhInit {
  /** Bytes after the GRH up to and including the ICRC. */
  readonly payloadLength: number;
  readonly sgid: Uint8Array;
  readonly dgid: Uint8Array;
  /** Default 0. */
  readonly trafficClass?: number;
  /** Default 0. */
  readonly flowLabel?: number;
  /** Default `GRH_NEXT_HEADER_IBA`. */
  readonly nextHeader?: number;
  /** Default 64. Nothing routes RoCEv1, and the ICRC masks this field, so the value is cosmetic. */
  readonly hopLimit?: number;
}

/**
 * Parses the GRH at `offset`. Checks IPVer 6, next header 0x1B (a BTH follows) and that the payload length
 * fits in `buf`, which may extend past the packet (Ethernet padding).
 */
export function parseGrh(buf: Uint8Array, offset = 0): Parsed<Grh> {
  const short = need("grh", buf, offset, GRH_LENGTH);
  if (short) return short;
  const version = buf[offset]! >>> 4;
  if (version !== GRH_IP_VERSION) {
    return fail("grh", WireErrorCode.BadVersion, `IPVer ${version}, expected ${GRH_IP_VERSION}`, offset);
  }
  const nextHeader = buf[offset + 6]!;
  if (nextHeader !== GRH_NEXT_HEADER_IBA) {
    return fail(
      "grh",
      WireErrorCode.BadValue,
      `next header 0x${nextHeader.toString(16)}, expected 0x1b (IBA transport)`,
      offset + 6,
    );
  }
  const payloadLength = readU16(buf, offset + 4);
  const present = buf.length - offset - GRH_LENGTH;
  if (payloadLength > present) {
    return fail(
      "grh",
      WireErrorCode.Truncated,
      `payload length ${payloadLength} but only ${present} bytes follow the GRH`,
      offset + 4,
    );
  }
  return ok({
    trafficClass: ((buf[offset]! & 0x0f) << 4) | (buf[offset + 1]! >>> 4),
    flowLabel: ((buf[offset + 1]! & 0x0f) << 16) | readU16(buf, offset + 2),
    payloadLength,
    nextHeader,
    hopLimit: buf[offset + 7]!,
    sgid: buf.slice(offset + 8, offset + 24),
    dgid: buf.slice(offset + 24, offset + 40),
  });
}

/** Writes the 40-byte GRH at `offset`; returns the offset just past it. Throws if a GID is not 16 bytes. */
export function serializeGrh(h: GrhInit, buf: Uint8Array, offset = 0): number {
  if (h.sgid.length !== GID_LENGTH || h.dgid.length !== GID_LENGTH) {
    throw new RangeError(`GIDs are ${GID_LENGTH} bytes, got ${h.sgid.length} and ${h.dgid.length}`);
  }
  const trafficClass = (h.trafficClass ?? 0) & 0xff;
  const flowLabel = (h.flowLabel ?? 0) & 0xf_ffff;
  buf[offset] = (GRH_IP_VERSION << 4) | (trafficClass >>> 4);
  buf[offset + 1] = ((trafficClass & 0x0f) << 4) | (flowLabel >>> 16);
  writeU16(buf, offset + 2, flowLabel & 0xffff);
  writeU16(buf, offset + 4, h.payloadLength);
  buf[offset + 6] = h.nextHeader ?? GRH_NEXT_HEADER_IBA;
  buf[offset + 7] = h.hopLimit ?? 64;
  buf.set(h.sgid, offset + 8);
  buf.set(h.dgid, offset + 24);
  return offset + GRH_LENGTH;
}

/** A whole RoCEv1 frame: Ethernet, GRH and the transport fields. */
export interface RoceV1FrameSpec extends RoceTransportSpec {
  readonly srcMac: MacAddress;
  readonly dstMac: MacAddress;
  readonly vlan?: VlanTag | null;
  readonly sgid: Uint8Array;
  readonly dgid: Uint8Array;
  readonly trafficClass?: number;
  readonly flowLabel?: number;
  readonly hopLimit?: number;
}

/**
 * Builds a complete RoCEv1 frame (no FCS): Ethernet with EtherType 0x8915 (optional 802.1Q tag), GRH, BTH,
 * extension headers, payload, zero pad and ICRC. Throws on the caller bugs `buildRoceV2Frame` throws on,
 * and when a GID is not 16 bytes.
 */
export function buildRoceV1Frame(spec: RoceV1FrameSpec): Uint8Array {
  const transportLength = roceTransportLength(spec);
  if (transportLength > 0xffff) throw new RangeError(`GRH payload of ${transportLength} bytes exceeds 65535`);
  const grhOffset = spec.vlan ? ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH : ETHERNET_HEADER_LENGTH;
  const frame = new Uint8Array(grhOffset + GRH_LENGTH + transportLength);
  serializeEthernet(
    { dst: spec.dstMac, src: spec.srcMac, etherType: EtherType.RoCEv1, vlan: spec.vlan ?? null },
    frame,
    0,
  );
  const bthOffset = serializeGrh(
    {
      payloadLength: transportLength,
      sgid: spec.sgid,
      dgid: spec.dgid,
      trafficClass: spec.trafficClass ?? 0,
      flowLabel: spec.flowLabel ?? 0,
      hopLimit: spec.hopLimit ?? 64,
    },
    frame,
    grhOffset,
  );
  serializeRoceTransport(spec, frame, bthOffset);
  writeIcrcV1(frame, grhOffset, frame.length);
  return frame;
}

export interface RoceV1Frame {
  readonly ethernet: EthernetHeader;
  readonly grh: Grh;
  /** Offset of the GRH in the frame (14, or 18 when tagged). */
  readonly grhOffset: number;
  /** BTH on; its offsets are relative to the frame. */
  readonly roce: RoceHeaders;
}

export interface ParseRoceV1Options {
  /** Verify the ICRC (default true). */
  readonly verifyIcrc?: boolean;
}

/**
 * Parses a RoCEv1 frame: Ethernet (EtherType 0x8915, optionally tagged), GRH, then the transport via
 * `parseRoce` up to the end the GRH's payload length gives (bytes after it are Ethernet padding).
 */
export function parseRoceV1Frame(frame: Uint8Array, opts: ParseRoceV1Options = {}): Parsed<RoceV1Frame> {
  const eth = parseEthernet(frame);
  if (!eth.ok) return eth;
  if (eth.value.etherType !== EtherType.RoCEv1) {
    return fail(
      "ethernet",
      WireErrorCode.BadValue,
      `EtherType 0x${eth.value.etherType.toString(16).padStart(4, "0")}, expected 0x8915 (RoCEv1)`,
      eth.value.headerLength - 2,
    );
  }
  const grhOffset = eth.value.headerLength;
  const grh = parseGrh(frame, grhOffset);
  if (!grh.ok) return grh;
  const end = grhOffset + GRH_LENGTH + grh.value.payloadLength;
  const roce = parseRoce(frame, grhOffset + GRH_LENGTH, end);
  if (!roce.ok) return roce;
  if (opts.verifyIcrc !== false) {
    const expected = computeIcrcV1(frame, grhOffset, end);
    const carried = readIcrc(frame, end);
    if (expected !== carried) {
      return fail(
        "icrc",
        WireErrorCode.BadChecksum,
        `ICRC 0x${carried.toString(16).padStart(8, "0")}, expected 0x${expected.toString(16).padStart(8, "0")}`,
        end - ICRC_LENGTH,
      );
    }
  }
  return ok({ ethernet: eth.value, grh: grh.value, grhOffset, roce: roce.value });
}
