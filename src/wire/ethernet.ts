// Ethernet II with an optional IEEE 802.1Q tag (TPID 0x8100: PCP, DEI, VID).

import { type MacAddress, readMac, readU16, writeMac, writeU16 } from "./bytes.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

export const EtherType = {
  IPv4: 0x0800,
  ARP: 0x0806,
  VLAN: 0x8100,
  IPv6: 0x86dd,
  MacControl: 0x8808,
  LLDP: 0x88cc,
  RoCEv1: 0x8915,
} as const;

export const ETHERNET_HEADER_LENGTH = 14;
export const VLAN_TAG_LENGTH = 4;
/** Smallest frame on the wire without FCS; shorter frames are padded with zeros. */
export const ETHERNET_MIN_FRAME = 60;
/** Preamble + SFD (8) + inter-frame gap (12): bytes of wire time every frame costs beyond its own. */
export const ETHERNET_WIRE_OVERHEAD = 20;
/** The FCS we do not carry in memory (the kernel and libpcap strip it) but that costs wire time. */
export const ETHERNET_FCS_LENGTH = 4;

export interface VlanTag {
  /** Priority code point, 0..7 (802.1p priority). */
  readonly pcp: number;
  /** Drop eligible indicator. */
  readonly dei: boolean;
  /** VLAN id, 0..4095 (0: priority-tagged only). */
  readonly vid: number;
}

export interface EthernetHeader {
  readonly dst: MacAddress;
  readonly src: MacAddress;
  readonly vlan: VlanTag | null;
  /** EtherType of the payload (after the tag, if any). */
  readonly etherType: number;
  /** 14, or 18 with a tag: where the payload starts, relative to the header's start. */
  readonly headerLength: number;
}

export function parseEthernet(buf: Uint8Array, offset = 0): Parsed<EthernetHeader> {
  const short = need("ethernet", buf, offset, ETHERNET_HEADER_LENGTH);
  if (short) return short;
  const dst = readMac(buf, offset);
  const src = readMac(buf, offset + 6);
  let etherType = readU16(buf, offset + 12);
  if (etherType !== EtherType.VLAN) {
    if (etherType < 0x0600) {
      return fail(
        "ethernet",
        WireErrorCode.BadValue,
        `type/length field 0x${etherType.toString(16)} is an 802.3 length, not an EtherType`,
        offset + 12,
      );
    }
    return ok({ dst, src, vlan: null, etherType, headerLength: ETHERNET_HEADER_LENGTH });
  }
  const shortTag = need("ethernet", buf, offset, ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH, "802.1Q tag");
  if (shortTag) return shortTag;
  const tci = readU16(buf, offset + 14);
  etherType = readU16(buf, offset + 16);
  const vlan: VlanTag = { pcp: tci >>> 13, dei: (tci & 0x1000) !== 0, vid: tci & 0x0fff };
  return ok({ dst, src, vlan, etherType, headerLength: ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH });
}

export interface EthernetInit {
  readonly dst: MacAddress;
  readonly src: MacAddress;
  readonly etherType: number;
  readonly vlan?: VlanTag | null;
}

export function ethernetHeaderLength(h: EthernetInit): number {
  return h.vlan ? ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH : ETHERNET_HEADER_LENGTH;
}

/** Writes the header at `offset`; returns the offset just past it. */
export function serializeEthernet(h: EthernetInit, buf: Uint8Array, offset = 0): number {
  writeMac(buf, offset, h.dst);
  writeMac(buf, offset + 6, h.src);
  if (h.vlan) {
    writeU16(buf, offset + 12, EtherType.VLAN);
    writeU16(buf, offset + 14, ((h.vlan.pcp & 7) << 13) | (h.vlan.dei ? 0x1000 : 0) | (h.vlan.vid & 0x0fff));
    writeU16(buf, offset + 16, h.etherType);
    return offset + ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH;
  }
  writeU16(buf, offset + 12, h.etherType);
  return offset + ETHERNET_HEADER_LENGTH;
}

// Hot-path accessors: no parse, no allocation. The caller has checked the frame is long enough.

/** Offset of the payload (14, or 18 when 802.1Q-tagged). */
export function ethPayloadOffset(frame: Uint8Array): number {
  return readU16(frame, 12) === EtherType.VLAN
    ? ETHERNET_HEADER_LENGTH + VLAN_TAG_LENGTH
    : ETHERNET_HEADER_LENGTH;
}

/** The payload EtherType, looking through one 802.1Q tag. */
export function ethType(frame: Uint8Array): number {
  const t = readU16(frame, 12);
  return t === EtherType.VLAN ? readU16(frame, 16) : t;
}

/** Bytes of wire time a frame of `length` bytes (without FCS) occupies: padding, FCS, preamble, IFG. */
export function wireBytes(length: number): number {
  return Math.max(length, ETHERNET_MIN_FRAME) + ETHERNET_FCS_LENGTH + ETHERNET_WIRE_OVERHEAD;
}
