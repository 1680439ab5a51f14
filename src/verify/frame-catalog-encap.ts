// The catalog's RoCE frames in other framings (frame-catalog.ts): inside a VXLAN tunnel, as RoCEv1 over a
// GRH, and with an 802.1Q tag.

import { Ecn } from "../wire/ipv4.js";
import { Opcode, type RoceTransportSpec } from "../wire/roce.js";
import { buildRoceV1Frame } from "../wire/rocev1.js";
import { buildVxlanFrame, vxlanSourcePort } from "../wire/vxlan.js";
import {
  BUFFER_H5,
  CATALOG_QPN_H5,
  type CatalogBuilder,
  catalogPayload,
  DATA_DSCP,
  DATA_PRIORITY,
  linkLocalGid,
  RKEY_H5,
  VXLAN_VNI,
} from "./frame-catalog-builder.js";

/** Adds h1's RDMA WRITE ONLY as leaf1's VTEP sends it to leaf2's over the underlay. */
export function addVxlanFrame(c: CatalogBuilder): void {
  const { leaf1Up, leaf2Up } = c;
  const toH5 = CATALOG_QPN_H5;

  // VXLAN: a VTEP on leaf1 carries h1's WRITE ONLY to leaf2 over the leaf1 -> spine1 link. The outer
  // header copies the inner DSCP and ECN, so the underlay keeps the frame in the lossless class.
  {
    const innerSpec: RoceTransportSpec = {
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: c.next(),
      ackReq: true,
      reth: { va: BUFFER_H5 + 0x60_0000n, rkey: RKEY_H5, dmaLength: 512 },
      payload: catalogPayload(512, 1),
    };
    const inner = c.roce("h1", innerSpec);
    c.out.push({
      name: "vxlan-write-only",
      description:
        "VXLAN VNI 5001, leaf1 -> leaf2 VTEPs over leaf1:eth1 -> spine1, carrying h1's RDMA WRITE ONLY",
      frame: buildVxlanFrame({
        outerSrcMac: leaf1Up.mac,
        outerDstMac: leaf1Up.peerMac,
        outerSrcIp: leaf1Up.ip,
        outerDstIp: leaf2Up.ip,
        srcPort: vxlanSourcePort(inner),
        vni: VXLAN_VNI,
        inner,
      }),
      expect: {
        kind: "vxlan",
        protocols: ["eth", "ip", "udp", "vxlan", "eth", "ip", "udp", "infiniband"],
        dscp: DATA_DSCP,
        ecn: Ecn.Ect0,
        ttl: 64,
        vni: VXLAN_VNI,
        opcode: innerSpec.opcode,
        destQp: toH5,
        psn: innerSpec.psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 512,
        payloadLength: 512,
      },
    });
  }
}

/** Adds a RoCEv1 RDMA WRITE ONLY from h1 to h5 as if they shared one L2 segment. */
export function addRoceV1Frame(c: CatalogBuilder): void {
  const { h1, h5 } = c;
  const toH5 = CATALOG_QPN_H5;

  // RoCEv1: the same transport straight over Ethernet with a GRH, GIDs derived from the MACs. RoCEv1 is
  // not routable, so this is how the WRITE would look were h1 and h5 on one L2 segment.
  {
    const v1Psn = c.next();
    c.out.push({
      name: "rocev1-write-only",
      description: "RoCEv1 (EtherType 0x8915, GRH) RC RDMA WRITE ONLY, h1 -> h5 on one L2 segment",
      frame: buildRoceV1Frame({
        srcMac: h1.mac,
        dstMac: h5.mac,
        sgid: linkLocalGid(h1.mac),
        dgid: linkLocalGid(h5.mac),
        trafficClass: (DATA_DSCP << 2) | Ecn.Ect0,
        hopLimit: 64,
        opcode: Opcode.RdmaWriteOnly,
        destQp: toH5,
        psn: v1Psn,
        ackReq: true,
        reth: { va: BUFFER_H5 + 0x70_0000n, rkey: RKEY_H5, dmaLength: 256 },
        payload: catalogPayload(256, 0),
      }),
      expect: {
        kind: "roce-data",
        protocols: ["eth", "infiniband"],
        opcode: Opcode.RdmaWriteOnly,
        destQp: toH5,
        psn: v1Psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 256,
        payloadLength: 256,
      },
    });
  }
}

/** Adds an 802.1Q-tagged RDMA WRITE ONLY from h1 to h5. */
export function addVlanFrame(c: CatalogBuilder): void {
  const toH5 = CATALOG_QPN_H5;

  // An 802.1Q-tagged RoCE frame: on a tagged link the PCP (3) carries the PFC priority.
  {
    const spec: RoceTransportSpec = {
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: c.next(),
      ackReq: true,
      reth: { va: BUFFER_H5 + 0x80_0000n, rkey: RKEY_H5, dmaLength: 256 },
      payload: catalogPayload(256, 1),
    };
    c.out.push({
      name: "vlan-write-only",
      description: "RC RDMA WRITE ONLY, h1 -> h5, 802.1Q-tagged PCP 3 VID 100",
      frame: c.roce("h1", spec, { vlan: true }),
      expect: {
        kind: "roce-data",
        protocols: ["eth", "vlan", "ip", "udp", "infiniband"],
        vlanPcp: DATA_PRIORITY,
        vlanVid: 100,
        dscp: DATA_DSCP,
        ecn: Ecn.Ect0,
        ttl: 64,
        opcode: spec.opcode,
        destQp: toH5,
        psn: spec.psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 256,
        payloadLength: 256,
      },
    });
  }
}
