// RDMA connection management on the wire: the Communication Manager's MADs (InfiniBand Architecture
// Specification Vol. 1, chapter 12 "Communication Management": §12.6 message formats; the MAD header is
// §13.4.3) as RoCEv2 carries them: a UD SEND ONLY (BTH opcode 0x64) with a DETH to the General Services
// QP (QP1, Q_Key 0x80010000, §3.9.2 / §13.5.4), whose payload is the 256-byte MAD. Field layout as Linux's
// drivers/infiniband/core/cm_msgs.h and include/rdma/ibta_vol1_c12.h declare it (offsets below are from
// the start of the CM message, after the 24-byte MAD header). The private data of a REQ carries the RDMA
// CM's IP header (librdmacm / drivers/infiniband/core/cma.c `struct cma_hdr`: version 0, IP version 4 in
// the high nibble, the source port, then the source and destination addresses as IPv4-mapped IPv6).
//
// Messages spoken: REQ, REP, RTU at connection set-up, DREQ and DREP at teardown.

import { writeBth } from "./bth.js";
import {
  type Ipv4Address,
  type MacAddress,
  readU16,
  readU24,
  readU32,
  writeU16,
  writeU24,
  writeU32,
} from "./bytes.js";
import { ETHERNET_HEADER_LENGTH, EtherType, serializeEthernet } from "./ethernet.js";
import { ICRC_LENGTH, writeIcrcV2 } from "./icrc.js";
import { type Ecn, IPV4_HEADER_LENGTH, IpProtocol, serializeIpv4 } from "./ipv4.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";
import { BTH_LENGTH, DEFAULT_PKEY } from "./roce-opcodes.js";

/** BTH opcode of a UD SEND ONLY (transport bits 011, SEND ONLY 00100). */
export const UD_SEND_ONLY = 0x64;
export const DETH_LENGTH = 8;
/** The General Services QP and its well-known Q_Key (IBTA §13.5.4: GSI Q_Key 0x80010000). */
export const GSI_QP = 1;
export const GSI_QKEY = 0x8001_0000;
export const MAD_LENGTH = 256;
export const MAD_HEADER_LENGTH = 24;
/** Communication Management class (0x07), class version 2 (IBTA 1.2), method Send (0x03). */
export const CM_MGMT_CLASS = 0x07;
export const CM_CLASS_VERSION = 2;
export const MAD_METHOD_SEND = 0x03;
/** RDMA CM's service IDs: 0x0000000001 PS(0x0106: RDMA_PS_TCP) port (librdmacm, cma.c cma_get_service_id). */
export const RDMA_PS_TCP = 0x0106;

export const CmAttr = {
  Req: 0x0010,
  Rej: 0x0012,
  Rep: 0x0013,
  Rtu: 0x0014,
  Dreq: 0x0015,
  Drep: 0x0016,
} as const;
export type CmAttr = (typeof CmAttr)[keyof typeof CmAttr];

export const CM_ATTR_NAMES: Readonly<Record<number, string>> = {
  [CmAttr.Req]: "REQ",
  [CmAttr.Rej]: "REJ",
  [CmAttr.Rep]: "REP",
  [CmAttr.Rtu]: "RTU",
  [CmAttr.Dreq]: "DREQ",
  [CmAttr.Drep]: "DREP",
};

/** What the lab's CM messages carry: the union of the fields of the five messages (others unused). */
export interface CmMessage {
  readonly attr: CmAttr;
  /** MAD transaction ID (64 bits, as a bigint). */
  readonly tid: bigint;
  readonly localCommId: number;
  /** 0 in a REQ. */
  readonly remoteCommId: number;
  /** REQ, REP: the sender's QP number; DREQ: the receiver's (remote) QPN. */
  readonly qpn: number;
  /** REQ, REP: the sender's first send PSN. */
  readonly startingPsn: number;
  /** REQ: the RDMA CM service ID. */
  readonly serviceId: bigint;
  /** REQ, REP: the sender's CA GUID (EUI-64 of its MAC). */
  readonly caGuid: bigint;
  /** REQ: primary path (IPv4 addresses as IPv4-mapped IPv6 GIDs), traffic class, hop limit, MTU enum. */
  readonly srcIp: Ipv4Address;
  readonly dstIp: Ipv4Address;
  readonly trafficClass: number;
  readonly hopLimit: number;
  /** IB MTU enum (1: 256 ... 5: 4096). */
  readonly pathMtu: number;
  /** REQ: the RDMA CM header's source port. */
  readonly srcPort: number;
}

