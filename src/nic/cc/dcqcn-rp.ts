// The DCQCN reaction point (RP): one per QP, on the sending side. A pure state machine with no
// environment: the NIC tells it about CNPs, expired timers and bytes sent, and reads back the rate to pace
// at and the absolute times its two timers should fire (`timerAt`). That keeps it testable against
// trajectories computed by hand.
//
// State: current rate RC, target rate RT, α, the timer stage and the byte-counter stage (increase events
// since the last cut, counted per source), the bytes left before the next byte-counter event.
//
// Decrease (DCQCN, SIGCOMM 2015 §3.1; the variants as docs/nic.md sources them):
//   clamp: RT = RC if clampTargetRate, or byteStage > 0, or (clampAfterTimeInc and timeStage > 0)
//   cut:   RC = max(minRate, RC − min(RC·α·cutFactor, RC·maxCutFraction)); stages = 0; byte counter = B;
//          the increase timer restarts (T from now).
//   "per-cnp": on every CNP. "periodic": a CNP sets a flag; a monitor looking every
//   rateReduceMonitorPeriodNs applies one cut per period if the flag is set. `cutMonitor` "woken": a CNP
//   wakes the monitor, which looks one period later and sleeps after a period without a CNP (ISEKAI);
//   "grid": the monitor looks on a fixed grid from 1 ns after the first CNP for the QP's life (HPCC's
//   RdmaHw::CheckRateDecreaseMlx), so a CNP after a quiet spell is acted on at the next grid point. Either
//   way the first cut comes one period after the first CNP. The idle grid costs no events: the next grid
//   point is computed when a CNP arrives.
//
// α:
//   "on-cnp" (paper): α = (1−g)α + g on each CNP, before or after the cut (`alphaBeforeCut`: CoNEXT'16's
//   equations cut first, the first author's ns-3 updates first); α = (1−g)α for every alphaPeriodNs (K)
//   without a CNP, counted from the last CNP.
//   "periodic" (ConnectX, HPCC): α = initialAlpha on the first CNP; then on a fixed grid of alphaPeriodNs
//   from that CNP, α = (1−g)α + g if a CNP arrived in the period just ended, else α = (1−g)α. The first CNP
//   itself does not count for the period it falls in (HPCC clears its flag). A period boundary at exactly
//   the time of a CNP or a cut is applied before it.
//   α is computed lazily from the elapsed periods (exactly what a 1 µs timer would have produced) instead
//   of by a timer: at 1 µs a timer per QP would cost more simulator events than the data packets.
//
// Increase events come from the timer (every T) and from the byte counter (every B bytes sent). The phase
// is chosen from the stage counts *before* the event, t (timer) and b (bytes):
//   max(t, b) < F          fast recovery    RC = (RC + RT)/2
//   else min(t, b) ≤ F     additive         RT += R_AI;  RC = (RC + RT)/2
//   else                   hyper            RT += R_HAI (× (min(t,b) − F) with "linear");  RC = (RC + RT)/2
// then the counter that fired is incremented. Without a byte counter t stands for both. This is HPCC's
// rule (stage < F, == F, > F) generalised to two counters as ISEKAI does (hyper when both are past F), and
// it gives the paper exactly F = 5 fast-recovery steps. The first author's ns-3 counts after incrementing
// (4 fast-recovery steps with F = 5) and multiplies R_HAI by the stage; we keep R_HAI constant for every
// profile (what HPCC, ISEKAI's ConnectX model and OSCAR do, and the only published reading of ConnectX),
// with "linear" available as a parameter. QCN's "RT > 10·RC ⇒ RT /= 8" quirk is not modelled.
// RT and RC are capped at the maximum rate; RC is floored at the minimum rate. Once RC and RT both sit at
// the cap, the increase machinery stops (nothing left to increase) until the next cut.

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";
import {
  AlphaUpdate,
  CutMode,
  CutMonitor,
  type DcqcnParams,
  HyperIncrease,
  RateChange,
} from "./dcqcn-params.js";

export const RpTimer = {
  /** The rate-increase timer T. */
  Increase: 0,
  /** The periodic-cut monitor. */
  Cut: 1,
} as const;
export type RpTimer = (typeof RpTimer)[keyof typeof RpTimer];

/** Where the last increase event came from. */
const SOURCE_TIMER = 0;
const SOURCE_BYTES = 1;

