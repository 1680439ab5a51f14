// The RDMA NIC core: one RoCEv2 port, RC queue pairs (WRITE, SEND, READ), DCQCN (NP and RP), per-QP
// pacing, PFC reaction and optional PFC generation from a receive buffer. A pure Device (see
// device/contract.ts): the same object runs in the simulator and inside a live NIC process.
//
// Receive path: port → [receive buffer drained at the host's ingest rate, PFC XOFF/XON] → parse
//   (Ethernet, IPv4, UDP 4791, ICRC, BTH) → CNP: the QP's reaction point | ACK/NAK and READ responses: the
//   QP's requester | WRITE/SEND/READ requests: the QP's responder; CE marks feed the QP's notification
//   point, which queues CNPs.
// Transmit path (the port pulls when its wire frees up): PFC and ARP replies, then CNPs, then ACK/NAKs
//   (each skipped while PFC pauses its priority), then data: round robin over QPs that have something to
//   send, whose priority is not paused, that are inside maxInflightPackets and whose pacer allows; when
//   QPs wait only on their pacers, one wake-up timer is armed at the earliest next-send time.

import type { Counters, Device, DeviceEnv, DeviceStats, Nanoseconds, PortStats } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { EventLimiter } from "../device/event-limiter.js";
import { Fifo } from "../device/fifo.js";
import { TxPort } from "../device/tx-port.js";
import { ArpOp, buildArpFrame, parseArp } from "../wire/arp.js";
import { BROADCAST_MAC, type Ipv4Address, internetChecksum, readMac } from "../wire/bytes.js";
import { EtherType, ethPayloadOffset, ethType, wireBytes } from "../wire/ethernet.js";
import { verifyIcrcV2 } from "../wire/icrc.js";
import {
  Ecn,
  IpProtocol,
  ipv4Dst,
  ipv4Ecn,
  ipv4HeaderLength,
  ipv4Protocol,
  ipv4TotalLength,
} from "../wire/ipv4.js";
import { buildPfcFrame, PFC_DST_MAC, parseMacControl, quantaToNs } from "../wire/pfc.js";
import {
  AethSyndrome,
  aethKind,
  Opcode,
  PSN_MASK,
  parseRoce,
  type RoceHeaders,
  roceUdpSourcePort,
} from "../wire/roce.js";
import { ROCEV2_UDP_PORT, udpDstPort, udpLength } from "../wire/udp.js";
import { type NicConfig, PRIORITIES, type RxBufferConfig } from "./config.js";
import { NicCounters } from "./counters.js";
import type { DcqcnParams } from "./dcqcn-params.js";
import { RpTimer } from "./dcqcn-rp.js";
import { FrameBuilder } from "./frames.js";
import { Histogram, type HistogramSnapshot } from "./histogram.js";
import { payloadSentAt, TIMESTAMP_LENGTH } from "./payload.js";
import { PACE_SLACK_NS, QueuePair } from "./qp.js";
import { type Message, ResponseResult } from "./requester.js";
import { RequestResult } from "./responder.js";
import {
  KIND_ACK,
  KIND_READ_REQUEST,
  KIND_READ_RESPONSE,
  KIND_SEND,
  KIND_WRITE,
  MSG_OP_NAMES,
  type MsgOp,
  type MsgOpName,
  opcodeKind,
  type TransportSettings,
} from "./transport.js";

export type NicCommand =
  /** Create an RC QP connected to `remoteQpn` at `remoteIp`. */
  | {
      readonly type: "create-qp";
      readonly qpn: number;
      readonly remoteQpn: number;
      readonly remoteIp: Ipv4Address;
      /** Default roceUdpSourcePort(qpn, remoteQpn), in 0xC000–0xFFFF. */
      readonly udpSrcPort?: number;
      /** Our first send PSN (default 0). */
      readonly startPsn?: number;
      /** The peer's first send PSN, which our responder expects (default 0). */
      readonly remoteStartPsn?: number;
    }
  /** Post a work request; `at` in the future schedules it (the NIC arms its own timer). */
  | {
      readonly type: "post";
      readonly qpn: number;
      readonly op: MsgOpName;
      readonly bytes: number;
      readonly flowId: string;
      readonly at?: Nanoseconds;
    }
  /** Change run-time settings. A new `dcqcn` restarts every QP's reaction point at line rate. */
  | {
      readonly type: "configure";
      readonly dcqcn?: DcqcnParams | null;
      readonly ackReqEvery?: number;
      readonly rtoNs?: Nanoseconds;
      readonly maxInflightPackets?: number;
      readonly nakRetryGuard?: boolean;
      readonly verifyPayload?: boolean;
      readonly answerArp?: boolean;
      readonly ackDscp?: number;
      readonly rxBuffer?: Partial<RxBufferConfig>;
    }
  /** Drop every work request not yet started and cancel scheduled posts (started ones run to the end). */
  | { readonly type: "stop" }
  | { readonly type: "clear-counters" };

export type NicReply =
  | { readonly ok: true; readonly udpSrcPort?: number; readonly dropped?: number }
  | { readonly ok: false; readonly error: string };

/** What the scenario report needs about one completed work request. */
export interface CompletionRecord {
  readonly flowId: string;
  readonly qpn: number;
  readonly op: MsgOpName;
  readonly bytes: number;
  readonly postedAt: Nanoseconds;
  readonly firstSentAt: Nanoseconds;
  /** WRITE/SEND: the last byte acknowledged; READ: the last response byte arrived. */
  readonly completedAt: Nanoseconds;
  /** completedAt − postedAt. */
  readonly fctNs: Nanoseconds;
  readonly retransmits: number;
}

export interface QpStats {
  readonly qpn: number;
  readonly remoteQpn: number;
  readonly remoteIp: Ipv4Address;
  readonly udpSrcPort: number;
  readonly rateBps: number;
  readonly targetRateBps: number;
  readonly alpha: number;
  /** Payload bytes sent (requests and READ responses, retransmissions included). */
  readonly bytesSent: number;
  /** WRITE/SEND payload bytes the peer acknowledged. */
  readonly bytesAcked: number;
  /** WRITE/SEND payload bytes our responder accepted in order (each byte once). */
  readonly bytesDelivered: number;
  /** READ payload bytes our requester received in order (each byte once). */
  readonly readBytesReceived: number;
  readonly retransmits: number;
  readonly cnpHandled: number;
  /** CNPs for this QP received while its reaction point was off. */
  readonly cnpIgnored: number;
  readonly cnpSent: number;
  /** CE-marked data packets this QP received. */
  readonly ecnMarked: number;
  readonly inflightPackets: number;
  readonly pendingMessages: number;
  readonly paused: boolean;
}

