// Congestion control on the NIC: the notification point turns CE-marked packets into CNPs (dcqcn-np.ts),
// and each QP's congestion control (cc.ts: DCQCN's reaction point, or none) sets the QP's rate from CNPs,
// the bytes it sends and its timers. Here the two meet the NIC's timers, pacing and telemetry.

import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import type { TxArbiter } from "../l2/tx-arbiter.js";
import { PORT } from "../nic-ids.js";
import type { NicShared } from "../nic-shared.js";
import type { QueuePair } from "../transport/qp.js";
import type { AckSample } from "./ack-sample.js";
import { CC_TIMERS, createQpCc, npSettings } from "./cc.js";

export class CcDriver {
  constructor(
    private readonly s: NicShared,
    private readonly tx: TxArbiter,
  ) {}

  /** A CE-marked data packet for `qp` (we are its notification point). */
  marked(qp: QueuePair, now: Nanoseconds): void {
    this.s.counters.npEcnMarkedRocePackets[0]!++;
    qp.ecnMarked++;
    if (qp.np.onMarked(now)) this.sendCnp(qp, now);
    this.syncCnpTimer(qp);
  }

  /** The NP's deferred-CNP timer of `qp` fired. */
  onCnpTimer(qp: QueuePair, now: Nanoseconds): void {
    qp.armedCnp = -1;
    if (qp.np.onTimer(now)) this.sendCnp(qp, now);
    this.syncCnpTimer(qp);
  }

  private sendCnp(qp: QueuePair, now: Nanoseconds): void {
    const s = this.s;
    this.tx.pushCnp(s.builder.cnp(qp.remoteIp, qp.udpSrcPort, qp.remoteQpn));
    s.counters.npCnpSent[0]!++;
    qp.cnpSent++;
    const count = s.limiter.admit(this.s.keyCnp + qp.slot, now);
    if (count > 0) s.env.emit({ kind: EventKind.CnpSent, port: PORT, qp: qp.qpn, count });
    this.tx.kick(now);
  }

  private syncCnpTimer(qp: QueuePair): void {
    const at = qp.np.deferredAt;
    if (at === qp.armedCnp) return;
    qp.armedCnp = at;
    const id = this.s.t.cnp.id(qp.slot);
    if (at < 0) this.s.env.disarm(id);
    else this.s.env.arm(id, Math.ceil(at));
  }

  /** A CNP for our QP `qpn` (we are its reaction point). */
  receiveCnp(qpn: number, now: Nanoseconds): void {
    const s = this.s;
    const qp = s.qpByNum.get(qpn);
    if (qp === undefined || qp.cc === null) {
      s.counters.rpCnpIgnored[0]!++;
      if (qp !== undefined) qp.cnpIgnored++;
      return;
    }
    s.counters.rpCnpHandled[0]!++;
    const before = qp.cc.rate;
    qp.cc.onCnp(now);
    this.afterRateEvent(qp, before, now);
  }

  /** The congestion control's timer `index` of `qp` fired. */
  onTimer(qp: QueuePair, index: number, now: Nanoseconds): void {
    if (qp.cc === null) return;
    qp.armedCc[index] = -1;
    const before = qp.cc.rate;
    qp.cc.onTimer(index, now);
    this.afterRateEvent(qp, before, now);
  }

  /** An ACK for `qp` (algorithms driven by ACKs: HPCC, TIMELY, DCTCP). */
  onAck(qp: QueuePair, ack: AckSample, now: Nanoseconds): void {
    const cc = qp.cc;
    if (cc === null || cc.onAck === undefined) return;
    const before = cc.rate;
    if (cc.onAck(ack, now)) this.afterRateEvent(qp, before, now);
    qp.syncWindow();
  }

  /** `qp` put `bytes` on the wire: its congestion control may raise the rate (DCQCN's byte counter). */
  onBytesSent(qp: QueuePair, bytes: number, now: Nanoseconds): void {
    const cc = qp.cc;
    if (cc === null) return;
    const before = cc.rate;
    if (cc.onBytesSent(bytes, now)) this.afterRateEvent(qp, before, now);
  }

  /** Re-arm the timers that moved, re-pace, report a cut. */
  afterRateEvent(qp: QueuePair, before: number, now: Nanoseconds): void {
    const cc = qp.cc;
    if (cc === null) return;
    const env = this.s.env;
    for (let i = 0; i < CC_TIMERS; i++) {
      const at = cc.timerAt(i);
      if (at === qp.armedCc[i]) continue;
      qp.armedCc[i] = at;
      const id = this.s.t.cc[i]!.id(qp.slot);
      if (at < 0) env.disarm(id);
      else env.arm(id, at);
    }
    if (cc.rate === before) return;
    if (cc.repaceOnChange) qp.repace(this.s.lineRate);
    if (cc.rate < before) {
      const count = this.s.limiter.admit(this.s.keyCut + qp.slot, now);
      if (count > 0) env.emit({ kind: EventKind.RateCut, qp: qp.qpn, count, value: cc.rate });
    } else if (qp.hasData()) {
      this.tx.kick(now);
    }
  }

  /** A new congestion-control configuration: restart `qp`'s sender state (and its timers) and NP. */
  reconfigure(qp: QueuePair, now: Nanoseconds): void {
    const s = this.s;
    const np = npSettings(s.cfg);
    qp.setCc(createQpCc(s.cfg, s.lineRate), s.lineRate);
    qp.np.configure(np.cnpInterval, np.cnpMode);
    for (let i = 0; i < CC_TIMERS; i++) {
      qp.armedCc[i] = -1;
      s.env.disarm(this.s.t.cc[i]!.id(qp.slot));
    }
    this.afterRateEvent(qp, qp.rate(s.lineRate), now);
  }
}
