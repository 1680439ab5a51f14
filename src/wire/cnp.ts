// The RoCEv2 Congestion Notification Packet (CNP): what a notification point (the receiver of CE-marked
// traffic) sends the reaction point (the data sender) so that its DCQCN rate limiter slows down.

import type { Ipv4Address, MacAddress } from "./bytes.js";
import type { VlanTag } from "./ethernet.js";
import { Ecn } from "./ipv4.js";
import { buildRoceV2Frame } from "./roce-frame.js";
import { CNP_DEFAULT_DSCP, DEFAULT_PKEY, Opcode } from "./roce-opcodes.js";

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