const REQ = {
  localCommId: 0,
  serviceId: 8,
  caGuid: 16,
  qkey: 28,
  qpnResp: 32,
  eecnInit: 36,
  remoteEecn: 40,
  psn: 44,
  pkey: 48,
  mtu: 50,
  retries: 51,
  localLid: 52,
  remoteLid: 54,
  localGid: 56,
  remoteGid: 72,
  flowLabel: 88,
  tclass: 92,
  hopLimit: 93,
  sl: 94,
  ackTimeout: 95,
  privateData: 140,
} as const;
const REP = { qkey: 8, qpn: 12, psn: 20, resp: 24, init: 25, ackDelay: 26, rnr: 27, caGuid: 28 } as const;

/** An IB MTU enum for a byte MTU (256..4096; IBTA §9.6.1.1 / ib_verbs.h ib_mtu). */
export function ibMtuEnum(bytes: number): number {
  let e = 1;
  while (e < 5 && 256 << e <= bytes) e++;
  return e;
}

/** The 256-byte MAD of `m` (header and CM message) into `buf` at `off`. */
export function serializeCmMad(m: CmMessage, buf: Uint8Array, off = 0): number {
  buf.fill(0, off, off + MAD_LENGTH);
  buf[off] = 1; // base version
  buf[off + 1] = CM_MGMT_CLASS;
  buf[off + 2] = CM_CLASS_VERSION;
  buf[off + 3] = MAD_METHOD_SEND;
  writeU32(buf, off + 8, Number((m.tid >> 32n) & 0xffff_ffffn));
  writeU32(buf, off + 12, Number(m.tid & 0xffff_ffffn));
  writeU16(buf, off + 16, m.attr);
  const c = off + MAD_HEADER_LENGTH;
  writeU32(buf, c, m.localCommId);
  switch (m.attr) {
    case CmAttr.Req:
      writeReq(m, buf, c);
      break;
    case CmAttr.Rep:
      writeU32(buf, c + 4, m.remoteCommId);
      writeU24(buf, c + REP.qpn, m.qpn);
      writeU24(buf, c + REP.psn, m.startingPsn);
      buf[c + REP.resp] = 1;
      buf[c + REP.init] = 1;
      // Target ACK delay 0, failover not supported (01), end-to-end flow control on.
      buf[c + REP.ackDelay] = (0b01 << 1) | 1;
      buf[c + REP.rnr] = 7 << 5;
      writeU32(buf, c + REP.caGuid, Number((m.caGuid >> 32n) & 0xffff_ffffn));
      writeU32(buf, c + REP.caGuid + 4, Number(m.caGuid & 0xffff_ffffn));
      break;
    case CmAttr.Dreq:
      writeU32(buf, c + 4, m.remoteCommId);
      writeU24(buf, c + 8, m.qpn);
      break;
    default:
      writeU32(buf, c + 4, m.remoteCommId);
  }
  return off + MAD_LENGTH;
}

