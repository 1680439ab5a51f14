// Builds the frames a NIC sends, through the wire codecs. One allocation per frame (the frame itself):
// the spec objects handed to `buildRoceV2Frame` are owned here and rewritten for every packet, and the
// payload comes from the PayloadFactory's scratch area. Nothing keeps a reference to a built frame.

import type { Ipv4Address } from "../../wire/bytes.js";
import {
  INT_MAX_HOPS,
  IntMode,
  intBlockLength,
  writeIntCollect,
  writeIntTimestamp,
} from "../../wire/int-md.js";
import { Ecn } from "../../wire/ipv4.js";
import {
  type Aeth,
  AethSyndrome,
  buildCnpFrame,
  buildRoceV2Frame,
  DEFAULT_PKEY,
  Opcode as Op,
  type Opcode,
  type Reth,
  type RoceV2FrameSpec,
} from "../../wire/roce.js";
import type { NicConfig } from "../config.js";
import { RoceV1Framer } from "./frames-v1.js";
import { rkeyFor } from "./memory-region.js";
import { PayloadFactory } from "./payload.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const EMPTY = new Uint8Array(0);

/** The INT block a host's data packets carry: its congestion control's (none: -1). */
function intModeFor(cfg: NicConfig): number {
  if (cfg.cc === "hpcc") return IntMode.Collect;
  if (cfg.cc === "timely") return IntMode.Timestamp;
  return -1;
}

/**
 * Bytes the INT block adds to each of a host's data packets (0 when its congestion control sends none, or
 * it speaks RoCEv1): on top of the path MTU's full frame, so the ports that carry them must take it.
 */
export function dataIntBytes(cfg: NicConfig): number {
  const mode = intModeFor(cfg);
  return mode < 0 || cfg.roce === "v1" ? 0 : intBlockLength(mode as IntMode, cfg.hpcc.maxHops);
}

/** What a receiver echoes in its ACKs for one QP: the last INT block and whether CE was seen since. */
export class IntEcho {
  readonly bytes = new Uint8Array(intBlockLength(IntMode.Echo, INT_MAX_HOPS));
  length = 0;
  ce = false;
  private readonly views = new Map<number, Uint8Array>();

  /** The echoed block (a view reused for every ACK of the same length). */
  view(): Uint8Array {
    let v = this.views.get(this.length);
    if (v === undefined) {
      v = this.bytes.subarray(0, this.length);
      this.views.set(this.length, v);
    }
    return v;
  }
}

/** Builds every frame a NIC sends (RoCE data, READ requests, ACK/NAK, CNP) from reusable specs. */
export class FrameBuilder {
  readonly payloads: PayloadFactory;
  private readonly spec: Mutable<RoceV2FrameSpec>;
  private readonly reth: Mutable<Reth> = { va: 0n, rkey: 0, dmaLength: 0 };
  private readonly aeth: Mutable<Aeth> = { syndrome: AethSyndrome.AckUnlimited, msn: 0 };
  /** RoCEv1 framing when the NIC knows a layer-2 domain (NicConfig.rocev1); used while `roce` is v1. */
  private readonly v1: RoceV1Framer | null;

  /** The INT block of data packets (IntMode, or -1), and its hop slots. */
  private intMode: number;
  private intHops: number;
  /** The block of the next data packet (a view of `intBuf`, remade when the mode or slots change). */
  private readonly intBuf = new Uint8Array(intBlockLength(IntMode.Collect, INT_MAX_HOPS));
  private int: Uint8Array = EMPTY;

  constructor(private cfg: NicConfig) {
    this.payloads = new PayloadFactory(cfg.mtu);
    this.intMode = intModeFor(cfg);
    this.intHops = cfg.hpcc.maxHops;
    this.sizeInt();
    this.v1 = cfg.rocev1 === null ? null : new RoceV1Framer(cfg, cfg.rocev1);
    this.spec = {
      srcMac: cfg.port.mac,
      dstMac: cfg.gatewayMac,
      vlan: null,
      srcIp: cfg.port.ip,
      dstIp: 0,
      dscp: cfg.qos.dataDscp,
      ecn: Ecn.Ect0,
      ttl: 64,
      identification: 0,
      udpSrcPort: 0xc000,
      opcode: Op.Acknowledge,
      destQp: 0,
      psn: 0,
      ackReq: false,
      se: false,
      migReq: false,
      pkey: DEFAULT_PKEY,
      fecn: false,
      becn: false,
      reth: null,
      aeth: null,
      immDt: null,
      payload: EMPTY,
      int: null,
    };
  }

  /** Follow a configuration change (DSCPs; MACs and MTU do not change at run time). */
  configure(cfg: NicConfig): void {
    this.cfg = cfg;
    this.intMode = intModeFor(cfg);
    this.intHops = cfg.hpcc.maxHops;
    this.sizeInt();
    this.v1?.configure(cfg);
  }

  private build(s: RoceV2FrameSpec): Uint8Array {
    return this.v1 !== null && this.cfg.roce === "v1" ? this.v1.build(s) : buildRoceV2Frame(s);
  }

