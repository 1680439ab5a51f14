// RDMA connection management on the wire (a workload's `connect: on-demand`): the NIC's Communication
// Manager agent on QP1 (IBTA Vol. 1 ch. 12; the exchange Linux's drivers/infiniband/core/cm.c and
// librdmacm's rdma_connect / rdma_accept / rdma_disconnect drive). A QP created with a CM role starts
// unconnected and sends nothing:
//   * active side: the first work request posted on it sends a REQ (its QPN and first PSN) to the peer's
//     QP1; the REP (the peer's QPN and PSN) makes it ready to send (RTS) and is answered with an RTU;
//   * passive side (listening, as after rdma_listen): a REQ for one of its QPs (the peer's IP and QPN)
//     makes that QP ready (RTR) and is answered with a REP; the RTU completes the exchange.
// Teardown: when the active QP has no work left it sends a DREQ; the passive side answers with a DREP, and
// both go back to unconnected, so the next work request connects again (a connection per burst of work,
// as an application that connects, transfers and disconnects). The set-up time is part of the flow's life:
// its messages are posted when the workload says, and wait for the connection.
// Lost MADs are not retransmitted here (IBTA's CM response timeout, 4.096 µs × 2^20 in librdmacm, is far
// beyond a run): the CM frames travel on the data class, which the fabric keeps lossless by default.