function writeReq(m: CmMessage, buf: Uint8Array, c: number): void {
  writeU32(buf, c + REQ.serviceId, Number((m.serviceId >> 32n) & 0xffff_ffffn));
  writeU32(buf, c + REQ.serviceId + 4, Number(m.serviceId & 0xffff_ffffn));
  writeU32(buf, c + REQ.caGuid, Number((m.caGuid >> 32n) & 0xffff_ffffn));
  writeU32(buf, c + REQ.caGuid + 4, Number(m.caGuid & 0xffff_ffffn));
  writeU24(buf, c + REQ.qpnResp, m.qpn);
  buf[c + REQ.qpnResp + 3] = 1; // responder resources
  buf[c + REQ.eecnInit + 3] = 1; // initiator depth
  // Remote CM response timeout 20 (librdmacm's CMA_CM_RESPONSE_TIMEOUT), RC (00), end-to-end flow control.
  buf[c + REQ.remoteEecn + 3] = (20 << 3) | (0b00 << 1) | 1;
  writeU24(buf, c + REQ.psn, m.startingPsn);
  buf[c + REQ.psn + 3] = (20 << 3) | 7; // local CM response timeout 20, retry count 7
  writeU16(buf, c + REQ.pkey, DEFAULT_PKEY);
  buf[c + REQ.mtu] = ((m.pathMtu & 0xf) << 4) | 7; // RNR retry count 7
  buf[c + REQ.retries] = 15 << 4; // max CM retries 15 (CMA_MAX_CM_RETRIES)
  // Routed RoCEv2 (hop limit > 1): permissive LIDs, as cm.c cm_format_req writes them.
  writeU16(buf, c + REQ.localLid, 0xffff);
  writeU16(buf, c + REQ.remoteLid, 0xffff);
  writeMappedGid(buf, c + REQ.localGid, m.srcIp);
  writeMappedGid(buf, c + REQ.remoteGid, m.dstIp);
  buf[c + REQ.flowLabel + 3] = 0; // packet rate: none given
  buf[c + REQ.tclass] = m.trafficClass;
  buf[c + REQ.hopLimit] = m.hopLimit;
  buf[c + REQ.ackTimeout] = 14 << 3; // local ACK timeout 14 (4.096 µs × 2^14 ≈ 67 ms)
  // RDMA CM's IP header in the private data (cma.c struct cma_hdr).
  const p = c + REQ.privateData;
  buf[p] = 0; // CMA version
  buf[p + 1] = 4 << 4;
  writeU16(buf, p + 2, m.srcPort);
  writeU32(buf, p + 4 + 12, m.srcIp);
  writeU32(buf, p + 20 + 12, m.dstIp);
}

/** ::ffff:a.b.c.d, the GID of an IPv4 address (RoCEv2 GID type). */
function writeMappedGid(buf: Uint8Array, off: number, ip: Ipv4Address): void {
  buf.fill(0, off, off + 10);
  buf[off + 10] = 0xff;
  buf[off + 11] = 0xff;
  writeU32(buf, off + 12, ip);
}

function readU64(buf: Uint8Array, off: number): bigint {
  return (BigInt(readU32(buf, off)) << 32n) | BigInt(readU32(buf, off + 4));
}

/** Parses the 256-byte MAD at `off` (to `end`): a CM message of one of the kinds above. */
export function parseCmMad(buf: Uint8Array, off = 0, end = buf.length): Parsed<CmMessage> {
  const short = need("cm", buf.subarray(0, end), off, MAD_LENGTH, "MAD");
  if (short) return short;
  const bad = (msg: string, at: number) => fail("cm", WireErrorCode.BadValue, msg, at);
  if (buf[off] !== 1)
    return fail("cm", WireErrorCode.BadVersion, `MAD base version ${buf[off]}, expected 1`, off);
  if (buf[off + 1] !== CM_MGMT_CLASS)
    return bad(`management class ${buf[off + 1]}, expected 7 (CM)`, off + 1);
  if (buf[off + 2] !== CM_CLASS_VERSION) {
    return fail("cm", WireErrorCode.BadVersion, `CM class version ${buf[off + 2]}, expected 2`, off + 2);
  }
  if (buf[off + 3] !== MAD_METHOD_SEND)
    return bad(`method 0x${buf[off + 3]!.toString(16)}, expected Send (0x03)`, off + 3);
  const attr = readU16(buf, off + 16);
  if (CM_ATTR_NAMES[attr] === undefined || attr === CmAttr.Rej) {
    return bad(
      `attribute 0x${attr.toString(16).padStart(4, "0")} is not a CM message the lab speaks`,
      off + 16,
    );
  }
  const c = off + MAD_HEADER_LENGTH;
  const isReq = attr === CmAttr.Req;
  const isRep = attr === CmAttr.Rep;
  const p = c + REQ.privateData;
  return ok({
    attr: attr as CmAttr,
    tid: readU64(buf, off + 8),
    localCommId: readU32(buf, c),
    remoteCommId: isReq ? 0 : readU32(buf, c + 4),
    qpn: isReq
      ? readU24(buf, c + REQ.qpnResp)
      : isRep
        ? readU24(buf, c + REP.qpn)
        : attr === CmAttr.Dreq
          ? readU24(buf, c + 8)
          : 0,
    startingPsn: isReq ? readU24(buf, c + REQ.psn) : isRep ? readU24(buf, c + REP.psn) : 0,
    serviceId: isReq ? readU64(buf, c + REQ.serviceId) : 0n,
    caGuid: isReq ? readU64(buf, c + REQ.caGuid) : isRep ? readU64(buf, c + REP.caGuid) : 0n,
    srcIp: isReq ? readU32(buf, c + REQ.localGid + 12) : 0,
    dstIp: isReq ? readU32(buf, c + REQ.remoteGid + 12) : 0,
    trafficClass: isReq ? buf[c + REQ.tclass]! : 0,
    hopLimit: isReq ? buf[c + REQ.hopLimit]! : 0,
    pathMtu: isReq ? buf[c + REQ.mtu]! >>> 4 : 0,
    srcPort: isReq ? readU16(buf, p + 2) : 0,
  });
}