  private address(dstIp: Ipv4Address, udpSrcPort: number, destQp: number, opcode: Opcode, psn: number): void {
    const s = this.spec;
    s.dstIp = dstIp;
    s.udpSrcPort = udpSrcPort;
    s.destQp = destQp;
    s.opcode = opcode;
    s.psn = psn;
  }

  /**
   * A data packet (WRITE/SEND request, or READ response when `aethMsn` >= 0): DSCP dataDscp, ECT(0),
   * `length` payload bytes of packet (destQp, psn) stamped with `sentAt`. `rethLength` >= 0 adds a RETH
   * for `va` with that DMA length.
   */
  data(
    dstIp: Ipv4Address,
    udpSrcPort: number,
    destQp: number,
    opcode: Opcode,
    psn: number,
    ackReq: boolean,
    length: number,
    sentAt: number,
    va: bigint,
    rethLength: number,
    aethMsn: number,
  ): Uint8Array {
    const s = this.spec;
    this.address(dstIp, udpSrcPort, destQp, opcode, psn);
    s.dscp = this.cfg.qos.dataDscp;
    s.ecn = Ecn.Ect0;
    s.ackReq = ackReq;
    s.reth = rethLength >= 0 ? this.fillReth(va, destQp, rethLength) : null;
    if (aethMsn >= 0) {
      this.aeth.syndrome = AethSyndrome.AckUnlimited;
      this.aeth.msn = aethMsn;
      s.aeth = this.aeth;
    } else {
      s.aeth = null;
    }
    s.payload = length > 0 ? this.payloads.fill(destQp, psn, length, sentAt) : EMPTY;
    if (this.intMode >= 0 && this.cfg.roce !== "v1") return this.withInt(sentAt);
    return this.build(s);
  }

  private sizeInt(): void {
    const mode = this.intMode as IntMode;
    this.int = this.intMode < 0 ? EMPTY : this.intBuf.subarray(0, intBlockLength(mode, this.intHops));
  }

  /** The data packet just specified, with an INT block in front of its payload (docs/int.md). */
  private withInt(sentAt: number): Uint8Array {
    const s = this.spec;
    if (this.intMode === IntMode.Collect) writeIntCollect(this.int, 0, this.intHops);
    else writeIntTimestamp(this.int, 0, sentAt);
    s.int = this.int;
    const frame = buildRoceV2Frame(s);
    s.int = null;
    return frame;
  }

  /** A READ request for `length` bytes at `va`. Sent like data (it travels with the QP's requests). */
  readRequest(
    dstIp: Ipv4Address,
    udpSrcPort: number,
    destQp: number,
    psn: number,
    va: bigint,
    length: number,
  ): Uint8Array {
    const s = this.spec;
    this.address(dstIp, udpSrcPort, destQp, Op.RdmaReadRequest, psn);
    s.dscp = this.cfg.qos.dataDscp;
    s.ecn = Ecn.Ect0;
    s.ackReq = false;
    s.reth = this.fillReth(va, destQp, length);
    s.aeth = null;
    s.payload = EMPTY;
    return this.build(s);
  }

  /**
   * An ACK or NAK (`syndrome`) for `psn`. DSCP ackDscp and ECT(0): when ACKs share the data priority they
   * meet the same WRED queues as data, which would drop a Not-ECT ACK instead of marking it.
   */
  ack(
    dstIp: Ipv4Address,
    udpSrcPort: number,
    destQp: number,
    psn: number,
    syndrome: number,
    msn: number,
    echo: IntEcho | null = null,
  ) {
    const s = this.spec;
    this.address(dstIp, udpSrcPort, destQp, Op.Acknowledge, psn);
    s.dscp = this.cfg.qos.ackDscp;
    s.ecn = Ecn.Ect0;
    s.ackReq = false;
    s.reth = null;
    this.aeth.syndrome = syndrome;
    this.aeth.msn = msn;
    s.aeth = this.aeth;
    s.payload = EMPTY;
    if (echo === null || this.cfg.roce === "v1" || (echo.length === 0 && !echo.ce)) return this.build(s);
    // The receiver's echo (docs/int.md): BECN for CE seen since the last ACK, the last INT block.
    s.becn = echo.ce;
    if (echo.length > 0) s.int = echo.view();
    const frame = buildRoceV2Frame(s);
    s.becn = false;
    s.int = null;
    echo.ce = false;
    return frame;
  }

  /** A CNP to the reaction point's QP `destQp` (DSCP cnpDscp, Not-ECT so no switch can mark it). */
  cnp(dstIp: Ipv4Address, udpSrcPort: number, destQp: number): Uint8Array {
    return buildCnpFrame({
      srcMac: this.cfg.port.mac,
      dstMac: this.cfg.gatewayMac,
      srcIp: this.cfg.port.ip,
      dstIp,
      udpSrcPort,
      destQp,
      dscp: this.cfg.qos.cnpDscp,
      ecn: Ecn.NotEct,
    });
  }

  private fillReth(va: bigint, destQp: number, length: number): Reth {
    this.reth.va = va;
    // One memory region per QP pair (memory-region.ts): the key is derived from the responder's QPN.
    this.reth.rkey = rkeyFor(destQp);
    this.reth.dmaLength = length;
    return this.reth;
  }
}

export { rkeyFor };
