// The receive path: port → [receive buffer, PFC XOFF/XON] → parse (Ethernet, IPv4, UDP 4791, ICRC, BTH)
// → CNP: the QP's reaction point | ACK/NAK and READ responses: the QP's requester | WRITE/SEND/READ
// requests: the QP's responder; CE marks feed the QP's notification point. With a host port, what is not
// RoCE for us goes up to the host stack.

import type { Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { ipv4HeaderValid } from "../device/l2/ipv4-check.js";
import { ArpOp, buildArpFrame, parseArp } from "../wire/arp.js";
import { BROADCAST_MAC, readMac, readU16, readU24, readU32 } from "../wire/bytes.js";
import { GSI_QP, UD_SEND_ONLY } from "../wire/cm-mad.js";
import { EtherType, ethPayloadOffset, ethType } from "../wire/ethernet.js";
import { releaseFrame } from "../wire/frame-alloc.js";
import { ICRC_LENGTH, verifyIcrcV1, verifyIcrcV2 } from "../wire/icrc.js";
import {
  Ecn,
  IpProtocol,
  ipv4Dst,
  ipv4Ecn,
  ipv4HeaderLength,
  ipv4Protocol,
  ipv4TotalLength,
} from "../wire/ipv4.js";
import { AethSyndrome, aethKind, aethValue, Opcode } from "../wire/roce.js";
import { BTH_LENGTH } from "../wire/roce-opcodes.js";
import { decodeRoce, RoceDecodeError, RoceView } from "../wire/roce-view.js";
import { GRH_LENGTH, GRH_NEXT_HEADER_IBA } from "../wire/rocev1.js";
import { ROCEV2_UDP_PORT, udpDstPort, udpLength } from "../wire/udp.js";
import { AckSample, fillAckSample, keepEcho } from "./cc/ack-sample.js";
import type { CcDriver } from "./cc/cc-driver.js";
import type { CmAgent } from "./cm-agent.js";
import { rnrTimerNs } from "./features/transport.js";
import type { HostPort } from "./l2/host-port.js";
import type { PauseState } from "./l2/pause-state.js";
import type { RxBuffer } from "./l2/rx-buffer.js";
import type { TxArbiter } from "./l2/tx-arbiter.js";
import { DropReason } from "./nic-ids.js";
import type { NicShared } from "./nic-shared.js";
import { Access, checkAccess } from "./transport/memory-region.js";
import { ResponseResult } from "./transport/message.js";
import { payloadSentAt, TIMESTAMP_LENGTH } from "./transport/payload.js";
import type { QueuePair } from "./transport/qp.js";
import { RequestResult } from "./transport/responder.js";
import {
  KIND_ACK,
  KIND_READ_REQUEST,
  KIND_READ_RESPONSE,
  KIND_SEND,
  KIND_UNSUPPORTED,
  KIND_WRITE,
  opcodeKind,
} from "./transport/transport.js";
import { WcStatus } from "./transport/work-completion.js";

/** ACKs, NAKs or responses may have opened the window, completed work or asked for a resend. */
export type RequesterEvent = (qp: QueuePair, now: Nanoseconds) => void;

export class ReceivePath {
  rxPackets = 0;
  rxBytes = 0;
  /** The received packet's transport headers, decoded in place (no device call re-enters the receive path). */
  private readonly view = new RoceView();
  /** What the last ACK tells its QP's congestion control (reused). */
  private readonly ack = new AckSample(15);

  constructor(
    private readonly s: NicShared,
    private readonly tx: TxArbiter,
    private readonly rate: CcDriver,
    private readonly pause: PauseState,
    private readonly host: HostPort,
    private readonly rxBuffer: RxBuffer,
    private readonly requesterEvent: RequesterEvent,
  ) {}

  /** The RDMA CM agent on QP1 (set by the NIC). */
  cm: CmAgent | null = null;

  /** A frame from the wire (the port is up). `verified` (Device.receive): its ICRC is not computed again,
   * unless the frame waits in the receive buffer (which keeps bytes only: it is checked when it leaves). */
  fromWire(frame: Uint8Array, now: Nanoseconds, verified = false): void {
    this.rxPackets++;
    this.rxBytes += frame.length;
    if (frame.length < 14) {
      this.s.drop(DropReason.Malformed, now);
      return;
    }
    // The MAC consumes PFC before anything is buffered.
    if (ethType(frame) === EtherType.MacControl) {
      this.pause.receive(frame, now);
      return;
    }
    if (this.s.cfg.rxBuffer.enabled) {
      this.rxBuffer.push(frame, now);
      return;
    }
    this.process(frame, now, verified);
  }

  /** A frame past the receive buffer (`verified`: see `fromWire`). */
  process(frame: Uint8Array, now: Nanoseconds, verified = false): void {
    const type = ethType(frame);
    const l3 = ethPayloadOffset(frame);
    const cfg = this.s.cfg;
    if (cfg.hostPort && !this.host.isRoceForUs(frame, type, l3)) {
      this.host.toHost(frame);
      return;
    }
    if (type === EtherType.ARP) {
      this.receiveArp(frame, l3, now);
      return;
    }
    if (type === EtherType.RoCEv1 && cfg.roce === "v1" && readMac(frame, 0) === cfg.port.mac) {
      this.receiveV1(frame, l3, now, verified);
      return;
    }
    if (type !== EtherType.IPv4 || readMac(frame, 0) !== cfg.port.mac) {
      this.s.counters.rxIgnored[0]!++;
      return;
    }
    this.receiveIpv4(frame, l3, now, verified);
    releaseFrame(frame); // consumed: nothing here keeps a received frame (wire/frame-alloc.ts)
  }

  private receiveIpv4(frame: Uint8Array, ip: number, now: Nanoseconds, verified: boolean): void {
    const s = this.s;
    if (!ipv4HeaderValid(frame, ip)) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    if (ipv4Dst(frame, ip) !== s.cfg.port.ip || ipv4Protocol(frame, ip) !== IpProtocol.UDP) {
      s.counters.rxIgnored[0]!++;
      return;
    }
    const end = ip + ipv4TotalLength(frame, ip);
    const udp = ip + ipv4HeaderLength(frame, ip);
    if (udp + 8 > end) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    if (udpDstPort(frame, udp) !== ROCEV2_UDP_PORT) {
      s.counters.rxIgnored[0]!++;
      return;
    }
    if (udp + udpLength(frame, udp) !== end) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    // Too short for a BTH and an ICRC: malformed, whatever its last four bytes say.
    if (end - (udp + 8) < BTH_LENGTH + ICRC_LENGTH) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    if (!verified && !verifyIcrcV2(frame, ip, end)) {
      s.drop(DropReason.Icrc, now);
      return;
    }
    if (frame[udp + 8] === UD_SEND_ONLY && readU24(frame, udp + 13) === GSI_QP && this.cm !== null) {
      this.cm.receive(frame, ip, udp + 8, end, now);
      return;
    }
    const h = this.view;
    if (!decodeRoce(h, frame, udp + 8, end)) {
      this.malformed(h, now);
      return;
    }
    this.receiveRoce(h, frame, ipv4Ecn(frame, ip) === Ecn.Ce, now);
  }

  /** RoCEv1: GRH (next header IBA transport, our GID), ICRC, then the same transport as RoCEv2 (no ECN). */
  private receiveV1(frame: Uint8Array, grh: number, now: Nanoseconds, verified: boolean): void {
    const s = this.s;
    if (
      frame.length < grh + GRH_LENGTH ||
      frame[grh]! >>> 4 !== 6 ||
      frame[grh + 6] !== GRH_NEXT_HEADER_IBA
    ) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    const end = grh + GRH_LENGTH + readU16(frame, grh + 4);
    if (end > frame.length) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    if (readU32(frame, grh + 36) !== s.cfg.port.ip) {
      s.counters.rxIgnored[0]!++;
      return;
    }
    if (end - (grh + GRH_LENGTH) < BTH_LENGTH + ICRC_LENGTH) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    if (!verified && !verifyIcrcV1(frame, grh, end)) {
      s.drop(DropReason.Icrc, now);
      return;
    }
    const h = this.view;
    if (!decodeRoce(h, frame, grh + GRH_LENGTH, end)) {
      this.malformed(h, now);
      return;
    }
    this.receiveRoce(h, frame, false, now);
  }

  /**
   * A packet whose ICRC passed but whose headers do not add up (a missing extension header, a pad or
   * payload the opcode does not allow): counted as malformed, and a request of a known opcode for one of
   * our QPs at its expected PSN draws NAK Invalid Request (the responder's check, responder.ts). An RC
   * request opcode we have no layout for (atomics, reserved) is not malformed: its BTH is whole, and the
   * responder answers it as an unsupported opcode.
   */
  private malformed(h: RoceView, now: Nanoseconds): void {
    if (h.error === RoceDecodeError.UnknownOpcode && opcodeKind(h.opcode) === KIND_UNSUPPORTED) {
      const qp = this.s.qpByNum.get(h.destQp);
      if (qp === undefined) this.s.drop(DropReason.UnknownQp, now);
      else this.request(qp, KIND_UNSUPPORTED, h, null, false, now);
      return;
    }
    this.s.drop(DropReason.Malformed, now);
    // No opcode layout: the BTH itself was refused (truncated, TVer, an opcode we do not speak).
    if (h.layout === null) return;
    const kind = opcodeKind(h.opcode);
    if (kind !== KIND_WRITE && kind !== KIND_SEND && kind !== KIND_READ_REQUEST) return;
    const qp = this.s.qpByNum.get(h.destQp);
    if (qp === undefined) return;
    qp.responder.onMalformed(h.psn, now);
    if (qp.responder.nakPending) this.tx.queueAck(qp, now);
  }

  private receiveRoce(h: RoceView, frame: Uint8Array, ce: boolean, now: Nanoseconds): void {
    const s = this.s;
    if (h.opcode === Opcode.Cnp) {
      this.rate.receiveCnp(h.destQp, now);
      return;
    }
    const qp = s.qpByNum.get(h.destQp);
    if (qp === undefined) {
      s.drop(DropReason.UnknownQp, now);
      return;
    }
    // ACKs open the window, NAKs rewind, READ requests queue responses: any of them may give it data.
    s.mayHaveData(qp, now);
    const kind = opcodeKind(h.opcode);
    if (kind === KIND_ACK) {
      this.receiveAck(qp, h, frame, now);
      return;
    }
    if (kind === KIND_READ_RESPONSE) {
      if (ce) this.rate.marked(qp, now);
      this.inspect(qp, frame, h, now);
      const r = qp.requester.onReadResponse(h.psn, h.payloadLength, now);
      if (r === ResponseResult.Duplicate) s.counters.duplicateResponse[0]!++;
      else if (r === ResponseResult.Invalid) s.drop(DropReason.InvalidRequest, now);
      this.requesterEvent(qp, now);
      return;
    }
    if (
      kind === KIND_WRITE ||
      kind === KIND_SEND ||
      kind === KIND_READ_REQUEST ||
      kind === KIND_UNSUPPORTED
    ) {
      this.request(qp, kind, h, frame, ce, now);
      return;
    }
    // A response we never ask for (the atomic ACKNOWLEDGE): ignored, as a requester ignores a ghost response.
    s.counters.rxIgnored[0]!++;
  }

  /**
   * A request for `qp`'s responder. `frame` is null when the opcode has no layout here (an unsupported RC
   * opcode whose headers past the BTH were not decoded: no payload, no RETH).
   */
  private request(
    qp: QueuePair,
    kind: number,
    h: RoceView,
    frame: Uint8Array | null,
    ce: boolean,
    now: Nanoseconds,
  ): void {
    const s = this.s;
    if (ce) {
      this.rate.marked(qp, now);
      qp.echo.ce = true;
    }
    const decoded = frame !== null;
    // The next ACK echoes this packet's INT block, or none: a block kept from before the sender's
    // congestion control changed to one without INT must not be echoed for the rest of the QP's life.
    if (decoded) {
      if (h.intLength > 0) keepEcho(qp.echo, frame, h.intOffset, h.intLength);
      else qp.echo.length = 0;
    }
    if (decoded && (kind === KIND_WRITE || kind === KIND_SEND)) this.inspect(qp, frame, h, now);
    const reth = decoded && h.hasReth;
    const r = qp.responder.onRequest(
      kind,
      h.opcode,
      h.psn,
      h.ackReq,
      decoded ? h.payloadLength : 0,
      reth ? h.dmaLength : -1,
      reth ? checkAccess(qp.qpn, h.rkey, frame, h.rethOffset, h.dmaLength) : Access.Granted,
      now,
    );
    if (r === RequestResult.Invalid || r === RequestResult.AccessError)
      s.drop(DropReason.InvalidRequest, now);
    else if (r === RequestResult.QpError) s.drop(DropReason.QpError, now);
    if (qp.responder.ackPending || qp.responder.nakPending) this.tx.queueAck(qp, now);
    if (kind === KIND_READ_REQUEST && qp.responder.hasResponses) this.tx.kick(now);
  }

  private receiveAck(qp: QueuePair, h: RoceView, frame: Uint8Array, now: Nanoseconds): void {
    const c = this.s.counters;
    c.acksReceived[0]!++;
    const kind = aethKind(h.syndrome);
    if (kind === "ack") {
      qp.requester.onAck(h.psn, now);
      if (qp.cc?.onAck !== undefined) {
        fillAckSample(this.ack, qp.requester, h.becn, frame, h.intOffset, h.intLength);
        this.rate.onAck(qp, this.ack, now);
      }
    } else if (kind === "rnr-nak") {
      c.rnrNakRetryErr[0]!++;
      const until = qp.requester.onRnrNak(h.psn, rnrTimerNs(aethValue(h.syndrome)), now);
      if (until >= 0) qp.hold(until);
    } else if (kind === "nak") {
      switch (h.syndrome) {
        case AethSyndrome.NakPsnSequenceError:
          c.packetSeqErr[0]!++;
          qp.requester.onNak(h.psn, now);
          break;
        case AethSyndrome.NakInvalidRequest:
          c.reqRemoteInvalidRequest[0]!++;
          qp.requester.onErrorNak(h.psn, WcStatus.InvalidRequest, now);
          break;
        case AethSyndrome.NakRemoteAccessError:
          c.reqRemoteAccessErrors[0]!++;
          qp.requester.onErrorNak(h.psn, WcStatus.RemoteAccess, now);
          break;
        case AethSyndrome.NakRemoteOperationalError:
          c.reqRemoteOperationalErrors[0]!++;
          qp.requester.onErrorNak(h.psn, WcStatus.RemoteOperational, now);
          break;
      }
    }
    this.requesterEvent(qp, now);
  }

  /** Every received data packet (in order or not): one-way delay sample and payload pattern check. */
  private inspect(qp: QueuePair, frame: Uint8Array, h: RoceView, now: Nanoseconds): void {
    const s = this.s;
    const off = h.payloadOffset;
    const len = h.payloadLength;
    if (len >= TIMESTAMP_LENGTH) s.latency.record(now - payloadSentAt(frame, off));
    if (
      s.cfg.transport.verifyPayload &&
      len > 0 &&
      !s.builder.payloads.verify(frame, off, len, qp.qpn, h.psn)
    ) {
      // The ICRC passed, so these are the bytes the peer sent: a transport bug, not corruption on the wire.
      s.counters.payloadMismatch[0]!++;
      const count = s.limiter.admit(this.s.keyMismatch + qp.slot, now);
      if (count > 0) s.env.emit({ kind: EventKind.Info, qp: qp.qpn, count, detail: "payload-mismatch" });
    }
  }

  private receiveArp(frame: Uint8Array, l3: number, now: Nanoseconds): void {
    const s = this.s;
    const parsed = parseArp(frame, l3);
    if (!parsed.ok) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    const arp = parsed.value;
    const dst = readMac(frame, 0);
    const port = s.cfg.port;
    if (
      !s.cfg.answerArp ||
      arp.op !== ArpOp.Request ||
      arp.targetIp !== port.ip ||
      (dst !== BROADCAST_MAC && dst !== port.mac)
    ) {
      s.counters.rxIgnored[0]!++;
      return;
    }
    this.tx.pushUrgent(
      buildArpFrame({
        op: ArpOp.Reply,
        senderMac: port.mac,
        senderIp: port.ip,
        targetMac: arp.senderMac,
        targetIp: arp.senderIp,
      }),
    );
    s.counters.arpRepliesSent[0]!++;
    this.tx.kick(now);
  }
}
