// DCQCN on the NIC (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015):
// the notification point turns CE-marked packets into CNPs, the reaction point cuts and recovers the
// QP's rate on CNPs and its timers; here the two meet the NIC's timers, pacing and telemetry.

import type { Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { RpTimer } from "./dcqcn-rp.js";
import { PORT } from "./nic-ids.js";
import type { NicShared } from "./nic-shared.js";
import type { QueuePair } from "./qp.js";
import type { TxArbiter } from "./tx-arbiter.js";

export class RateControl {
  constructor(
    private readonly s: NicShared,
    private readonly tx: TxArbiter,
  ) {}

  /** A CE-marked data packet for `qp` (we are its notification point). */
  marked(qp: QueuePair, now: Nanoseconds): void {
    this.s.counters.npEcnMarkedRocePackets++;
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
    s.counters.npCnpSent++;
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
    if (qp === undefined || qp.rp === null) {
      s.counters.rpCnpIgnored++;
      if (qp !== undefined) qp.cnpIgnored++;
      return;
    }
    s.counters.rpCnpHandled++;
    const before = qp.rp.rate;
    qp.rp.onCnp(now);
    this.afterRateEvent(qp, before, now);
  }

  /** One of the RP's timers of `qp` fired. */
  onRpTimer(qp: QueuePair, which: RpTimer, now: Nanoseconds): void {
    if (qp.rp === null) return;
    if (which === RpTimer.Cut) qp.armedCut = -1;
    else qp.armedIncrease = -1;
    const before = qp.rp.rate;
    qp.rp.onTimer(which, now);
    this.afterRateEvent(qp, before, now);
  }

  /** `qp` put `bytes` on the wire: the RP's byte counter may raise the rate. */
  onBytesSent(qp: QueuePair, bytes: number, now: Nanoseconds): void {
    const rp = qp.rp;
    if (rp === null) return;
    const before = rp.rate;
    if (rp.onBytesSent(bytes, now)) this.afterRateEvent(qp, before, now);
  }

  /** Re-arm the RP's timers if they moved, re-pace, report a cut. */
  afterRateEvent(qp: QueuePair, before: number, now: Nanoseconds): void {
    const rp = qp.rp;
    if (rp === null) return;
    const env = this.s.env;
    const inc = rp.timerAt(RpTimer.Increase);
    if (inc !== qp.armedIncrease) {
      qp.armedIncrease = inc;
      if (inc < 0) env.disarm(this.s.t.rpIncrease.id(qp.slot));
      else env.arm(this.s.t.rpIncrease.id(qp.slot), inc);
    }
    const cut = rp.timerAt(RpTimer.Cut);
    if (cut !== qp.armedCut) {
      qp.armedCut = cut;
      if (cut < 0) env.disarm(this.s.t.rpCut.id(qp.slot));
      else env.arm(this.s.t.rpCut.id(qp.slot), cut);
    }
    if (rp.rate === before) return;
    qp.repace(this.s.lineRate);
    if (rp.rate < before) {
      const count = this.s.limiter.admit(this.s.keyCut + qp.slot, now);
      if (count > 0) env.emit({ kind: EventKind.RateCut, qp: qp.qpn, count, value: rp.rate });
    } else if (qp.hasData()) {
      this.tx.kick(now);
    }
  }

  /** A new DCQCN configuration: restart `qp`'s RP (and its timers) and NP. */
  reconfigure(qp: QueuePair, now: Nanoseconds): void {
    const s = this.s;
    const np = s.cfg.dcqcn ?? s.cfg.npWhenRpOff;
    qp.setDcqcn(s.cfg.dcqcn, s.lineRate);
    qp.np.configure(np.cnpIntervalNs, np.cnpMode);
    qp.armedIncrease = -1;
    qp.armedCut = -1;
    s.env.disarm(this.s.t.rpIncrease.id(qp.slot));
    s.env.disarm(this.s.t.rpCut.id(qp.slot));
    this.afterRateEvent(qp, qp.rate(s.lineRate), now);
  }
}