/** A CM message with every field the kind does not use zeroed. */
export function cmMessage(fields: Partial<CmMessage> & Pick<CmMessage, "attr">): CmMessage {
  return {
    tid: 0n,
    localCommId: 0,
    remoteCommId: 0,
    qpn: 0,
    startingPsn: 0,
    serviceId: 0n,
    caGuid: 0n,
    srcIp: 0,
    dstIp: 0,
    trafficClass: 0,
    // A REQ's path: hop limit 64 (a routed RoCEv2 path), MTU 1024 (enum 3); other messages carry none.
    hopLimit: fields.attr === CmAttr.Req ? 64 : 0,
    pathMtu: fields.attr === CmAttr.Req ? 3 : 0,
    srcPort: 0,
    ...fields,
  };
}

/** The RoCEv2 datagram carrying a CM MAD to the peer's QP1. */
export interface CmFrameSpec {
  readonly srcMac: MacAddress;
  readonly dstMac: MacAddress;
  readonly srcIp: Ipv4Address;
  readonly dstIp: Ipv4Address;
  readonly dscp: number;
  readonly ecn: Ecn;
  readonly udpSrcPort: number;
  readonly ttl?: number;
  readonly message: CmMessage;
}

const UDP_HEADER_LENGTH = 8;
/** Bytes of a CM frame: Ethernet, IPv4, UDP, BTH, DETH, MAD, ICRC. */
export const CM_FRAME_LENGTH =
  ETHERNET_HEADER_LENGTH +
  IPV4_HEADER_LENGTH +
  UDP_HEADER_LENGTH +
  BTH_LENGTH +
  DETH_LENGTH +
  MAD_LENGTH +
  ICRC_LENGTH;

/** A whole CM frame (Ethernet, IPv4 with DF, UDP 4791 checksum 0, BTH UD SEND ONLY to QP1, DETH, MAD, ICRC). */
export function buildCmFrame(spec: CmFrameSpec): Uint8Array {
  const frame = new Uint8Array(CM_FRAME_LENGTH);
  const ip = serializeEthernet(
    { dst: spec.dstMac, src: spec.srcMac, etherType: EtherType.IPv4, vlan: null },
    frame,
    0,
  );
  const udpLength = CM_FRAME_LENGTH - ip - IPV4_HEADER_LENGTH;
  let off = serializeIpv4(
    {
      src: spec.srcIp,
      dst: spec.dstIp,
      protocol: IpProtocol.UDP,
      payloadLength: udpLength,
      dscp: spec.dscp,
      ecn: spec.ecn,
      ttl: spec.ttl ?? 64,
      identification: 0,
      dontFragment: true,
    },
    frame,
    ip,
  );
  writeU16(frame, off, spec.udpSrcPort);
  writeU16(frame, off + 2, 4791);
  writeU16(frame, off + 4, udpLength);
  writeU16(frame, off + 6, 0);
  off += UDP_HEADER_LENGTH;
  // GMPs go unsolicited on QP1: PSN is the sender's, the lab's GSI numbers them from 0 per message.
  off = writeBth(frame, off, UD_SEND_ONLY, false, false, 0, 0, DEFAULT_PKEY, false, false, GSI_QP, false, 0);
  writeU32(frame, off, GSI_QKEY);
  writeU24(frame, off + 5, GSI_QP); // source QP (byte 4 reserved)
  off += DETH_LENGTH;
  serializeCmMad(spec.message, frame, off);
  writeIcrcV2(frame, ip, CM_FRAME_LENGTH);
  return frame;
}

