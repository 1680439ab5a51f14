// The catalog's RDMA CM frame: h1's connection request to h5, as a NIC with `connect: on-demand` sends it
// (IBTA Vol. 1 ch. 12: a CM REQ MAD in a UD SEND ONLY to QP1; RDMA CM's IP private data, as librdmacm
// writes it). The other four messages share its header; test/tshark/cm.test.ts decodes all five.

import { buildCmFrame, CmAttr, cmMessage, GSI_QP, RDMA_PS_TCP, UD_SEND_ONLY } from "../wire/cm-mad.js";
import { Ecn } from "../wire/ipv4.js";
import {
  CATALOG_QPN_H1,
  type CatalogBuilder,
  DATA_DSCP,
  FIRST_PSN,
  ROCE_V2,
} from "./frame-catalog-builder.js";

export function addCmFrame(c: CatalogBuilder): void {
  const { h1, h5 } = c;
  c.out.push({
    name: "cm-req",
    description: "RDMA CM REQ, h1 -> h5: a CM MAD in a UD SEND ONLY to QP1 offering h1's QP and first PSN",
    frame: buildCmFrame({
      srcMac: h1.mac,
      dstMac: h1.peerMac,
      srcIp: h1.ip,
      dstIp: h5.ip,
      dscp: DATA_DSCP,
      ecn: Ecn.NotEct,
      udpSrcPort: 0xc000,
      message: cmMessage({
        attr: CmAttr.Req,
        tid: 1n,
        localCommId: 0x11,
        qpn: CATALOG_QPN_H1,
        startingPsn: FIRST_PSN,
        serviceId: (BigInt(RDMA_PS_TCP) << 16n) | 4791n,
        caGuid: 0x0200_00ff_fe00_0001n,
        srcIp: h1.ip,
        dstIp: h5.ip,
        trafficClass: DATA_DSCP << 2,
        srcPort: 0xc000,
      }),
    }),
    expect: {
      kind: "cm",
      protocols: ROCE_V2,
      dscp: DATA_DSCP,
      ecn: Ecn.NotEct,
      ttl: 64,
      opcode: UD_SEND_ONLY,
      destQp: GSI_QP,
      psn: 0,
      ackReq: false,
      padCount: 0,
      pkey: 0xffff,
      becn: false,
    },
  });
}
