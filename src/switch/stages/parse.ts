// Stage 1, parse: reads a frame once into the packet context. L2 first (what kind of frame, is it for
// this port), then for IPv4 the header check a router makes (device/l2/ipv4-check.ts) and the fields
// later stages use: addresses, protocol, TTL, DSCP, ECN, the L4 ports of unfragmented UDP/TCP and, for
// RoCEv2 (UDP 4791), the BTH opcode, Dest QP and PSN (InfiniBand Architecture Specification Vol. 1,
// §9.2; RoCEv2 is its Annex A17).

import { ipv4HeaderValid } from "../../device/l2/ipv4-check.js";
import { BROADCAST_MAC, readMac, readU16, readU24 } from "../../wire/bytes.js";
import { EtherType, ethPayloadOffset, ethType } from "../../wire/ethernet.js";
import {
  IpProtocol,
  ipv4Dscp,
  ipv4Dst,
  ipv4Ecn,
  ipv4HeaderLength,
  ipv4Protocol,
  ipv4Src,
  ipv4Ttl,
} from "../../wire/ipv4.js";
import { ROCEV2_UDP_PORT } from "../../wire/udp.js";
import { FrameKind, type PacketMeta } from "../packet-meta.js";

const UDP_HEADER = 8;
const BTH_LENGTH = 12;

/** Parses a frame that arrived on `inPort`, whose MAC is `portMac`. */
export function parseFrame(m: PacketMeta, frame: Uint8Array, inPort: number, portMac: number): FrameKind {
  m.reset(frame, inPort);
  m.kind = parseL2(m, frame, portMac);
  return m.kind;
}

function parseL2(m: PacketMeta, frame: Uint8Array, portMac: number): FrameKind {
  if (frame.length < 14) return FrameKind.Malformed;
  const type = ethType(frame);
  m.etherType = type;
  m.l3 = ethPayloadOffset(frame);
  if (type === EtherType.MacControl) return FrameKind.MacControl;
  const dstMac = readMac(frame, 0);
  // An L3 port only takes frames addressed to it (LLDP and other link-local multicast land here).
  if (dstMac !== portMac && dstMac !== BROADCAST_MAC) return FrameKind.NotForUs;
  if (type === EtherType.ARP) return FrameKind.Arp;
  if (type !== EtherType.IPv4) return FrameKind.Other;
  if (!ipv4HeaderValid(frame, m.l3)) return FrameKind.Malformed;
  parseIpv4(m, m.l3);
  return FrameKind.Ipv4;
}

/** Fills the IPv4 fields of `m.frame` (already checked) with the header at `ip`. */
export function parseIpv4(m: PacketMeta, ip: number): void {
  const f = m.frame;
  m.l3 = ip;
  m.dscp = ipv4Dscp(f, ip);
  m.ecn = ipv4Ecn(f, ip);
  m.ttl = ipv4Ttl(f, ip);
  m.protocol = ipv4Protocol(f, ip);
  m.srcIp = ipv4Src(f, ip);
  m.dstIp = ipv4Dst(f, ip);
  const l4 = ip + ipv4HeaderLength(f, ip);
  const fragment = readU16(f, ip + 6) & 0x1fff;
  if (
    (m.protocol !== IpProtocol.UDP && m.protocol !== IpProtocol.TCP) ||
    fragment !== 0 ||
    l4 + 4 > f.length
  ) {
    return;
  }
  m.l4 = l4;
  m.srcPort = readU16(f, l4);
  m.dstPort = readU16(f, l4 + 2);
  const bth = l4 + UDP_HEADER;
  if (m.protocol === IpProtocol.UDP && m.dstPort === ROCEV2_UDP_PORT && bth + BTH_LENGTH <= f.length) {
    m.bthOpcode = f[bth]!;
    m.destQp = readU24(f, bth + 5);
    m.psn = readU24(f, bth + 9);
  }
}
