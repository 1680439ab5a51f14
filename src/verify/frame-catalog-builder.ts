// What every part of the frame catalog (frame-catalog.ts) shares: the shape of a catalog frame and of what
// a decoder must read in it, the connection's fixed values, the payload pattern, and the builder that
// carries the catalog's running state (h1's PSN, both hosts' IPv4 identifications, the frames so far) from
// one group of frames to the next, so the catalog comes out the same whichever module adds a group.

import {
  type AddressPlan,
  hostAddress,
  type PortAddress,
  planAddresses,
  portKey,
} from "../scenario/address-plan.js";
import { defaultTopology, nodeByName, type TopoNode } from "../scenario/topology.js";
import { type MacAddress, writeMac } from "../wire/bytes.js";
import { Ecn } from "../wire/ipv4.js";
import {
  buildRoceV2Frame,
  padCountFor,
  psnAdd,
  type RoceTransportSpec,
  roceUdpSourcePort,
} from "../wire/roce.js";
import type { FrameKind } from "./frame-kind.js";

/**
 * What an outside decoder must read in a catalog frame. Every field is optional except `kind` and
 * `protocols`: a field is present exactly when the frame has it. IPv4 fields describe the outermost IPv4
 * header (a VXLAN frame's outer header, an ICMP error's own header, not the one it quotes); BTH and AETH
 * fields describe the frame's only RoCE transport header (inside the tunnel for VXLAN).
 */
export interface FrameExpectation {
  /** How `checkCapture` counts the frame. */
  readonly kind: FrameKind;
  /**
   * Wireshark protocol names (as in `frame.protocols`) the frame must show, in order, outermost first;
   * the last one is the protocol the frame exists to carry.
   */
  readonly protocols: readonly string[];
  readonly vlanPcp?: number;
  readonly vlanVid?: number;
  readonly dscp?: number;
  readonly ecn?: Ecn;
  readonly ttl?: number;
  readonly opcode?: number;
  readonly destQp?: number;
  readonly psn?: number;
  readonly ackReq?: boolean;
  readonly padCount?: number;
  readonly pkey?: number;
  /** BTH BECN; Wireshark 4.0 has no field for it (it shows BTH byte 4 as `infiniband.reserved`). */
  readonly becn?: boolean;
  readonly syndrome?: number;
  readonly msn?: number;
  readonly rkey?: number;
  readonly dmaLength?: number;
  readonly immDt?: number;
  /** Payload bytes, pad excluded. */
  readonly payloadLength?: number;
  /** PFC class-enable bits for priorities 0..7. */
  readonly pfcEnable?: readonly boolean[];
  /** PFC pause times for priorities 0..7, in quanta (what the frame carries, enabled or not). */
  readonly pfcPauseTimes?: readonly number[];
  /** 802.3x PAUSE time in quanta. */
  readonly pauseTime?: number;
  readonly vni?: number;
  readonly arpOpcode?: number;
  readonly icmpType?: number;
  readonly icmpCode?: number;
  readonly lldpTtl?: number;
  readonly lldpSystemName?: string;
  readonly lldpPortId?: string;
}

export interface CatalogFrame {
  /** Short kebab-case name, unique in the catalog. */
  readonly name: string;
  /** One sentence: who sends it to whom and why. */
  readonly description: string;
  /** The frame as captured on the link it is sent on (no FCS). */
  readonly frame: Uint8Array;
  readonly expect: FrameExpectation;
}

/** h1's and h5's queue pairs of the connection the catalog's RoCE frames belong to. */
export const CATALOG_QPN_H1 = 0x000102;
export const CATALOG_QPN_H5 = 0x000105;
/** Traffic class of the lossless RoCE data class: DSCP 26, mapped to priority 3, ECN-capable. */
export const DATA_DSCP = 26;
export const DATA_PRIORITY = 3;
/** DSCP the switches give the packets they originate (network control). */
export const SWITCH_DSCP = 48;
export const VXLAN_VNI = 5001;
/** h1's first PSN on the connection; PSNs start at a random 24-bit value. */
export const FIRST_PSN = 0x3e8a51;
export const RKEY_H5 = 0x0001_2a07;
export const BUFFER_H5 = 0x7f3a_2c40_0000n;

/**
 * Payload bytes: a position-derived pattern, not text. Wireshark runs heuristic dissectors over RoCE
 * payloads, and RPC-over-RDMA claims some SEND payloads (ASCII "hello\0\0\0" already decodes as a
 * malformed RPC-over-RDMA header in tshark 4.0). Here byte i is 0xa0 + (i + 11 × seed) mod 37: every byte
 * has its top bit set, so every 32-bit word, at any alignment, is at least 0x80000000 and none reads as
 * the version, length or small type code an RDMA upper-layer protocol header (RPC-over-RDMA, iSER,
 * NVMe-oF, SMB Direct, SMC-R, LNet) starts with. The tshark test checks the payloads decode as plain data
 * with RPC-over-RDMA enabled too. `seed` shifts the phase so that consecutive packets differ.
 */
export function catalogPayload(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = 0xa0 + ((i + 11 * seed) % 37);
  return out;
}

