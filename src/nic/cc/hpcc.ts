// HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019), as HPCC's ns-3 implements it
// (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc,
// RdmaHw::UpdateRateHp and FastReactHp, with the defaults of scratch/third.cc and run.py): one sender's
// state machine driven by the in-band telemetry its ACKs echo (wire/int-md.ts).
//
// Per hop j of an ACK, against the record of the same hop kept from the previous ACK:
//   txRate_j = Δbytes_j · 8 / Δts_j
//   u_j      = txRate_j / B_j + min(qLen_j, qLen_j,prev) / (B_j · T)     (B_j · T in bytes)
// (the paper's Algorithm 1, MeasureInflight; ns-3 writes the queue term qLen · R_max / (B_j · W) with its
// window W = maxBdp = R_max · T, the same figure. A window set apart from R_max · T bounds the bytes in
// flight only: the queue is still measured against the hop's bytes in one base RTT.)
// Multi-rate (ns-3's MultiRate = true, the default): each hop keeps an EWMA of its utilisation over one base
// RTT, u_j ← (u_j · (T − τ) + u · τ) / T with τ = min(Δts_j, T), and its own reference rate Rc_j and
// stage; the new rate of hop j is
//   Rc_j / (u_j / η) + R_AI   when u_j ≥ η or stage_j ≥ maxStage   (multiplicative, stage_j = 0)
//   Rc_j + R_AI                otherwise                             (additive, stage_j + 1)
// bounded to [minRate, R_max]; the QP's rate is the least over the hops. The reference (Rc_j, stage_j) is
// committed only once per RTT: when the ACK acknowledges past the sequence that was next to send at the
// last commit (ns-3's m_lastUpdateSeq); ACKs in between react from the same reference without committing
// (fast react). The first ACK only records the hops. The window is W · R / R_max (ns-3's VarWin), W the
// base BDP (ns-3's maxBdp: the line rate × the base RTT).

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";
import { emptyIntHop, type IntHop, intBytesDelta, intTimeDelta } from "../../wire/int-md.js";
import { AckClockedCc } from "./ack-clocked.js";
import type { AckSample } from "./ack-sample.js";

export interface HpccParams {
  /** η, the target utilisation (ns-3 TargetUtil / run.py u_tgt). */
  readonly eta: number;
  /** Additive-increase stages before a multiplicative update (ns-3 MiThresh). */
  readonly maxStage: number;
  /** Additive increase W_AI, as a rate (ns-3 RateAI, bits/s). */
  readonly rai: BitsPerSecond;
  /** Base RTT T, ns. */
  readonly baseRtt: Nanoseconds;
  /** Window W at line rate, bytes (0: the line rate × T). */
  readonly window: number;
  /** Rate floor, bits/s (ns-3 MinRate). */
  readonly minRate: BitsPerSecond;
  /** React on every ACK between reference updates (ns-3 FastReact). */
  readonly fastReact: boolean;
  /** Hop slots the sender reserves in every data packet (ns-3 IntHeader::maxHop). */
  readonly maxHops: number;
}

export class Hpcc extends AckClockedCc {
  /** Latest utilisation estimate (the largest per-hop u), for telemetry. */
  util = 0;
  /** Reference updates (once per RTT) and ACK reactions. */
  updates = 0;
  reactions = 0;
  /**
   * HPCC's ns-3 applies a new rate through ChangeRate (rdma-hw.cc UpdateRateHp), which re-times the
   * pacer's gap in progress.
   */
  readonly repaceOnChange = true;
  readonly ackPerPacket = true;
  /** Window at line rate, bytes. */
  readonly baseWindow: number;
  /** R_max · T, bytes: what the queue term of u is measured against (R_max / B_j scales it to a hop). */
  private readonly bdp: number;

  private lastUpdateSeq = 0;
  private started = false;
  private readonly hop: IntHop[] = [];
  private readonly u: Float64Array;
  private readonly rc: Float64Array;
  private readonly stage: Int32Array;
  private readonly newRc: Float64Array;
  private readonly newStage: Int32Array;
  private readonly updated: Uint8Array;

  constructor(
    readonly params: HpccParams,
    lineRate: BitsPerSecond,
  ) {
    super(lineRate);
    this.bdp = (lineRate * params.baseRtt) / 8e9;
    this.baseWindow = params.window > 0 ? params.window : this.bdp;
    const n = params.maxHops;
    for (let i = 0; i < n; i++) this.hop.push(emptyIntHop());
    this.u = new Float64Array(n);
    this.rc = new Float64Array(n).fill(lineRate);
    this.stage = new Int32Array(n);
    this.newRc = new Float64Array(n);
    this.newStage = new Int32Array(n);
    this.updated = new Uint8Array(n);
  }

  /** Bytes in flight allowed (ns-3 GetWin with VarWin): W · R / R_max, at least 1. */
  get window(): number {
    return Math.max(1, Math.floor((this.baseWindow * this.rate) / this.maxRate));
  }

  /** An ACK (RdmaHw::HandleAckHp); true when the rate changed. */
  onAck(a: AckSample, _now: Nanoseconds): boolean {
    if (a.hopCount === 0) return false;
    if (a.acked > this.lastUpdateSeq) return this.update(a, false);
    return this.params.fastReact ? this.update(a, true) : false;
  }

  private update(a: AckSample, fast: boolean): boolean {
    const p = this.params;
    const n = Math.min(a.hopCount, p.maxHops);
    if (!this.started) {
      // First RTT: remember the hops, commit the sequence.
      this.started = true;
      this.lastUpdateSeq = a.sent;
      for (let i = 0; i < n; i++) Object.assign(this.hop[i]!, a.hops[i]!);
      return false;
    }
    const before = this.rate;
    const T = p.baseRtt;
    let rate = this.maxRate;
    let maxU = 0;
    for (let i = 0; i < n; i++) {
      const h = a.hops[i]!;
      const prev = this.hop[i]!;
      let tau = intTimeDelta(h, prev);
      const txRate = tau > 0 ? (intBytesDelta(h, prev) * 8e9) / tau : 0;
      const u =
        txRate / h.rateBps + (Math.min(h.qLen, prev.qLen) * this.maxRate) / h.rateBps / this.bdp;
      if (tau > T) tau = T;
      this.u[i] = (this.u[i]! * (T - tau) + u * tau) / T;
      if (this.u[i]! > maxU) maxU = this.u[i]!;
      Object.assign(prev, h);
      const c = this.u[i]! / p.eta;
      let r: number;
      if (c >= 1 || this.stage[i]! >= p.maxStage) {
        r = this.rc[i]! / c + p.rai;
        this.newStage[i] = 0;
      } else {
        r = this.rc[i]! + p.rai;
        this.newStage[i] = this.stage[i]! + 1;
      }
      if (r < p.minRate) r = p.minRate;
      if (r > this.maxRate) r = this.maxRate;
      this.newRc[i] = r;
      this.updated[i] = 1;
      if (r < rate) rate = r;
    }
    this.util = maxU;
    this.rate = rate;
    this.reactions++;
    if (!fast) {
      for (let i = 0; i < n; i++) {
        this.rc[i] = this.newRc[i]!;
        this.stage[i] = this.newStage[i]!;
      }
      this.updates++;
      if (a.sent > this.lastUpdateSeq) this.lastUpdateSeq = a.sent;
    }
    return this.rate !== before;
  }
}