/** What a UD datagram to QP1 carries after the BTH: the DETH's Q_Key and source QP, and where the MAD is. */
export interface CmDatagram {
  readonly qkey: number;
  readonly srcQp: number;
  readonly message: CmMessage;
}

/** Parses DETH and MAD after a UD SEND ONLY BTH at `bth` (the ICRC is the caller's to check). */
export function parseCmDatagram(buf: Uint8Array, bth: number, end: number): Parsed<CmDatagram> {
  const deth = bth + BTH_LENGTH;
  const short = need("deth", buf.subarray(0, end), deth, DETH_LENGTH);
  if (short) return short;
  if (buf[bth] !== UD_SEND_ONLY) {
    return fail(
      "cm",
      WireErrorCode.BadValue,
      `BTH opcode 0x${buf[bth]!.toString(16)}, expected UD SEND ONLY (0x64)`,
      bth,
    );
  }
  const payloadEnd = end - ICRC_LENGTH - ((buf[bth + 1]! >>> 4) & 3);
  if (payloadEnd - (deth + DETH_LENGTH) !== MAD_LENGTH) {
    return fail(
      "cm",
      WireErrorCode.BadLength,
      `UD payload of ${payloadEnd - deth - DETH_LENGTH} bytes, a MAD is 256`,
      deth,
    );
  }
  const mad = parseCmMad(buf, deth + DETH_LENGTH, payloadEnd);
  if (!mad.ok) return mad;
  return ok({ qkey: readU32(buf, deth), srcQp: readU24(buf, deth + 5), message: mad.value });
}

/** What a switch reads of a CM message to learn a connection (no allocation: the caller owns `out`). */
export interface CmIds {
  attr: number;
  localCommId: number;
  remoteCommId: number;
  /** REQ, REP: the sender's QP number; 0 otherwise. */
  qpn: number;
}

/**
 * Reads kind, communication IDs and QPN of the CM MAD in a UD SEND ONLY to QP1 whose BTH is at `bth`
 * (frame ends at `end`) into `out`; false when the packet is not such a CM message. The ICRC is not checked.
 */
export function peekCmIds(buf: Uint8Array, bth: number, end: number, out: CmIds): boolean {
  if (buf[bth] !== UD_SEND_ONLY || readU24(buf, bth + 5) !== GSI_QP) return false;
  const mad = bth + BTH_LENGTH + DETH_LENGTH;
  if (mad + MAD_LENGTH + ICRC_LENGTH > end) return false;
  if (buf[mad] !== 1 || buf[mad + 1] !== CM_MGMT_CLASS || buf[mad + 2] !== CM_CLASS_VERSION) return false;
  const attr = readU16(buf, mad + 16);
  if (CM_ATTR_NAMES[attr] === undefined) return false;
  const c = mad + MAD_HEADER_LENGTH;
  out.attr = attr;
  out.localCommId = readU32(buf, c);
  out.remoteCommId = attr === CmAttr.Req ? 0 : readU32(buf, c + 4);
  out.qpn =
    attr === CmAttr.Req ? readU24(buf, c + REQ.qpnResp) : attr === CmAttr.Rep ? readU24(buf, c + REP.qpn) : 0;
  if (attr === CmAttr.Dreq) out.qpn = readU24(buf, c + 8); // its Remote QPN (IBTA Vol. 1 §12.6.10)
  return true;
}