/** The DCQCN reaction point of one QP: rates in bits/s, times in emulated ns (see the file header). */
export class DcqcnRp {
  /** Current rate RC, bits/s. */
  rate: BitsPerSecond;
  /** Target rate RT, bits/s. */
  target: BitsPerSecond;
  /** Increase events from the timer since the last cut. */
  timeStage = 0;
  /** Increase events from the byte counter since the last cut. */
  byteStage = 0;
  /** CNPs handled (mlx5 rp_cnp_handled). */
  cnpHandled = 0;
  /** Cuts applied. */
  cuts = 0;
  /** Increase events applied. */
  increases = 0;
  readonly maxRate: BitsPerSecond;
  /** `rateChange` "repace": a new RC re-times the pacer's gap in progress (else from the next packet). */
  readonly repaceOnChange: boolean;

  private started = false;
  /** Whether increase events still have something to do (RC or RT below the cap). */
  private active = false;
  private alphaValue: number;
  /**
   * α after its last update other than decay, and the decay periods since: α = base × (1 − g)^decays,
   * computed whole, so that α does not depend on when it was read (a stats read folds periods in).
   */
  private alphaBase: number;
  private alphaDecays = 0;
  /** "periodic": the α grid's origin (first CNP); "on-cnp": time of the last CNP. */
  private alphaOrigin = 0;
  /** Grid periods already folded into `alphaValue`. */
  private alphaSteps = 0;
  private cnpInAlphaPeriod = false;
  private cutPending = false;
  private bytesLeft = 0;
  private incAt: Nanoseconds = -1;
  private cutAt: Nanoseconds = -1;
  /** "grid" monitor: the grid's origin, 1 ns after the first CNP. */
  private cutOrigin = 0;

  constructor(
    readonly params: DcqcnParams,
    lineRateBps: BitsPerSecond,
  ) {
    this.maxRate = params.maxRateBps > 0 ? Math.min(params.maxRateBps, lineRateBps) : lineRateBps;
    this.repaceOnChange = params.rateChange === RateChange.Repace;
    this.rate = this.maxRate;
    this.target = this.maxRate;
    this.alphaValue = params.initialAlpha;
    this.alphaBase = params.initialAlpha;
  }

  /** α at `now` (folds in the periods elapsed since it was last computed). */
  alpha(now: Nanoseconds): number {
    this.advanceAlpha(now);
    return this.alphaValue;
  }

  /** Absolute time `kind` should fire at, or -1 when it should not be armed. */
  timerAt(kind: RpTimer): Nanoseconds {
    return kind === RpTimer.Increase ? this.incAt : this.cutAt;
  }

  /** A CNP for this QP arrived. Returns true when RC changed. */
  onCnp(now: Nanoseconds): boolean {
    const p = this.params;
    this.cnpHandled++;
    const before = this.rate;
    if (!this.started) {
      this.started = true;
      this.setAlpha(p.initialAlpha);
      this.alphaOrigin = now;
      this.alphaSteps = 0;
      this.cnpInAlphaPeriod = false;
      this.cutOrigin = now + 1;
      if (p.rateOnFirstCnpBps !== null) {
        // ConnectX rate_to_set_on_first_cnp (as ISEKAI models it): the first CNP sets the rate, no cut.
        this.rate = Math.max(p.minRate, Math.min(this.maxRate, p.rateOnFirstCnpBps));
        this.target = this.rate;
        this.activate(now);
        return this.rate !== before;
      }
    } else {
      this.advanceAlpha(now);
      if (p.alphaUpdate === AlphaUpdate.Periodic) this.cnpInAlphaPeriod = true;
    }
    const onCnpAlpha = p.alphaUpdate === AlphaUpdate.OnCnp;
    if (p.cut === CutMode.PerCnp) {
      if (onCnpAlpha && p.alphaBeforeCut) this.bumpAlpha(now);
      this.applyCut(now);
      if (onCnpAlpha && !p.alphaBeforeCut) this.bumpAlpha(now);
    } else {
      if (onCnpAlpha) this.bumpAlpha(now);
      this.cutPending = true;
      if (this.cutAt < 0) this.cutAt = this.nextCheck(now);
    }
    return this.rate !== before;
  }

