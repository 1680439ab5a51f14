// ARP (RFC 826) for Ethernet and IPv4, the only pairing on this fabric. Any other hardware or protocol
// type is refused rather than half-parsed, so a caller never mistakes a 16-byte address for a MAC.

import {
  BROADCAST_MAC,
  type Ipv4Address,
  type MacAddress,
  readMac,
  readU16,
  readU32,
  writeMac,
  writeU16,
  writeU32,
} from "./bytes.js";
import { ETHERNET_MIN_FRAME, EtherType, serializeEthernet } from "./ethernet.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";

/** Bytes of an Ethernet/IPv4 ARP packet (without the Ethernet header or padding). */
export const ARP_LENGTH = 28;

const ARP_HTYPE_ETHERNET = 1;
const ARP_HLEN_ETHERNET = 6;
const ARP_PLEN_IPV4 = 4;

export const ArpOp = {
  Request: 1,
  Reply: 2,
} as const;
export type ArpOp = (typeof ArpOp)[keyof typeof ArpOp];

export interface ArpPacket {
  readonly op: ArpOp;
  readonly senderMac: MacAddress;
  readonly senderIp: Ipv4Address;
  /** In a request: unknown, conventionally 0 (some stacks put the broadcast address here). */
  readonly targetMac: MacAddress;
  readonly targetIp: Ipv4Address;
}

/** Parses the ARP packet at `offset` (the start of the Ethernet payload). */
export function parseArp(buf: Uint8Array, offset = 0): Parsed<ArpPacket> {
  const short = need("arp", buf, offset, ARP_LENGTH, "packet");
  if (short) return short;
  const htype = readU16(buf, offset);
  if (htype !== ARP_HTYPE_ETHERNET) {
    return fail("arp", WireErrorCode.BadValue, `hardware type ${htype}, expected 1 (Ethernet)`, offset);
  }
  const ptype = readU16(buf, offset + 2);
  if (ptype !== EtherType.IPv4) {
    return fail(
      "arp",
      WireErrorCode.BadValue,
      `protocol type 0x${ptype.toString(16).padStart(4, "0")}, expected 0x0800 (IPv4)`,
      offset + 2,
    );
  }
  const hlen = buf[offset + 4]!;
  if (hlen !== ARP_HLEN_ETHERNET) {
    return fail("arp", WireErrorCode.BadValue, `hardware address length ${hlen}, expected 6`, offset + 4);
  }
  const plen = buf[offset + 5]!;
  if (plen !== ARP_PLEN_IPV4) {
    return fail("arp", WireErrorCode.BadValue, `protocol address length ${plen}, expected 4`, offset + 5);
  }
  const op = readU16(buf, offset + 6);
  if (op !== ArpOp.Request && op !== ArpOp.Reply) {
    return fail(
      "arp",
      WireErrorCode.BadValue,
      `operation ${op}, expected 1 (request) or 2 (reply)`,
      offset + 6,
    );
  }
  return ok({
    op,
    senderMac: readMac(buf, offset + 8),
    senderIp: readU32(buf, offset + 14),
    targetMac: readMac(buf, offset + 18),
    targetIp: readU32(buf, offset + 24),
  });
}

/** Writes the 28-byte packet at `offset`; returns the offset just past it. */
export function serializeArp(p: ArpPacket, buf: Uint8Array, offset = 0): number {
  writeU16(buf, offset, ARP_HTYPE_ETHERNET);
  writeU16(buf, offset + 2, EtherType.IPv4);
  buf[offset + 4] = ARP_HLEN_ETHERNET;
  buf[offset + 5] = ARP_PLEN_IPV4;
  writeU16(buf, offset + 6, p.op);
  writeMac(buf, offset + 8, p.senderMac);
  writeU32(buf, offset + 14, p.senderIp);
  writeMac(buf, offset + 18, p.targetMac);
  writeU32(buf, offset + 24, p.targetIp);
  return offset + ARP_LENGTH;
}

export interface ArpFrameInit extends ArpPacket {
  /** Ethernet destination. Default: broadcast for a request, `targetMac` for a reply. */
  readonly dst?: MacAddress;
}

/**
 * A complete Ethernet frame carrying the packet, zero-padded to the 60-byte minimum (no FCS). The
 * Ethernet source is `senderMac`.
 */
export function buildArpFrame(init: ArpFrameInit): Uint8Array {
  const frame = new Uint8Array(ETHERNET_MIN_FRAME);
  const dst = init.dst ?? (init.op === ArpOp.Request ? BROADCAST_MAC : init.targetMac);
  const at = serializeEthernet({ dst, src: init.senderMac, etherType: EtherType.ARP }, frame, 0);
  serializeArp(init, frame, at);
  return frame;
}