export interface NicDetail {
  readonly qps: readonly QpStats[];
  readonly flows: readonly CompletionRecord[];
  /** One-way delay of every received data packet, NIC to NIC, ns. */
  readonly latency: HistogramSnapshot;
  readonly rxBuffer: { readonly bytes: number; readonly peakBytes: number; readonly xoff: boolean };
}

// Timer ids: kind × TIMER_KIND + index.
const TIMER_KIND = 1_000_000;
const T_TX = 0;
const T_WAKE = 1;
const T_PAUSE_EXPIRE = 2;
const T_RTO = 3;
const T_RP_INCREASE = 4;
const T_RP_CUT = 5;
const T_CNP = 6;
const T_POST = 7;
const T_RX_DRAIN = 8;
const T_XOFF_REFRESH = 9;

const PORT = 1;
/** The host stack's side (see NicConfig.hostPort). */
const HOST_PORT = 2;
/** Host-stack frames waiting for the wire; beyond this the host's traffic is dropped, as a full TX ring. */
const HOST_QUEUE_LIMIT = 1024;
/** At most one CNP/rate-cut/drop event per key per this interval. */
const EVENT_INTERVAL_NS = 10_000;
const KEY_CNP = 1_000_000;
const KEY_CUT = 2_000_000;
const KEY_DROP = 3_000_000;
const KEY_MISMATCH = 4_000_000;

const DropReason = {
  Icrc: "icrc",
  Malformed: "malformed",
  UnknownQp: "unknown-qp",
  InvalidRequest: "invalid-request",
} as const;
type DropReason = (typeof DropReason)[keyof typeof DropReason];
const DROP_REASONS = Object.values(DropReason);

const MAX_MESSAGE_BYTES = 0xffff_ffff;

interface ScheduledPost {
  readonly at: Nanoseconds;
  readonly qpn: number;
  readonly op: MsgOp;
  readonly bytes: number;
  readonly flowId: string;
}

/** The RDMA NIC device (one port, port 1). */
export class Nic implements Device<NicCommand, NicReply> {
  readonly name: string;
  private cfg: NicConfig;
  private readonly settings: TransportSettings;
  private readonly counters = new NicCounters();
  private readonly builder: FrameBuilder;
  private readonly tx: TxPort;
  private up = true;
  private readonly qps: QueuePair[] = [];
  private readonly qpByNum = new Map<number, QueuePair>();
  private rr = 0;
  /** Frames never held by PFC: PFC and ARP replies. */
  private readonly urgent = new Fifo<Uint8Array>();
  private readonly cnps = new Fifo<Uint8Array>();
  /** QPs that owe an ACK or NAK (built when the wire takes it, so several requests coalesce into one). */
  private readonly ackQueue = new Fifo<QueuePair>();
  private dataPrio: number;
  private ackPrio: number;
  private cnpPrio: number;
  private wakeAt = -1;
  private scheduled: ScheduledPost[] = [];
  private readonly flows: CompletionRecord[] = [];
  private readonly latency = new Histogram();
  private readonly limiter = new EventLimiter(EVENT_INTERVAL_NS);
  private readonly drops = new Map<number, number>();
  // PFC received (we are paused).
  private paused = 0;
  private readonly pauseUntil = new Float64Array(PRIORITIES);
  private readonly pausedSince = new Float64Array(PRIORITIES);
  private readonly rxPause = new Float64Array(PRIORITIES);
  private readonly rxResume = new Float64Array(PRIORITIES);
  private readonly rxPauseNs = new Float64Array(PRIORITIES);
  private readonly rxPauseTransitions = new Float64Array(PRIORITIES);
  // PFC sent (our receive buffer).
  private readonly txPause = new Float64Array(PRIORITIES);
  private readonly txResume = new Float64Array(PRIORITIES);
  private readonly rxQueue = new Fifo<Uint8Array>();
  private rxQueueBytes = 0;
  private rxQueuePeak = 0;
  private rxDraining = false;
  private rxDrainUntil = 0;
  private xoff = false;
  private rxPackets = 0;
  private rxBytes = 0;
  /** Host-stack frames per priority (a NIC keeps a send queue per traffic class, so PFC stops only its own). */
  private readonly hostTx = Array.from({ length: PRIORITIES }, () => new Fifo<Uint8Array>());
  private hostQueued = 0;
  /** Alternate between the host stack's frames and RDMA data, so neither starves the other. */
  private hostTurn = false;
  private toHostFrames = 0;
  private fromHostFrames = 0;
  private hostTxDropped = 0;

  constructor(
    config: NicConfig,
    private readonly env: DeviceEnv,
  ) {
    this.name = config.name;
    this.cfg = config;
    this.settings = {
      mtu: config.mtu,
      ackReqEvery: config.ackReqEvery,
      maxInflightPackets: config.maxInflightPackets,
      nakRetryGuard: config.nakRetryGuard,
    };
    this.builder = new FrameBuilder(config);
    this.tx = new TxPort(PORT, config.port.rateBps, T_TX * TIMER_KIND + PORT, env, (now) => this.pull(now));
    this.dataPrio = config.dscpToPriority[config.dataDscp]!;
    this.ackPrio = config.dscpToPriority[config.ackDscp]!;
    this.cnpPrio = config.dscpToPriority[config.cnpDscp]!;
  }

  get config(): NicConfig {
    return this.cfg;
  }

  private get lineRate(): number {
    return this.cfg.port.rateBps;
  }

  start(_now: Nanoseconds): void {}

  // ---------------------------------------------------------------------------------------------------
  // Receive path

