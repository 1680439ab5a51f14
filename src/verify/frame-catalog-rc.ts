// The catalog's RC transport frames (frame-catalog.ts): h1's SENDs, RDMA WRITEs and READ requests to h5,
// h5's READ responses, ACKs and NAKs, a CE-marked data packet as a switch leaves it, and h5's CNP.

import { writeMac } from "../wire/bytes.js";
import { decrementIpv4Ttl, Ecn, setIpv4Ecn } from "../wire/ipv4.js";
import {
  type Aeth,
  AethSyndrome,
  buildCnpFrame,
  CNP_DEFAULT_DSCP,
  Opcode,
  psnAdd,
  type Reth,
  type RoceTransportSpec,
} from "../wire/roce.js";
import {
  BUFFER_H5,
  CATALOG_QPN_H1,
  CATALOG_QPN_H5,
  type CatalogBuilder,
  catalogPayload,
  DATA_DSCP,
  FIRST_PSN,
  RKEY_H5,
  ROCE_V2,
} from "./frame-catalog-builder.js";

/** Adds the RC connection's frames, in the order a capture of it would show them. */
export function addRcFrames(c: CatalogBuilder): void {
  const { mtu, h1, h5, leaf2ToH5, sport } = c;
  const toH5 = CATALOG_QPN_H5;
  const toH1 = CATALOG_QPN_H1;

  // SEND: a three-packet message (2 × MTU + 1001 bytes: the last packet needs 3 pad bytes), then the
  // other SEND opcodes. AckReq on each message's last packet, as NICs ask for an ACK per message.
  c.data("send-first", "RC SEND FIRST, h1 -> h5, a full MTU of a 3-packet message", "h1", {
    opcode: Opcode.SendFirst,
    destQp: toH5,
    psn: c.next(),
    payload: catalogPayload(mtu, 0),
  });
  c.data("send-middle", "RC SEND MIDDLE, h1 -> h5, the second MTU", "h1", {
    opcode: Opcode.SendMiddle,
    destQp: toH5,
    psn: c.next(),
    payload: catalogPayload(mtu, 1),
  });
  c.data("send-last", "RC SEND LAST, h1 -> h5, 1001 bytes (PadCnt 3), AckReq", "h1", {
    opcode: Opcode.SendLast,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    payload: catalogPayload(1001, 0),
  });
  c.data(
    "send-last-imm",
    "RC SEND LAST WITH IMMEDIATE, h1 -> h5, ends a message with 32 bits of immediate data",
    "h1",
    {
      opcode: Opcode.SendLastWithImmediate,
      destQp: toH5,
      psn: c.next(),
      ackReq: true,
      immDt: 0x0000_2a01,
      payload: catalogPayload(512, 1),
    },
  );
  c.data("send-only", "RC SEND ONLY, h1 -> h5, a 256-byte message in one packet", "h1", {
    opcode: Opcode.SendOnly,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    payload: catalogPayload(256, 0),
  });
  c.data("send-only-imm", "RC SEND ONLY WITH IMMEDIATE, h1 -> h5, solicited event set", "h1", {
    opcode: Opcode.SendOnlyWithImmediate,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    se: true,
    immDt: 0x0000_2a02,
    payload: catalogPayload(64, 1),
  });
  c.data("send-only-padded", "RC SEND ONLY, h1 -> h5, 13 bytes: PadCnt 3 brings it to 16", "h1", {
    opcode: Opcode.SendOnly,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    payload: catalogPayload(13, 0),
  });

  // RDMA WRITE: a three-packet write (RETH on the first only), then the single-packet forms.
  const write3: Reth = { va: BUFFER_H5, rkey: RKEY_H5, dmaLength: 2 * mtu + 514 };
  c.data("write-first", "RC RDMA WRITE FIRST, h1 -> h5, RETH for a 2 × MTU + 514-byte write", "h1", {
    opcode: Opcode.RdmaWriteFirst,
    destQp: toH5,
    psn: c.next(),
    reth: write3,
    payload: catalogPayload(mtu, 0),
  });
  c.data("write-middle", "RC RDMA WRITE MIDDLE, h1 -> h5", "h1", {
    opcode: Opcode.RdmaWriteMiddle,
    destQp: toH5,
    psn: c.next(),
    payload: catalogPayload(mtu, 1),
  });
  c.data("write-last", "RC RDMA WRITE LAST, h1 -> h5, 514 bytes (PadCnt 2), AckReq", "h1", {
    opcode: Opcode.RdmaWriteLast,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    payload: catalogPayload(514, 0),
  });
  c.data(
    "write-last-imm",
    "RC RDMA WRITE LAST WITH IMMEDIATE, h1 -> h5, ends a write that also completes a receive",
    "h1",
    {
      opcode: Opcode.RdmaWriteLastWithImmediate,
      destQp: toH5,
      psn: c.next(),
      ackReq: true,
      immDt: 0x0000_2a03,
      payload: catalogPayload(1024, 1),
    },
  );
  const writeOnlyReth: Reth = { va: BUFFER_H5 + 0x10_0000n, rkey: RKEY_H5, dmaLength: 1024 };
  c.data("write-only", "RC RDMA WRITE ONLY, h1 -> h5, 1024 bytes", "h1", {
    opcode: Opcode.RdmaWriteOnly,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    reth: writeOnlyReth,
    payload: catalogPayload(1024, 0),
  });
  c.data("write-only-imm", "RC RDMA WRITE ONLY WITH IMMEDIATE, h1 -> h5, 128 bytes", "h1", {
    opcode: Opcode.RdmaWriteOnlyWithImmediate,
    destQp: toH5,
    psn: c.next(),
    ackReq: true,
    reth: { va: BUFFER_H5 + 0x20_0000n, rkey: RKEY_H5, dmaLength: 128 },
    immDt: 0x0000_2a04,
    payload: catalogPayload(128, 1),
  });

  // RDMA READ: h1 asks for 2 × MTU + 255 bytes; the request takes three PSNs, one per response packet,
  // and h5's responses carry them. Then a one-packet read.
  const readPsn = c.psn;
  c.data("read-request", "RC RDMA READ REQUEST, h1 -> h5, 2 × MTU + 255 bytes (3 response PSNs)", "h1", {
    opcode: Opcode.RdmaReadRequest,
    destQp: toH5,
    psn: readPsn,
    // As the NIC sends it: the responses acknowledge a READ, so the request asks for no ACK.
    ackReq: false,
    reth: { va: BUFFER_H5 + 0x30_0000n, rkey: RKEY_H5, dmaLength: 2 * mtu + 255 },
  });
  c.psn = psnAdd(c.psn, 3);
  // MSN: messages h5 has completed, the READ included: 5 SENDs, 4 WRITEs (a WRITE counts too), 1 READ.
  let msn = 10;
  const ackAeth = (m: number): Aeth => ({ syndrome: AethSyndrome.AckUnlimited, msn: m });
  c.data("read-response-first", "RC RDMA READ RESPONSE FIRST, h5 -> h1, AETH ACK", "h5", {
    opcode: Opcode.RdmaReadResponseFirst,
    destQp: toH1,
    psn: readPsn,
    aeth: ackAeth(msn),
    payload: catalogPayload(mtu, 0),
  });
  c.data("read-response-middle", "RC RDMA READ RESPONSE MIDDLE, h5 -> h1, no AETH", "h5", {
    opcode: Opcode.RdmaReadResponseMiddle,
    destQp: toH1,
    psn: psnAdd(readPsn, 1),
    payload: catalogPayload(mtu, 1),
  });
  c.data("read-response-last", "RC RDMA READ RESPONSE LAST, h5 -> h1, 255 bytes (PadCnt 1)", "h5", {
    opcode: Opcode.RdmaReadResponseLast,
    destQp: toH1,
    psn: psnAdd(readPsn, 2),
    aeth: ackAeth(msn),
    payload: catalogPayload(255, 0),
  });
  const readOnlyPsn = c.next();
  c.data("read-request-small", "RC RDMA READ REQUEST, h1 -> h5, 64 bytes (one response PSN)", "h1", {
    opcode: Opcode.RdmaReadRequest,
    destQp: toH5,
    psn: readOnlyPsn,
    ackReq: false,
    reth: { va: BUFFER_H5 + 0x40_0000n, rkey: RKEY_H5, dmaLength: 64 },
  });
  msn++;
  c.data("read-response-only", "RC RDMA READ RESPONSE ONLY, h5 -> h1, 64 bytes", "h5", {
    opcode: Opcode.RdmaReadResponseOnly,
    destQp: toH1,
    psn: readOnlyPsn,
    aeth: ackAeth(msn),
    payload: catalogPayload(64, 1),
  });

  // ACKNOWLEDGE (the NIC itself always sends credit field 0x1f, unlimited; the catalog shows the other
  // encodings a decoder must read): an ACK with a credit count (field value 8) for the last SEND, a NAK (PSN sequence error: h5
  // saw a PSN beyond the one it expected, so h1 must go back), and an RNR NAK (no receive posted).
  const ackedPsn = psnAdd(FIRST_PSN, 6);
  c.data(
    "ack",
    "RC ACKNOWLEDGE, h5 -> h1, ACK (credit field 8) for the padded SEND ONLY",
    "h5",
    {
      opcode: Opcode.Acknowledge,
      destQp: toH1,
      psn: ackedPsn,
      aeth: { syndrome: AethSyndrome.ack(8), msn: 5 },
    },
    "ack",
  );
  c.data(
    "nak-psn-sequence",
    "RC ACKNOWLEDGE, h5 -> h1, NAK PSN sequence error (0x60): resend from this PSN",
    "h5",
    {
      opcode: Opcode.Acknowledge,
      destQp: toH1,
      psn: psnAdd(FIRST_PSN, 7),
      aeth: { syndrome: AethSyndrome.NakPsnSequenceError, msn: 5 },
    },
    "nak",
  );
  c.data(
    "rnr-nak",
    "RC ACKNOWLEDGE, h5 -> h1, RNR NAK with timer code 14 (no receive WQE posted)",
    "h5",
    {
      opcode: Opcode.Acknowledge,
      destQp: toH1,
      psn: psnAdd(FIRST_PSN, 3),
      aeth: { syndrome: AethSyndrome.rnrNak(14), msn: 1 },
    },
    "nak",
  );

  // A data packet as it reaches h5 after a congested switch marked it: three routed hops took its TTL to
  // 61, leaf2 rewrote the MACs, a switch set CE in place with the IPv4 checksum updated incrementally.
  // The ICRC is untouched and still valid: it masks TOS and TTL.
  {
    const ceSpec: RoceTransportSpec = {
      opcode: Opcode.RdmaWriteOnly,
      destQp: toH5,
      psn: c.next(),
      ackReq: true,
      reth: { va: BUFFER_H5 + 0x50_0000n, rkey: RKEY_H5, dmaLength: 2048 },
      payload: catalogPayload(2048, 0),
    };
    const frame = c.roce("h1", ceSpec);
    const ip = 14;
    for (let hop = 0; hop < 3; hop++) decrementIpv4Ttl(frame, ip);
    setIpv4Ecn(frame, ip, Ecn.Ce);
    writeMac(frame, 0, h5.mac);
    writeMac(frame, 6, leaf2ToH5.mac);
    c.out.push({
      name: "write-only-ce",
      description: "RC RDMA WRITE ONLY as it reaches h5 from leaf2: ECN CE, TTL 61, ICRC unchanged",
      frame,
      expect: {
        kind: "roce-data",
        protocols: ROCE_V2,
        dscp: DATA_DSCP,
        ecn: Ecn.Ce,
        ttl: 61,
        opcode: ceSpec.opcode,
        destQp: toH5,
        psn: ceSpec.psn,
        ackReq: true,
        padCount: 0,
        pkey: 0xffff,
        becn: false,
        rkey: RKEY_H5,
        dmaLength: 2048,
        payloadLength: 2048,
      },
    });
  }

  // h5's answer to CE marks: a CNP to h1, addressed to h1's own QP (the sender that must slow down).
  c.out.push({
    name: "cnp",
    description: "RoCEv2 CNP, h5 -> h1: opcode 0x81, BECN, DestQP = h1's QP, DSCP 48",
    frame: buildCnpFrame({
      srcMac: h5.mac,
      dstMac: h5.peerMac,
      srcIp: h5.ip,
      dstIp: h1.ip,
      udpSrcPort: sport,
      destQp: toH1,
      identification: c.nextIdH5(),
    }),
    expect: {
      kind: "cnp",
      protocols: ROCE_V2,
      dscp: CNP_DEFAULT_DSCP,
      ecn: Ecn.NotEct,
      ttl: 64,
      opcode: Opcode.Cnp,
      destQp: toH1,
      psn: 0,
      ackReq: false,
      padCount: 0,
      pkey: 0xffff,
      becn: true,
    },
  });
}
