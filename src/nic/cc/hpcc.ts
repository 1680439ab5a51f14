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
// One U over the hops (the paper's Algorithm 1, and ns-3 with MultiRate 0 as run.py configures it, the
// default here): U is an EWMA over one base RTT of the largest u_j of each ACK,
//   U ← (U · (T − τ) + max_j u_j · τ) / T    with τ = min(Δts of that hop, T),
// and one reference rate Rc with its stage; the new rate is
//   Rc / (U / η) + R_AI   when U ≥ η or stage ≥ maxStage   (multiplicative, stage = 0)
//   Rc + R_AI             otherwise                         (additive, stage + 1)
// bounded to [minRate, R_max]. U starts at 1 (ns-3's RdmaQueuePair: hp.u = 1), so a new flow's first
// reactions find its path full until the EWMA has seen a base RTT of samples. `multiRate` (ns-3's
// MultiRate 1, its attribute's default) keeps one EWMA u_j (also from 1), reference Rc_j and stage per hop
// instead, each hop's rate from its own, and the QP's rate is the least over the hops. The reference is
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
  /** One U, reference and stage per hop (ns-3 MultiRate 1); false: one for the path (the paper, run.py). */
  readonly multiRate: boolean;
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
  /** The path's U, reference rate and stage (one-U mode). */
  private uPath = 1;
  private rcPath: number;
  private stagePath = 0;
  /** Per hop (multiRate): U_j, Rc_j, stage_j, and the candidates of this ACK. */
  private readonly u: Float64Array;
  private readonly rc: Float64Array;
  private readonly stage: Int32Array;
  private readonly newRc: Float64Array;
  private readonly newStage: Int32Array;
  /** This ACK's u_j and τ_j (hopU). */
  private uNow = 0;
  private tauNow = 0;

  constructor(
    readonly params: HpccParams,
    lineRate: BitsPerSecond,
  ) {
    super(lineRate);
    this.bdp = (lineRate * params.baseRtt) / 8e9;
    this.baseWindow = params.window > 0 ? params.window : this.bdp;
    const n = params.maxHops;
    for (let i = 0; i < n; i++) this.hop.push(emptyIntHop());
    this.rcPath = lineRate;
    this.u = new Float64Array(n).fill(1);
    this.rc = new Float64Array(n).fill(lineRate);
    this.stage = new Int32Array(n);
    this.newRc = new Float64Array(n);
    this.newStage = new Int32Array(n);
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
    const n = Math.min(a.hopCount, this.params.maxHops);
    if (!this.started) {
      // First RTT: remember the hops, commit the sequence.
      this.started = true;
      this.lastUpdateSeq = a.sent;
      for (let i = 0; i < n; i++) Object.assign(this.hop[i]!, a.hops[i]!);
      return false;
    }
    const before = this.rate;
    this.rate = this.params.multiRate ? this.perHop(a, n, fast) : this.path(a, n, fast);
    this.reactions++;
    if (!fast) {
      this.updates++;
      if (a.sent > this.lastUpdateSeq) this.lastUpdateSeq = a.sent;
    }
    return this.rate !== before;
  }

  /** Hop i's u and τ for this ACK (uNow, tauNow), and its record kept for the next. */
  private hopU(a: AckSample, i: number): void {
    const h = a.hops[i]!;
    const prev = this.hop[i]!;
    const tau = intTimeDelta(h, prev);
    // As ns-3 computes it (duration in seconds), so that equal u_j of two hops compare as there.
    const txRate = tau > 0 ? (intBytesDelta(h, prev) * 8) / (tau * 1e-9) : 0;
    this.uNow = txRate / h.rateBps + (Math.min(h.qLen, prev.qLen) * this.maxRate) / h.rateBps / this.bdp;
    this.tauNow = tau;
    Object.assign(prev, h);
  }

  /** rateFrom's second result, the stage after it: a field, so that the per-ACK path allocates nothing. */
  private nextStage = 0;
  /** The new rate from reference `rc` at stage `stage` under utilisation `u` (the next stage: nextStage). */
  private rateFrom(rc: number, stage: number, u: number): number {
    const p = this.params;
    const c = u / p.eta;
    let r: number;
    if (c >= 1 || stage >= p.maxStage) {
      r = rc / c + p.rai;
      this.nextStage = 0;
    } else {
      r = rc + p.rai;
      this.nextStage = stage + 1;
    }
    if (r < p.minRate) r = p.minRate;
    if (r > this.maxRate) r = this.maxRate;
    return r;
  }

  /** One U for the path (RdmaHw::UpdateRateHp, !m_multipleRate): the EWMA of the largest u_j. */
  private path(a: AckSample, n: number, fast: boolean): number {
    const T = this.params.baseRtt;
    let uMax = 0;
    let dt = 0;
    for (let i = 0; i < n; i++) {
      this.hopU(a, i);
      if (this.uNow > uMax) {
        uMax = this.uNow;
        dt = this.tauNow;
      }
    }
    if (dt > T) dt = T;
    this.uPath = (this.uPath * (T - dt) + uMax * dt) / T;
    this.util = this.uPath;
    const r = this.rateFrom(this.rcPath, this.stagePath, this.uPath);
    if (!fast) {
      this.rcPath = r;
      this.stagePath = this.nextStage;
    }
    return r;
  }

  /** One U, reference and stage per hop (m_multipleRate): the least of the hops' rates. */
  private perHop(a: AckSample, n: number, fast: boolean): number {
    const T = this.params.baseRtt;
    let rate = this.maxRate;
    let maxU = 0;
    for (let i = 0; i < n; i++) {
      this.hopU(a, i);
      const tau = Math.min(this.tauNow, T);
      this.u[i] = (this.u[i]! * (T - tau) + this.uNow * tau) / T;
      if (this.u[i]! > maxU) maxU = this.u[i]!;
      this.newRc[i] = this.rateFrom(this.rc[i]!, this.stage[i]!, this.u[i]!);
      this.newStage[i] = this.nextStage;
      if (this.newRc[i]! < rate) rate = this.newRc[i]!;
    }
    this.util = maxU;
    if (!fast) {
      for (let i = 0; i < n; i++) {
        this.rc[i] = this.newRc[i]!;
        this.stage[i] = this.newStage[i]!;
      }
    }
    return rate;
  }
}
