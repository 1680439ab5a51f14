// The DCQCN notification point (NP): one pacer per local QP, on the receiving side. It decides when a
// CE-marked data packet is answered with a CNP to the QP's peer (the reaction point). Pure: the NIC builds
// and queues the CNP, and arms the deferred-CNP timer at `deferredAt`.
//
// Two readings of "at most one CNP per interval" (DCQCN, SIGCOMM 2015 §3.1; NVIDIA's DCQCN parameters,
// min_time_between_cnps):
//   immediate-then-periodic (paper): a mark with no CNP in the last interval is answered at once; a mark
//     inside the interval is remembered and answered by one CNP when the interval ends.
//   rate-limited (ConnectX min_time_between_cnps): a mark inside the interval is not answered at all.
// With interval 0 both answer every marked packet.

import type { Nanoseconds } from "../../device/contract.js";
import { CnpMode } from "./dcqcn-params.js";

/** Decides, per local QP, which CE-marked packets are answered with a CNP (times in emulated ns). */
export class CnpPacer {
  /** When the last CNP was sent, or -Infinity before the first. */
  private lastCnpAt = Number.NEGATIVE_INFINITY;
  /** A mark arrived inside the interval (immediate-then-periodic): a CNP is owed at `deferredAt`. */
  private owed = false;
  /** Marks that got no CNP of their own (answered by a deferred CNP, or suppressed). */
  suppressed = 0;

  constructor(
    private intervalNs: Nanoseconds,
    private mode: CnpMode,
  ) {}

  /** Change the interval or mode; a CNP already owed is kept. */
  configure(intervalNs: Nanoseconds, mode: CnpMode): void {
    this.intervalNs = intervalNs;
    this.mode = mode;
  }

  /** A CE-marked packet arrived at `now`: true when a CNP must be sent now. */
  onMarked(now: Nanoseconds): boolean {
    if (now - this.lastCnpAt >= this.intervalNs) {
      this.lastCnpAt = now;
      this.owed = false;
      return true;
    }
    this.suppressed++;
    if (this.mode === CnpMode.ImmediateThenPeriodic) this.owed = true;
    return false;
  }

  /** When the deferred CNP is due, or -1 when none is owed. */
  get deferredAt(): Nanoseconds {
    return this.owed ? this.lastCnpAt + this.intervalNs : -1;
  }

  /** The deferred-CNP timer fired: true when the owed CNP must be sent now. */
  onTimer(now: Nanoseconds): boolean {
    if (!this.owed || now < this.lastCnpAt + this.intervalNs) return false;
    this.owed = false;
    this.lastCnpAt = now;
    return true;
  }

  /** Forget everything owed (the QP stopped). */
  reset(): void {
    this.owed = false;
  }
}