  receive(port: number, frame: Uint8Array, now: Nanoseconds): void {
    if (port === HOST_PORT && this.cfg.hostPort) {
      this.fromHost(frame, now);
      return;
    }
    if (port !== PORT || !this.up) return;
    this.rxPackets++;
    this.rxBytes += frame.length;
    if (frame.length < 14) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    // The MAC consumes PFC before anything is buffered.
    if (ethType(frame) === EtherType.MacControl) {
      this.receiveMacControl(frame, now);
      return;
    }
    if (this.cfg.rxBuffer.enabled) {
      this.buffer(frame, now);
      return;
    }
    this.process(frame, now);
  }

  private process(frame: Uint8Array, now: Nanoseconds): void {
    const type = ethType(frame);
    const l3 = ethPayloadOffset(frame);
    if (this.cfg.hostPort && !this.isRoceForUs(frame, type, l3)) {
      this.toHostFrames++;
      this.env.transmit(HOST_PORT, frame);
      return;
    }
    if (type === EtherType.ARP) {
      this.receiveArp(frame, l3, now);
      return;
    }
    if (type !== EtherType.IPv4 || readMac(frame, 0) !== this.cfg.port.mac) {
      this.counters.rxIgnored++;
      return;
    }
    this.receiveIpv4(frame, l3, now);
  }

  /** A RoCEv2 packet addressed to us: IPv4, UDP, destination port 4791, our address. */
  private isRoceForUs(frame: Uint8Array, type: number, ip: number): boolean {
    if (type !== EtherType.IPv4 || frame.length < ip + 28 || ipv4Protocol(frame, ip) !== IpProtocol.UDP)
      return false;
    if (ipv4Dst(frame, ip) !== this.cfg.port.ip) return false;
    return udpDstPort(frame, ip + ipv4HeaderLength(frame, ip)) === ROCEV2_UDP_PORT;
  }

  /** A frame from the host stack, for the wire. */
  private fromHost(frame: Uint8Array, now: Nanoseconds): void {
    if (frame.length < 14) return;
    if (this.hostQueued >= HOST_QUEUE_LIMIT) {
      this.hostTxDropped++;
      return;
    }
    this.fromHostFrames++;
    this.hostQueued++;
    this.hostTx[this.hostPriority(frame)]!.push(frame);
    this.kick(now);
  }

  /** Priority of a host-stack frame: its DSCP's for IPv4, 0 otherwise. */
  private hostPriority(frame: Uint8Array): number {
    if (ethType(frame) !== EtherType.IPv4) return 0;
    return this.cfg.dscpToPriority[frame[ethPayloadOffset(frame) + 1]! >>> 2]!;
  }

  /** The next host-stack frame of the highest priority that is not paused. */
  private takeHostFrame(): Uint8Array | null {
    if (this.hostQueued === 0) return null;
    for (let p = PRIORITIES - 1; p >= 0; p--) {
      if ((this.paused >> p) & 1) continue;
      const frame = this.hostTx[p]!.shift();
      if (frame !== undefined) {
        this.hostQueued--;
        return frame;
      }
    }
    return null;
  }

  private receiveIpv4(frame: Uint8Array, ip: number, now: Nanoseconds): void {
    if (
      frame.length < ip + 20 ||
      frame[ip]! >>> 4 !== 4 ||
      ipv4HeaderLength(frame, ip) < 20 ||
      ip + ipv4TotalLength(frame, ip) > frame.length ||
      internetChecksum(frame, ip, ipv4HeaderLength(frame, ip)) !== 0
    ) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    if (ipv4Dst(frame, ip) !== this.cfg.port.ip || ipv4Protocol(frame, ip) !== IpProtocol.UDP) {
      this.counters.rxIgnored++;
      return;
    }
    const end = ip + ipv4TotalLength(frame, ip);
    const udp = ip + ipv4HeaderLength(frame, ip);
    if (udp + 8 > end) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    if (udpDstPort(frame, udp) !== ROCEV2_UDP_PORT) {
      this.counters.rxIgnored++;
      return;
    }
    if (udp + udpLength(frame, udp) !== end) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    if (!verifyIcrcV2(frame, ip, end)) {
      this.counters.rxIcrcErrors++;
      this.drop(DropReason.Icrc, now);
      return;
    }
    const parsed = parseRoce(frame, udp + 8, end);
    if (!parsed.ok) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    this.receiveRoce(parsed.value, frame, ipv4Ecn(frame, ip) === Ecn.Ce, now);
  }

  private receiveRoce(h: RoceHeaders, frame: Uint8Array, ce: boolean, now: Nanoseconds): void {
    const bth = h.bth;
    if (bth.opcode === Opcode.Cnp) {
      this.receiveCnp(bth.destQp, now);
      return;
    }
    const qp = this.qpByNum.get(bth.destQp);
    if (qp === undefined) {
      this.counters.rxUnknownQp++;
      this.drop(DropReason.UnknownQp, now);
      return;
    }
    const kind = opcodeKind(bth.opcode);
    if (kind === KIND_ACK) {
      this.receiveAck(qp, h, now);
      return;
    }
    if (kind === KIND_READ_RESPONSE) {
      if (ce) this.marked(qp, now);
      this.inspect(qp, frame, h, now);
      const r = qp.requester.onReadResponse(bth.psn, h.payloadLength, now);
      if (r === ResponseResult.Duplicate) this.counters.duplicateResponse++;
      else if (r === ResponseResult.Invalid) this.drop(DropReason.InvalidRequest, now);
      this.afterRequesterEvent(qp, now);
      return;
    }
    if (kind === KIND_WRITE || kind === KIND_SEND || kind === KIND_READ_REQUEST) {
      if (ce) this.marked(qp, now);
      if (kind !== KIND_READ_REQUEST) this.inspect(qp, frame, h, now);
      const reth = h.reth;
      const r = qp.responder.onRequest(
        kind,
        bth.opcode,
        bth.psn,
        bth.ackReq,
        h.payloadLength,
        reth === null ? -1 : reth.dmaLength,
        reth === null ? -1 : reth.rkey,
      );
      if (r === RequestResult.Invalid) this.drop(DropReason.InvalidRequest, now);
      if (qp.responder.ackPending || qp.responder.nakPending) this.queueAck(qp, now);
      if (kind === KIND_READ_REQUEST && qp.responder.hasResponses) this.kick(now);
      return;
    }
    // The immediate-data variants parse but are not spoken here (atomics and UC/UD opcodes never get this
    // far: parseRoce refuses them and they count as malformed).
    this.counters.rxIgnored++;
  }

