// RoCEv1 framing (NicConfig.rocev1): the same transport headers the RoCEv2 builder fills, carried over
// Ethernet with EtherType 0x8915 and the InfiniBand GRH instead of IPv4/UDP (wire/rocev1.ts). There is no
// IP header to route by, so the destination MAC is the peer's own (a host of the same bridge domain) or,
// for an address that is not a peer, the gateway's, where the frame ends: nothing routes RoCEv1. The
// frames carry an 802.1Q tag with the domain's VID and, as PCP, the priority of the packet's DSCP (the
// switch has no DSCP to classify by); the GRH traffic class carries the DSCP as an IP TOS byte would. The
// GIDs are IPv4-mapped IPv6 addresses (RFC 4291 §2.5.5.2), as Linux's RoCE GID table holds for an IPv4
// address. There is no ECN field either: a RoCEv1 receiver never sees CE, so DCQCN does not act.

import type { Ipv4Address } from "../../wire/bytes.js";
import { writeU32 } from "../../wire/bytes.js";
import type { RoceV2FrameSpec } from "../../wire/roce.js";
import { buildRoceV1Frame, GID_LENGTH, type RoceV1FrameSpec } from "../../wire/rocev1.js";
import type { NicConfig, RoceV1Config } from "../config.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Writes the IPv4-mapped GID ::ffff:ip into `gid`. */
export function writeIpv4Gid(gid: Uint8Array, ip: Ipv4Address): void {
  gid.fill(0, 0, 10);
  gid[10] = 0xff;
  gid[11] = 0xff;
  writeU32(gid, 12, ip);
}

export class RoceV1Framer {
  private readonly peers = new Map<number, number>();
  private readonly spec: Mutable<RoceV1FrameSpec> & { vlan: { pcp: number; dei: boolean; vid: number } };
  private readonly sgid = new Uint8Array(GID_LENGTH);
  private readonly dgid = new Uint8Array(GID_LENGTH);

  constructor(
    private cfg: NicConfig,
    v1: RoceV1Config,
  ) {
    for (const p of v1.peers) this.peers.set(p.ip, p.mac);
    writeIpv4Gid(this.sgid, cfg.port.ip);
    this.spec = {
      srcMac: cfg.port.mac,
      dstMac: cfg.gatewayMac,
      vlan: { pcp: 0, dei: false, vid: v1.vlan },
      sgid: this.sgid,
      dgid: this.dgid,
      opcode: 0,
      destQp: 0,
      psn: 0,
    };
  }

  configure(cfg: NicConfig): void {
    this.cfg = cfg;
  }

  /** The RoCEv1 frame of what `s` describes (its IP fields give the GIDs, the priority and the TC). */
  build(s: RoceV2FrameSpec): Uint8Array {
    const v = this.spec;
    v.dstMac = this.peers.get(s.dstIp) ?? this.cfg.gatewayMac;
    v.vlan.pcp = this.cfg.qos.dscpToPriority[s.dscp ?? 0]!;
    v.trafficClass = (s.dscp ?? 0) << 2;
    writeIpv4Gid(this.dgid, s.dstIp);
    v.opcode = s.opcode;
    v.destQp = s.destQp;
    v.psn = s.psn;
    v.ackReq = s.ackReq ?? false;
    v.se = s.se ?? false;
    v.migReq = s.migReq ?? false;
    v.pkey = s.pkey;
    v.reth = s.reth ?? null;
    v.aeth = s.aeth ?? null;
    v.immDt = s.immDt ?? null;
    v.payload = s.payload;
    return buildRoceV1Frame(v);
  }
}