import type { Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import {
  buildCmFrame,
  CM_ATTR_NAMES,
  CmAttr,
  type CmMessage,
  cmMessage,
  GSI_QP,
  ibMtuEnum,
  parseCmDatagram,
  RDMA_PS_TCP,
} from "../wire/cm-mad.js";
import { Ecn, ipv4Src } from "../wire/ipv4.js";
import { type CmCounters, cmKind, declareCmCounters } from "./cm-counters.js";
import type { NicShared } from "./nic-shared.js";
import type { QueuePair } from "./transport/qp.js";

export const CmRole = { Active: "active", Passive: "passive" } as const;
export type CmRole = (typeof CmRole)[keyof typeof CmRole];

const State = { Idle: 0, ReqSent: 1, RepSent: 2, Connected: 3, DreqSent: 4 } as const;
type State = (typeof State)[keyof typeof State];

interface Conn {
  readonly qp: QueuePair;
  readonly role: CmRole;
  state: State;
  localCommId: number;
  remoteCommId: number;
  tid: bigint;
  /** When the active side sent its REQ (set-up time = REP received − this). */
  reqAt: Nanoseconds;
}

/** The well-known port of the RDMA CM service the lab's connections use (RoCEv2's, as a listener port). */
const SERVICE_PORT = 4791;

export class CmAgent {
  private readonly conns = new Map<number, Conn>();
  private nextCommId = 1;
  /** MADs sent and received by kind, connections and their set-up time (cm-counters.ts). */
  readonly counters: CmCounters;

  constructor(
    private readonly s: NicShared,
    private readonly send: (frame: Uint8Array, now: Nanoseconds) => void,
  ) {
    this.counters = declareCmCounters(s.counterSet);
  }

  /** A QP created with a CM role: unconnected until the exchange is done. */
  register(qp: QueuePair, role: CmRole): void {
    qp.cmReady = false;
    this.conns.set(qp.qpn, {
      qp,
      role,
      state: State.Idle,
      localCommId: 0,
      remoteCommId: 0,
      tid: 0n,
      reqAt: 0,
    });
  }

  forget(qpn: number): void {
    this.conns.delete(qpn);
  }

  /** Work was posted on `qp`: an unconnected active QP connects. */
  posted(qp: QueuePair, now: Nanoseconds): void {
    const c = this.conns.get(qp.qpn);
    if (c === undefined || c.role !== CmRole.Active || c.state !== State.Idle) return;
    c.localCommId = this.nextCommId++;
    c.tid = (BigInt(this.s.cfg.port.ip) << 32n) | BigInt(c.localCommId);
    c.state = State.ReqSent;
    c.reqAt = now;
    this.emit(qp, "REQ", now);
    this.mad(
      qp,
      cmMessage({
        attr: CmAttr.Req,
        tid: c.tid,
        localCommId: c.localCommId,
        qpn: qp.qpn,
        startingPsn: qp.requester.wire(qp.requester.ackedV),
        serviceId: (BigInt(RDMA_PS_TCP) << 16n) | BigInt(SERVICE_PORT),
        caGuid: guid(this.s.cfg.port.mac),
        srcIp: this.s.cfg.port.ip,
        dstIp: qp.remoteIp,
        trafficClass: this.s.cfg.qos.dataDscp << 2,
        pathMtu: ibMtuEnum(this.s.cfg.mtu),
        srcPort: qp.udpSrcPort,
      }),
      now,
    );
  }

  /** The active QP's work is all done: disconnect (DREQ). */
  idle(qp: QueuePair, now: Nanoseconds): void {
    const c = this.conns.get(qp.qpn);
    if (c === undefined || c.role !== CmRole.Active || c.state !== State.Connected) return;
    c.state = State.DreqSent;
    qp.cmReady = false;
    this.mad(
      qp,
      cmMessage({
        attr: CmAttr.Dreq,
        tid: c.tid + 1n,
        localCommId: c.localCommId,
        remoteCommId: c.remoteCommId,
        qpn: qp.remoteQpn,
      }),
      now,
    );
  }

  /** A UD datagram for QP1 (BTH at `bth`, ICRC already checked). */
  receive(frame: Uint8Array, ip: number, bth: number, end: number, now: Nanoseconds): void {
    const parsed = parseCmDatagram(frame, bth, end);
    if (!parsed.ok) return;
    const m = parsed.value.message;
    const kind = cmKind(CM_ATTR_NAMES[m.attr]!);
    if (kind !== undefined) this.counters.rx[kind][0]!++;
    const from = ipv4Src(frame, ip);
    if (m.attr === CmAttr.Req) this.onReq(m, from, now);
    else this.onReply(m, now);
  }

  private onReq(m: CmMessage, from: number, now: Nanoseconds): void {
    let c: Conn | undefined;
    for (const x of this.conns.values()) {
      if (x.role === CmRole.Passive && x.qp.remoteIp === from && x.qp.remoteQpn === m.qpn) c = x;
    }
    if (c === undefined) return;
    c.remoteCommId = m.localCommId;
    if (c.localCommId === 0 || c.state === State.Idle) c.localCommId = this.nextCommId++;
    c.tid = m.tid;
    c.state = State.RepSent;
    // Ready to receive (RTR) from the REQ's starting PSN on; it may answer READs at once.
    c.qp.responder.ePsn = m.startingPsn;
    c.qp.cmReady = true;
    this.s.mayHaveData(c.qp, now);
    this.mad(
      c.qp,
      cmMessage({
        attr: CmAttr.Rep,
        tid: m.tid,
        localCommId: c.localCommId,
        remoteCommId: m.localCommId,
        qpn: c.qp.qpn,
        startingPsn: c.qp.requester.wire(c.qp.requester.ackedV),
        caGuid: guid(this.s.cfg.port.mac),
      }),
      now,
    );
  }

  private onReply(m: CmMessage, now: Nanoseconds): void {
    let c: Conn | undefined;
    for (const x of this.conns.values()) if (x.localCommId === m.remoteCommId) c = x;
    if (c === undefined) return;
    const qp = c.qp;
    if (m.attr === CmAttr.Rep && c.state === State.ReqSent) {
      c.remoteCommId = m.localCommId;
      qp.responder.ePsn = m.startingPsn;
      c.state = State.Connected;
      qp.cmReady = true;
      const k = this.counters;
      k.connects[0]!++;
      k.connectTimeTotal[0]! += now - c.reqAt;
      k.connectTimeMax[0] = Math.max(k.connectTimeMax[0]!, now - c.reqAt);
      this.emit(qp, "connected", now);
      this.mad(
        qp,
        cmMessage({ attr: CmAttr.Rtu, tid: c.tid, localCommId: c.localCommId, remoteCommId: c.remoteCommId }),
        now,
      );
      this.s.mayHaveData(qp, now);
    } else if (m.attr === CmAttr.Rtu && c.state === State.RepSent) {
      c.state = State.Connected;
    } else if (m.attr === CmAttr.Dreq) {
      c.state = State.Idle;
      qp.cmReady = false;
      this.mad(
        qp,
        cmMessage({
          attr: CmAttr.Drep,
          tid: m.tid,
          localCommId: c.localCommId,
          remoteCommId: c.remoteCommId,
        }),
        now,
      );
    } else if (m.attr === CmAttr.Drep && c.state === State.DreqSent) {
      c.state = State.Idle;
      this.emit(qp, "disconnected", now);
      // Work posted while the DREQ was out connects again.
      if (qp.requester.pendingMessages > 0) this.posted(qp, now);
    }
  }

  private mad(qp: QueuePair, message: CmMessage, now: Nanoseconds): void {
    const kind = cmKind(CM_ATTR_NAMES[message.attr]!);
    if (kind !== undefined) this.counters.tx[kind][0]!++;
    const cfg = this.s.cfg;
    this.send(
      buildCmFrame({
        srcMac: cfg.port.mac,
        dstMac: cfg.gatewayMac,
        srcIp: cfg.port.ip,
        dstIp: qp.remoteIp,
        dscp: cfg.qos.dataDscp,
        ecn: Ecn.Ect0,
        udpSrcPort: qp.udpSrcPort,
        message,
      }),
      now,
    );
  }

  private emit(qp: QueuePair, what: string, now: Nanoseconds): void {
    void now;
    this.s.env.emit({ kind: EventKind.Info, qp: qp.qpn, detail: `cm ${what} (QP1 ${GSI_QP})` });
  }
}

/** An EUI-64 from a MAC (ff:fe in the middle, the universal/local bit flipped): a CA GUID. */
function guid(mac: number): bigint {
  const m = BigInt(mac);
  const hi = (m >> 24n) ^ 0x02_0000n;
  return (hi << 40n) | (0xfffen << 24n) | (m & 0xff_ffffn);
}