  /** `kind` fired at `now` (the NIC calls this only at `timerAt(kind)`). Returns true when RC changed. */
  onTimer(kind: RpTimer, now: Nanoseconds): boolean {
    const before = this.rate;
    if (kind === RpTimer.Cut) {
      this.cutAt = -1;
      if (!this.cutPending) return false; // no CNP in the period: the monitor goes idle
      this.cutPending = false;
      this.advanceAlpha(now);
      this.applyCut(now);
      this.cutAt = now + this.params.rateReduceMonitorPeriodNs;
    } else {
      this.incAt = -1;
      if (!this.active) return false;
      this.increase(SOURCE_TIMER);
      if (this.active) this.incAt = now + this.params.rpTimer;
    }
    return this.rate !== before;
  }

  /**
   * `bytes` (frame bytes) left on this QP. Returns true when the byte counter expired and caused an
   * increase event (RC and the timers may have changed).
   */
  onBytesSent(bytes: number, _now: Nanoseconds): boolean {
    const b = this.params.rpByteCounter;
    if (!this.active || b === null) return false;
    this.bytesLeft -= bytes;
    if (this.bytesLeft > 0) return false;
    this.bytesLeft = b;
    this.increase(SOURCE_BYTES);
    if (!this.active) this.incAt = -1;
    return true;
  }

  /** When a monitor woken at `now` looks first. */
  private nextCheck(now: Nanoseconds): Nanoseconds {
    const period = this.params.rateReduceMonitorPeriodNs;
    if (this.params.cutMonitor !== CutMonitor.Grid) return now + period;
    // The first grid point after now (the first one is a period after the origin).
    const k = Math.max(1, Math.floor((now - this.cutOrigin) / period) + 1);
    return this.cutOrigin + k * period;
  }

  private activate(now: Nanoseconds): void {
    this.active = this.rate < this.maxRate || this.target < this.maxRate;
    this.incAt = this.active ? now + this.params.rpTimer : -1;
    this.bytesLeft = this.params.rpByteCounter ?? 0;
  }

  private applyCut(now: Nanoseconds): void {
    const p = this.params;
    const clamp = p.clampTargetRate || this.byteStage > 0 || (p.clampAfterTimeInc && this.timeStage > 0);
    if (clamp) this.target = this.rate;
    const cut = Math.min(this.rate * this.alphaValue * p.cutFactor, this.rate * p.maxCutFraction);
    this.rate = Math.max(p.minRate, this.rate - cut);
    this.cuts++;
    this.timeStage = 0;
    this.byteStage = 0;
    this.activate(now);
  }

  private increase(source: number): void {
    const p = this.params;
    const t = this.timeStage;
    const b = this.byteStage;
    const counted = p.rpByteCounter !== null;
    const hi = counted ? Math.max(t, b) : t;
    const lo = counted ? Math.min(t, b) : t;
    const f = p.fastRecoverySteps;
    if (hi >= f) {
      if (lo <= f) this.target += p.rai;
      else this.target += p.rhai * (p.hyperIncrease === HyperIncrease.Linear ? lo - f : 1);
      if (this.target > this.maxRate) this.target = this.maxRate;
    }
    this.rate = (this.rate + this.target) / 2;
    // Halving the gap never reaches RT exactly in floating point; below 1 b/s it is the same rate.
    if (Math.abs(this.target - this.rate) < 1) this.rate = this.target;
    if (this.rate > this.maxRate) this.rate = this.maxRate;
    if (source === SOURCE_TIMER) this.timeStage++;
    else this.byteStage++;
    this.increases++;
    this.active = this.rate < this.maxRate || this.target < this.maxRate;
  }

  /** α = (1−g)α + g (the on-CNP update); restarts the decay count. */
  private bumpAlpha(now: Nanoseconds): void {
    const g = this.params.g;
    this.setAlpha(this.alphaValue * (1 - g) + g);
    this.alphaOrigin = now;
    this.alphaSteps = 0;
  }

  private advanceAlpha(now: Nanoseconds): void {
    if (!this.started) return;
    const p = this.params;
    const total = Math.floor((now - this.alphaOrigin) / p.alphaPeriodNs);
    let k = total - this.alphaSteps;
    if (k <= 0) return;
    this.alphaSteps = total;
    const keep = 1 - p.g;
    if (this.cnpInAlphaPeriod) {
      this.setAlpha(this.alphaValue * keep + p.g);
      this.cnpInAlphaPeriod = false;
      k--;
    }
    if (k > 0) {
      this.alphaDecays += k;
      this.alphaValue = this.alphaBase * keep ** this.alphaDecays;
    }
  }

  private setAlpha(alpha: number): void {
    this.alphaValue = alpha;
    this.alphaBase = alpha;
    this.alphaDecays = 0;
  }
}