  private receiveAck(qp: QueuePair, h: RoceHeaders, now: Nanoseconds): void {
    const aeth = h.aeth!;
    this.counters.acksReceived++;
    const kind = aethKind(aeth.syndrome);
    if (kind === "ack") qp.requester.onAck(h.bth.psn, now);
    else if (kind === "nak" && aeth.syndrome === AethSyndrome.NakPsnSequenceError) {
      this.counters.packetSeqErr++;
      qp.requester.onNak(h.bth.psn, now);
    }
    this.afterRequesterEvent(qp, now);
  }

  /** ACKs, NAKs or responses may have opened the window, completed work or asked for a resend. */
  private afterRequesterEvent(qp: QueuePair, now: Nanoseconds): void {
    this.ensureRto(qp, now);
    if (qp.hasData()) this.kick(now);
  }

  /** Every received data packet (in order or not): one-way delay sample and payload pattern check. */
  private inspect(qp: QueuePair, frame: Uint8Array, h: RoceHeaders, now: Nanoseconds): void {
    const off = h.payloadOffset;
    const len = h.payloadLength;
    if (len >= TIMESTAMP_LENGTH) this.latency.record(now - payloadSentAt(frame, off));
    if (
      this.cfg.verifyPayload &&
      len > 0 &&
      !this.builder.payloads.verify(frame, off, len, qp.qpn, h.bth.psn)
    ) {
      // The ICRC passed, so these are the bytes the peer sent: a transport bug, not corruption on the wire.
      this.counters.payloadMismatch++;
      const count = this.limiter.admit(KEY_MISMATCH + qp.slot, now);
      if (count > 0) this.env.emit({ kind: EventKind.Info, qp: qp.qpn, count, detail: "payload-mismatch" });
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // DCQCN

  /** A CE-marked data packet for `qp` (we are its notification point). */
  private marked(qp: QueuePair, now: Nanoseconds): void {
    this.counters.npEcnMarkedRocePackets++;
    qp.ecnMarked++;
    if (qp.np.onMarked(now)) this.sendCnp(qp, now);
    this.syncCnpTimer(qp);
  }

  private sendCnp(qp: QueuePair, now: Nanoseconds): void {
    this.cnps.push(this.builder.cnp(qp.remoteIp, qp.udpSrcPort, qp.remoteQpn));
    this.counters.npCnpSent++;
    qp.cnpSent++;
    const count = this.limiter.admit(KEY_CNP + qp.slot, now);
    if (count > 0) this.env.emit({ kind: EventKind.CnpSent, port: PORT, qp: qp.qpn, count });
    this.kick(now);
  }

  private syncCnpTimer(qp: QueuePair): void {
    const at = qp.np.deferredAt;
    if (at === qp.armedCnp) return;
    qp.armedCnp = at;
    const id = T_CNP * TIMER_KIND + qp.slot;
    if (at < 0) this.env.disarm(id);
    else this.env.arm(id, Math.ceil(at));
  }

  /** A CNP for our QP `qpn` (we are its reaction point). */
  private receiveCnp(qpn: number, now: Nanoseconds): void {
    const qp = this.qpByNum.get(qpn);
    if (qp === undefined || qp.rp === null) {
      this.counters.rpCnpIgnored++;
      if (qp !== undefined) qp.cnpIgnored++;
      return;
    }
    this.counters.rpCnpHandled++;
    const before = qp.rp.rate;
    qp.rp.onCnp(now);
    this.afterRateEvent(qp, before, now);
  }

  /** Re-arm the RP's timers if they moved, re-pace, report a cut. */
  private afterRateEvent(qp: QueuePair, before: number, now: Nanoseconds): void {
    const rp = qp.rp;
    if (rp === null) return;
    const inc = rp.timerAt(RpTimer.Increase);
    if (inc !== qp.armedIncrease) {
      qp.armedIncrease = inc;
      if (inc < 0) this.env.disarm(T_RP_INCREASE * TIMER_KIND + qp.slot);
      else this.env.arm(T_RP_INCREASE * TIMER_KIND + qp.slot, inc);
    }
    const cut = rp.timerAt(RpTimer.Cut);
    if (cut !== qp.armedCut) {
      qp.armedCut = cut;
      if (cut < 0) this.env.disarm(T_RP_CUT * TIMER_KIND + qp.slot);
      else this.env.arm(T_RP_CUT * TIMER_KIND + qp.slot, cut);
    }
    if (rp.rate === before) return;
    qp.repace(this.lineRate);
    if (rp.rate < before) {
      const count = this.limiter.admit(KEY_CUT + qp.slot, now);
      if (count > 0) {
        this.env.emit({
          kind: EventKind.RateCut,
          qp: qp.qpn,
          count,
          value: rp.rate,
        });
      }
    } else if (qp.hasData()) {
      this.kick(now);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Transmit path

  /** Start the port if it is idle (TxPort ignores kicks from inside its own pull). */
  private kick(now: Nanoseconds): void {
    this.tx.kick(now);
  }

  private pull(now: Nanoseconds): Uint8Array | null {
    return this.choose(now);
  }

  private choose(now: Nanoseconds): Uint8Array | null {
    const urgent = this.urgent.shift();
    if (urgent !== undefined) return urgent;
    if (!((this.paused >> this.cnpPrio) & 1)) {
      const cnp = this.cnps.shift();
      if (cnp !== undefined) return cnp;
    }
    if (!((this.paused >> this.ackPrio) & 1)) {
      for (let qp = this.ackQueue.shift(); qp !== undefined; qp = this.ackQueue.shift()) {
        qp.inAckQueue = false;
        const frame = qp.responder.takeAckFrame();
        if (qp.responder.ackPending || qp.responder.nakPending) this.queueAck(qp, now);
        if (frame !== null) return frame;
      }
    }
    // Host-stack frames and RDMA data take turns while both have something to send.
    if (this.hostTurn) {
      const host = this.takeHostFrame();
      if (host !== null) {
        this.hostTurn = false;
        return host;
      }
    }
    const data = this.pullData(now);
    if (data !== null) {
      this.hostTurn = true;
      return data;
    }
    return this.takeHostFrame();
  }

  private pullData(now: Nanoseconds): Uint8Array | null {
    if ((this.paused >> this.dataPrio) & 1) return null;
    const qps = this.qps;
    const n = qps.length;
    let earliest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const idx = (this.rr + i) % n;
      const qp = qps[idx]!;
      if (!qp.hasData()) continue;
      if (qp.nextSendAt > now + PACE_SLACK_NS) {
        if (qp.nextSendAt < earliest) earliest = qp.nextSendAt;
        continue;
      }
      const frame = qp.nextFrame(now);
      if (frame === null) continue;
      this.rr = (idx + 1) % n;
      this.afterDataSent(qp, frame, now);
      return frame;
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.armWake(Math.ceil(earliest - PACE_SLACK_NS), now);
    return null;
  }

  private afterDataSent(qp: QueuePair, frame: Uint8Array, now: Nanoseconds): void {
    qp.paced(now, wireBytes(frame.length) * 8, this.lineRate);
    const rp = qp.rp;
    if (rp !== null) {
      const before = rp.rate;
      if (rp.onBytesSent(frame.length, now)) this.afterRateEvent(qp, before, now);
    }
    this.ensureRto(qp, now);
  }

  private armWake(at: Nanoseconds, now: Nanoseconds): void {
    const t = Math.max(at, now + 1);
    if (this.wakeAt >= 0 && this.wakeAt <= t && this.wakeAt > now) return;
    this.wakeAt = t;
    this.env.arm(T_WAKE * TIMER_KIND, t);
  }

  private queueAck(qp: QueuePair, now: Nanoseconds): void {
    if (qp.inAckQueue) return;
    qp.inAckQueue = true;
    this.ackQueue.push(qp);
    this.kick(now);
  }

  /** Keeps the QP's retransmission timer armed while it has anything outstanding. */
  private ensureRto(qp: QueuePair, _now: Nanoseconds): void {
    if (qp.rtoArmed || !qp.requester.outstanding) return;
    qp.rtoArmed = true;
    this.env.arm(T_RTO * TIMER_KIND + qp.slot, qp.requester.lastProgressAt + this.cfg.rtoNs);
  }

  // ---------------------------------------------------------------------------------------------------
  // PFC: being paused, and pausing the link partner from our receive buffer

  private receiveMacControl(frame: Uint8Array, now: Nanoseconds): void {
    if (readMac(frame, 0) !== PFC_DST_MAC) {
      this.counters.rxIgnored++;
      return;
    }
    const parsed = parseMacControl(frame, 14);
    if (!parsed.ok) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    const control = parsed.value;
    if (control.kind !== "pfc") {
      // 802.3x link pause is not configured on RoCE ports.
      this.counters.rxIgnored++;
      return;
    }
    for (let p = 0; p < PRIORITIES; p++) {
      if (!((control.enableVector >> p) & 1)) continue;
      const quanta = control.quanta[p]!;
      if (quanta === 0) {
        this.rxResume[p]!++;
        this.unpause(p, now);
        continue;
      }
      this.rxPause[p]!++;
      const until = now + quantaToNs(quanta, this.lineRate);
      this.pauseUntil[p] = until;
      this.env.arm(T_PAUSE_EXPIRE * TIMER_KIND + p, Math.ceil(until));
      if (!((this.paused >> p) & 1)) {
        this.paused |= 1 << p;
        this.pausedSince[p] = now;
        this.env.emit({ kind: EventKind.PausedOn, port: PORT, priority: p });
      }
    }
  }

  private unpause(p: number, now: Nanoseconds): void {
    if (!((this.paused >> p) & 1)) return;
    this.paused &= ~(1 << p);
    this.rxPauseNs[p]! += now - this.pausedSince[p]!;
    this.rxPauseTransitions[p]!++;
    this.env.disarm(T_PAUSE_EXPIRE * TIMER_KIND + p);
    this.env.emit({ kind: EventKind.PausedOff, port: PORT, priority: p });
    this.kick(now);
  }

  private buffer(frame: Uint8Array, now: Nanoseconds): void {
    this.rxQueue.push(frame);
    this.rxQueueBytes += frame.length;
    if (this.rxQueueBytes > this.rxQueuePeak) this.rxQueuePeak = this.rxQueueBytes;
    if (!this.xoff && this.rxQueueBytes >= this.cfg.rxBuffer.xoffBytes) this.setXoff(true, now);
    if (!this.rxDraining) this.startDrain(now);
  }

  private startDrain(now: Nanoseconds): void {
    const head = this.rxQueue.peek();
    if (head === undefined) {
      this.rxDraining = false;
      return;
    }
    this.rxDraining = true;
    this.rxDrainUntil =
      Math.max(this.rxDrainUntil, now) + (wireBytes(head.length) * 8e9) / this.cfg.rxBuffer.hostIngestRateBps;
    this.env.arm(T_RX_DRAIN * TIMER_KIND, Math.ceil(this.rxDrainUntil));
  }

  private drained(now: Nanoseconds): void {
    const frame = this.rxQueue.shift();
    if (frame === undefined) {
      this.rxDraining = false;
      return;
    }
    this.rxQueueBytes -= frame.length;
    this.process(frame, now);
    if (this.xoff && this.rxQueueBytes <= this.cfg.rxBuffer.xonBytes) this.setXoff(false, now);
    this.startDrain(now);
  }

  private setXoff(on: boolean, now: Nanoseconds): void {
    this.xoff = on;
    this.sendPfc(on ? this.cfg.rxBuffer.pauseQuanta : 0, now);
    const refresh = T_XOFF_REFRESH * TIMER_KIND;
    if (on) {
      this.armXoffRefresh(now);
      this.env.emit({ kind: EventKind.PfcXoff, port: PORT, priority: this.dataPrio });
    } else {
      this.env.disarm(refresh);
      this.env.emit({ kind: EventKind.PfcXon, port: PORT, priority: this.dataPrio });
    }
  }

  private armXoffRefresh(now: Nanoseconds): void {
    const pauseNs = quantaToNs(this.cfg.rxBuffer.pauseQuanta, this.lineRate);
    this.env.arm(T_XOFF_REFRESH * TIMER_KIND, now + Math.max(1, Math.floor(pauseNs / 2)));
  }

  private sendPfc(quanta: number, now: Nanoseconds): void {
    const times: (number | null)[] = [null, null, null, null, null, null, null, null];
    times[this.dataPrio] = quanta;
    this.urgent.push(buildPfcFrame({ src: this.cfg.port.mac, quanta: times }));
    if (quanta > 0) this.txPause[this.dataPrio]!++;
    else this.txResume[this.dataPrio]!++;
    this.kick(now);
  }

  // ---------------------------------------------------------------------------------------------------
  // ARP

  private receiveArp(frame: Uint8Array, l3: number, now: Nanoseconds): void {
    const parsed = parseArp(frame, l3);
    if (!parsed.ok) {
      this.drop(DropReason.Malformed, now);
      return;
    }
    const arp = parsed.value;
    const dst = readMac(frame, 0);
    if (
      !this.cfg.answerArp ||
      arp.op !== ArpOp.Request ||
      arp.targetIp !== this.cfg.port.ip ||
      (dst !== BROADCAST_MAC && dst !== this.cfg.port.mac)
    ) {
      this.counters.rxIgnored++;
      return;
    }
    this.urgent.push(
      buildArpFrame({
        op: ArpOp.Reply,
        senderMac: this.cfg.port.mac,
        senderIp: this.cfg.port.ip,
        targetMac: arp.senderMac,
        targetIp: arp.senderIp,
      }),
    );
    this.counters.arpRepliesSent++;
    this.kick(now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Timers

  fire(timer: number, now: Nanoseconds): void {
    const kind = Math.floor(timer / TIMER_KIND);
    const index = timer % TIMER_KIND;
    switch (kind) {
      case T_TX:
        this.tx.onTimer(now);
        break;
      case T_WAKE:
        this.wakeAt = -1;
        this.kick(now);
        break;
      case T_PAUSE_EXPIRE:
        if (now >= this.pauseUntil[index]!) this.unpause(index, now);
        break;
      case T_RTO:
        this.onRto(this.qps[index], now);
        break;
      case T_RP_INCREASE:
      case T_RP_CUT: {
        const qp = this.qps[index];
        if (qp === undefined || qp.rp === null) break;
        const which = kind === T_RP_CUT ? RpTimer.Cut : RpTimer.Increase;
        if (which === RpTimer.Cut) qp.armedCut = -1;
        else qp.armedIncrease = -1;
        const before = qp.rp.rate;
        qp.rp.onTimer(which, now);
        this.afterRateEvent(qp, before, now);
        break;
      }
      case T_CNP: {
        const qp = this.qps[index];
        if (qp === undefined) break;
        qp.armedCnp = -1;
        if (qp.np.onTimer(now)) this.sendCnp(qp, now);
        this.syncCnpTimer(qp);
        break;
      }
      case T_POST:
        this.runScheduled(now);
        break;
      case T_RX_DRAIN:
        this.drained(now);
        break;
      case T_XOFF_REFRESH:
        if (this.xoff) {
          // Still above XON: pause again before the previous pause runs out.
          this.sendPfc(this.cfg.rxBuffer.pauseQuanta, now);
          this.armXoffRefresh(now);
        }
        break;
    }
  }

  private onRto(qp: QueuePair | undefined, now: Nanoseconds): void {
    if (qp === undefined) return;
    qp.rtoArmed = false;
    const r = qp.requester;
    if (!r.outstanding) return;
    if (now >= r.lastProgressAt + this.cfg.rtoNs) {
      this.counters.localAckTimeoutErr++;
      r.onTimeout(now);
      this.kick(now);
    }
    this.ensureRto(qp, now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Link state

  setLinkState(port: number, up: boolean, now: Nanoseconds): void {
    if (port !== PORT || this.up === up) return;
    this.up = up;
    if (up) {
      this.env.emit({ kind: EventKind.LinkUp, port });
      this.tx.setUp(true, now);
      return;
    }
    this.env.emit({ kind: EventKind.LinkDown, port });
    // A frame on the wire is lost; the transport resends data, the rest is not worth keeping.
    this.tx.setUp(false, now);
    this.urgent.drain();
    this.cnps.drain();
    for (let p = 0; p < PRIORITIES; p++) this.unpause(p, now);
  }

  // ---------------------------------------------------------------------------------------------------
  // Control plane

  command(cmd: NicCommand, now: Nanoseconds): NicReply {
    switch (cmd.type) {
      case "create-qp":
        return this.createQp(cmd, now);
      case "post":
        return this.post(cmd, now);
      case "configure":
        return this.configure(cmd, now);
      case "stop": {
        this.scheduled = [];
        this.env.disarm(T_POST * TIMER_KIND);
        let dropped = 0;
        for (const qp of this.qps) dropped += qp.requester.stop();
        return { ok: true, dropped };
      }
      case "clear-counters":
        this.clearCounters();
        return { ok: true };
    }
  }

  private createQp(cmd: Extract<NicCommand, { type: "create-qp" }>, _now: Nanoseconds): NicReply {
    const isQpn = (n: number) => Number.isInteger(n) && n > 0 && n <= 0xff_ffff;
    const isPsn = (n: number) => Number.isInteger(n) && n >= 0 && n <= PSN_MASK;
    if (!isQpn(cmd.qpn) || !isQpn(cmd.remoteQpn)) return fail("QP numbers must be integers in 1..2^24-1");
    if (this.qpByNum.has(cmd.qpn)) return fail(`QP ${cmd.qpn} already exists`);
    if (this.qps.length >= TIMER_KIND) return fail("too many QPs");
    if (!Number.isInteger(cmd.remoteIp) || cmd.remoteIp < 0 || cmd.remoteIp > 0xffff_ffff) {
      return fail("remoteIp must be an IPv4 address as a number");
    }
    const udpSrcPort = cmd.udpSrcPort ?? roceUdpSourcePort(cmd.qpn, cmd.remoteQpn);
    if (!Number.isInteger(udpSrcPort) || udpSrcPort < 1 || udpSrcPort > 0xffff) {
      return fail(`UDP source port ${udpSrcPort} is not in 1..65535`);
    }
    const startPsn = cmd.startPsn ?? 0;
    const remoteStartPsn = cmd.remoteStartPsn ?? 0;
    if (!isPsn(startPsn) || !isPsn(remoteStartPsn)) return fail("PSNs are integers in 0..2^24-1");
    const qp = new QueuePair(
      {
        slot: this.qps.length,
        qpn: cmd.qpn,
        remoteQpn: cmd.remoteQpn,
        remoteIp: cmd.remoteIp >>> 0,
        udpSrcPort,
        startPsn,
        remoteStartPsn,
      },
      this.builder,
      this.counters,
      this.settings,
      this.cfg.dcqcn ?? this.cfg.npWhenRpOff,
      (m, now) => this.completed(qp, m, now),
    );
    qp.setDcqcn(this.cfg.dcqcn, this.lineRate);
    this.qps.push(qp);
    this.qpByNum.set(cmd.qpn, qp);
    return { ok: true, udpSrcPort };
  }

  private post(cmd: Extract<NicCommand, { type: "post" }>, now: Nanoseconds): NicReply {
    const qp = this.qpByNum.get(cmd.qpn);
    if (qp === undefined) return fail(`no QP ${cmd.qpn}`);
    const op = MSG_OP_NAMES.indexOf(cmd.op) as MsgOp | -1;
    if (op === -1) return fail(`op ${String(cmd.op)} is not one of ${MSG_OP_NAMES.join(", ")}`);
    if (!Number.isInteger(cmd.bytes) || cmd.bytes < 1 || cmd.bytes > MAX_MESSAGE_BYTES) {
      return fail(`bytes ${cmd.bytes} is not an integer in 1..${MAX_MESSAGE_BYTES}`);
    }
    if (typeof cmd.flowId !== "string") return fail("flowId must be a string");
    const at = cmd.at ?? now;
    if (!(at >= 0)) return fail(`at ${at} is not a time`);
    if (at > now) {
      this.schedule({ at, qpn: cmd.qpn, op, bytes: cmd.bytes, flowId: cmd.flowId });
      return { ok: true };
    }
    qp.requester.post(op, cmd.bytes, cmd.flowId, now);
    this.kick(now);
    return { ok: true };
  }

  private schedule(p: ScheduledPost): void {
    // Keep the list sorted by time (stable for equal times: posts run in the order they were given).
    let i = this.scheduled.length;
    while (i > 0 && this.scheduled[i - 1]!.at > p.at) i--;
    this.scheduled.splice(i, 0, p);
    if (i === 0) this.env.arm(T_POST * TIMER_KIND, Math.ceil(p.at));
  }

  private runScheduled(now: Nanoseconds): void {
    let n = 0;
    while (n < this.scheduled.length && this.scheduled[n]!.at <= now) {
      const p = this.scheduled[n++]!;
      // `postedAt` is when the request was due, so a late timer in the live runtime does not shorten FCT.
      this.qpByNum.get(p.qpn)?.requester.post(p.op, p.bytes, p.flowId, p.at);
    }
    this.scheduled.splice(0, n);
    const next = this.scheduled[0];
    if (next !== undefined) this.env.arm(T_POST * TIMER_KIND, Math.ceil(next.at));
    this.kick(now);
  }

  private configure(cmd: Extract<NicCommand, { type: "configure" }>, now: Nanoseconds): NicReply {
    const c = this.cfg;
    const next: NicConfig = {
      ...c,
      dcqcn: cmd.dcqcn === undefined ? c.dcqcn : cmd.dcqcn,
      ackReqEvery: cmd.ackReqEvery ?? c.ackReqEvery,
      rtoNs: cmd.rtoNs ?? c.rtoNs,
      maxInflightPackets: cmd.maxInflightPackets ?? c.maxInflightPackets,
      nakRetryGuard: cmd.nakRetryGuard ?? c.nakRetryGuard,
      verifyPayload: cmd.verifyPayload ?? c.verifyPayload,
      answerArp: cmd.answerArp ?? c.answerArp,
      ackDscp: cmd.ackDscp ?? c.ackDscp,
      rxBuffer: { ...c.rxBuffer, ...cmd.rxBuffer },
    };
    if (!Number.isInteger(next.ackReqEvery) || next.ackReqEvery < 1) return fail("ackReqEvery must be >= 1");
    if (!(next.rtoNs > 0)) return fail("rtoNs must be positive");
    if (!Number.isInteger(next.maxInflightPackets) || next.maxInflightPackets < 1) {
      return fail("maxInflightPackets must be >= 1");
    }
    if (!Number.isInteger(next.ackDscp) || next.ackDscp < 0 || next.ackDscp > 63)
      return fail("ackDscp not in 0..63");
    const rx = next.rxBuffer;
    if (rx.enabled && (!(rx.hostIngestRateBps > 0) || rx.xonBytes >= rx.xoffBytes || rx.xonBytes < 0)) {
      return fail("rxBuffer needs a positive ingest rate and 0 <= xonBytes < xoffBytes");
    }
    this.cfg = next;
    this.builder.configure(next);
    this.settings.ackReqEvery = next.ackReqEvery;
    this.settings.maxInflightPackets = next.maxInflightPackets;
    this.settings.nakRetryGuard = next.nakRetryGuard;
    this.ackPrio = next.dscpToPriority[next.ackDscp]!;
    if (cmd.dcqcn !== undefined) {
      const np = next.dcqcn ?? next.npWhenRpOff;
      for (const qp of this.qps) {
        qp.setDcqcn(next.dcqcn, this.lineRate);
        qp.np.configure(np.cnpIntervalNs, np.cnpMode);
        this.disarmRp(qp);
        this.afterRateEvent(qp, qp.rate(this.lineRate), now);
      }
    }
    if (!rx.enabled) {
      // Buffer switched off: hand what it holds to the host now, and release the peer.
      while (this.rxQueue.length > 0) {
        const frame = this.rxQueue.shift()!;
        this.rxQueueBytes -= frame.length;
        this.process(frame, now);
      }
      this.env.disarm(T_RX_DRAIN * TIMER_KIND);
      this.rxDraining = false;
      if (this.xoff) this.setXoff(false, now);
    }
    this.kick(now);
    return { ok: true };
  }

  private disarmRp(qp: QueuePair): void {
    qp.armedIncrease = -1;
    qp.armedCut = -1;
    this.env.disarm(T_RP_INCREASE * TIMER_KIND + qp.slot);
    this.env.disarm(T_RP_CUT * TIMER_KIND + qp.slot);
  }

  private completed(qp: QueuePair, m: Message, now: Nanoseconds): void {
    const record: CompletionRecord = {
      flowId: m.flowId,
      qpn: qp.qpn,
      op: MSG_OP_NAMES[m.op],
      bytes: m.bytes,
      postedAt: m.postedAt,
      firstSentAt: m.firstSentAt,
      completedAt: now,
      fctNs: now - m.postedAt,
      retransmits: m.retransmits,
    };
    this.flows.push(record);
    this.counters.flowsCompleted++;
    this.env.emit({ kind: EventKind.FlowDone, qp: qp.qpn, detail: m.flowId });
  }

  private drop(reason: DropReason, now: Nanoseconds): void {
    const i = DROP_REASONS.indexOf(reason);
    this.drops.set(i, (this.drops.get(i) ?? 0) + 1);
    if (reason === DropReason.Malformed) this.counters.rxMalformed++;
    const count = this.limiter.admit(KEY_DROP + i, now);
    if (count > 0) this.env.emit({ kind: EventKind.Drop, port: PORT, count, detail: reason });
  }

  private clearCounters(): void {
    this.counters.clear();
    this.drops.clear();
    this.latency.clear();
    this.rxPackets = 0;
    this.rxBytes = 0;
    this.tx.txFrames = 0;
    this.tx.txBytes = 0;
    this.tx.busyNs = 0;
    this.rxQueuePeak = this.rxQueueBytes;
    for (const a of [
      this.rxPause,
      this.rxResume,
      this.rxPauseNs,
      this.rxPauseTransitions,
      this.txPause,
      this.txResume,
    ]) {
      a.fill(0);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Observability

  /** Completed work requests so far (the same records as `stats().detail.flows`). */
  get completions(): readonly CompletionRecord[] {
    return this.flows;
  }

  /** The QP `qpn`, for tests and the lab (read-only use). */
  qp(qpn: number): QueuePair | undefined {
    return this.qpByNum.get(qpn);
  }

  stats(now: Nanoseconds): DeviceStats {
    const counters: Counters = this.counters.toCounters();
    counters.tx_packets = this.tx.txFrames;
    counters.tx_bytes = this.tx.txBytes;
    counters.rx_packets = this.rxPackets;
    counters.rx_bytes = this.rxBytes;
    for (let i = 0; i < DROP_REASONS.length; i++)
      counters[`drop_${DROP_REASONS[i]}`] = this.drops.get(i) ?? 0;
    const port: Counters = {
      rx_packets: this.rxPackets,
      rx_bytes: this.rxBytes,
      tx_packets: this.tx.txFrames,
      tx_bytes: this.tx.txBytes,
      tx_busy_ns: this.tx.busyNs,
      tx_stalled_ns: this.tx.stalledNs,
      rx_buffer_bytes: this.rxQueueBytes,
      rx_buffer_peak_bytes: this.rxQueuePeak,
      host_rx_frames: this.toHostFrames,
      host_tx_frames: this.fromHostFrames,
      host_tx_dropped: this.hostTxDropped,
    };
    for (let p = 0; p < PRIORITIES; p++) {
      const pausedNow = (this.paused >> p) & 1 ? now - this.pausedSince[p]! : 0;
      port[`rx_prio${p}_pause`] = this.rxPause[p]!;
      port[`rx_prio${p}_resume`] = this.rxResume[p]!;
      port[`rx_prio${p}_pause_duration`] = this.rxPauseNs[p]! + pausedNow;
      port[`rx_prio${p}_pause_transition`] = this.rxPauseTransitions[p]!;
      port[`tx_prio${p}_pause`] = this.txPause[p]!;
      port[`tx_prio${p}_resume`] = this.txResume[p]!;
    }
    // The port table also carries the device counters, as `ethtool -S` shows RDMA counters beside MAC ones.
    for (const [k, v] of Object.entries(counters)) if (!(k in port)) port[k] = v;
    const ports: PortStats[] = [{ port: PORT, name: "eth1", up: this.up, counters: port }];
    const detail: NicDetail = {
      qps: this.qps.map((qp) => this.qpStats(qp, now)),
      flows: [...this.flows],
      latency: this.latency.snapshot(),
      rxBuffer: { bytes: this.rxQueueBytes, peakBytes: this.rxQueuePeak, xoff: this.xoff },
    };
    return { kind: "nic", name: this.name, now, counters, ports, detail };
  }

  private qpStats(qp: QueuePair, now: Nanoseconds): QpStats {
    const rp = qp.rp;
    const r = qp.requester;
    return {
      qpn: qp.qpn,
      remoteQpn: qp.remoteQpn,
      remoteIp: qp.remoteIp,
      udpSrcPort: qp.udpSrcPort,
      rateBps: qp.rate(this.lineRate),
      targetRateBps: rp === null ? this.lineRate : rp.target,
      alpha: rp === null ? 0 : rp.alpha(now),
      bytesSent: r.bytesSent + qp.responder.bytesSent,
      bytesAcked: r.bytesAcked,
      bytesDelivered: qp.responder.bytesDelivered,
      readBytesReceived: r.readBytesReceived,
      retransmits: r.retransmits,
      cnpHandled: rp === null ? 0 : rp.cnpHandled,
      cnpIgnored: qp.cnpIgnored,
      cnpSent: qp.cnpSent,
      ecnMarked: qp.ecnMarked,
      inflightPackets: r.inflightPackets,
      pendingMessages: r.pendingMessages,
      paused: ((this.paused >> this.dataPrio) & 1) === 1,
    };
  }
}

function fail(error: string): NicReply {
  return { ok: false, error };
}