/** The IPv6 link-local GID RoCE derives from a MAC (modified EUI-64: ff:fe in the middle, U/L bit flipped). */
export function linkLocalGid(mac: MacAddress): Uint8Array {
  const m = new Uint8Array(6);
  writeMac(m, 0, mac);
  const gid = new Uint8Array(16);
  gid[0] = 0xfe;
  gid[1] = 0x80;
  gid.set([m[0]! ^ 0x02, m[1]!, m[2]!, 0xff, 0xfe, m[3]!, m[4]!, m[5]!], 8);
  return gid;
}

/** Wireshark's protocol names for the stacks the catalog uses. */
export const ROCE_V2 = ["eth", "ip", "udp", "infiniband"] as const;

/**
 * The catalog under construction, from the default topology's address plan: the addresses the frames
 * use, and the state that runs through the whole catalog. Groups of frames are added in a fixed order.
 */
export class CatalogBuilder {
  readonly plan: AddressPlan;
  readonly mtu: number;
  readonly h1: PortAddress;
  readonly h5: PortAddress;
  readonly leaf1: TopoNode;
  /** leaf1's port facing h1 (h1's gateway). */
  readonly leaf1ToH1: PortAddress;
  /** leaf1's uplink to spine1. */
  readonly leaf1Up: PortAddress;
  /** spine1's port facing leaf1. */
  readonly spine1Down: PortAddress;
  /** leaf2's uplink to spine1. */
  readonly leaf2Up: PortAddress;
  /** leaf2's port facing h5. */
  readonly leaf2ToH5: PortAddress;
  /** The UDP source port is a function of both QPNs, symmetric, so both directions share it. */
  readonly sport = roceUdpSourcePort(CATALOG_QPN_H1, CATALOG_QPN_H5);
  readonly out: CatalogFrame[] = [];
  /** h1's next PSN on the connection. */
  psn = FIRST_PSN;
  private idH1 = 0x1c40;
  private idH5 = 0x5a02;

  constructor() {
    const topo = defaultTopology();
    this.plan = planAddresses(topo);
    this.mtu = topo.mtu;
    this.h1 = hostAddress(this.plan, "h1");
    this.h5 = hostAddress(this.plan, "h5");
    this.leaf1ToH1 = this.port("leaf1", 3);
    this.leaf1Up = this.port("leaf1", 1);
    this.spine1Down = this.port("spine1", 1);
    this.leaf2Up = this.port("leaf2", 1);
    this.leaf2ToH5 = this.port("leaf2", 3);
    this.leaf1 = nodeByName(topo, "leaf1")!;
  }

  private port(node: string, n: number): PortAddress {
    const p = this.plan.ports.get(portKey(node, n));
    if (!p) throw new Error(`default topology has no port ${node}:eth${n}`);
    return p;
  }

  /** h1's next IPv4 identification. */
  nextIdH1(): number {
    return this.idH1++;
  }

  /** h5's next IPv4 identification. */
  nextIdH5(): number {
    return this.idH5++;
  }

  /** h1's next PSN, taken. */
  next(): number {
    const p = this.psn;
    this.psn = psnAdd(this.psn, 1);
    return p;
  }

  /** A RoCEv2 frame h1 sends to h5 (requests), or h5 to h1 (responses). */
  roce(from: "h1" | "h5", t: RoceTransportSpec, extra: { vlan?: boolean } = {}): Uint8Array {
    const fromH1 = from === "h1";
    const self = fromH1 ? this.h1 : this.h5;
    const peer = fromH1 ? this.h5 : this.h1;
    return buildRoceV2Frame({
      ...t,
      srcMac: self.mac,
      dstMac: self.peerMac,
      vlan: extra.vlan ? { pcp: DATA_PRIORITY, dei: false, vid: 100 } : null,
      srcIp: self.ip,
      dstIp: peer.ip,
      dscp: DATA_DSCP,
      ecn: Ecn.Ect0,
      ttl: 64,
      identification: fromH1 ? this.idH1++ : this.idH5++,
      udpSrcPort: this.sport,
    });
  }

  /** Adds a RoCEv2 frame of the connection with the expectation its transport spec implies. */
  data(
    name: string,
    description: string,
    from: "h1" | "h5",
    t: RoceTransportSpec,
    kind: FrameKind = "roce-data",
  ): void {
    const payloadLength = t.payload?.length ?? 0;
    this.out.push({
      name,
      description,
      frame: this.roce(from, t),
      expect: {
        kind,
        protocols: ROCE_V2,
        dscp: DATA_DSCP,
        ecn: Ecn.Ect0,
        ttl: 64,
        opcode: t.opcode,
        destQp: t.destQp,
        psn: t.psn,
        ackReq: t.ackReq ?? false,
        padCount: padCountFor(payloadLength),
        pkey: 0xffff,
        becn: false,
        payloadLength,
        ...(t.aeth ? { syndrome: t.aeth.syndrome, msn: t.aeth.msn } : {}),
        ...(t.reth ? { rkey: t.reth.rkey, dmaLength: t.reth.dmaLength } : {}),
        ...(t.immDt !== undefined && t.immDt !== null ? { immDt: t.immDt } : {}),
      },
    });
  }
}
