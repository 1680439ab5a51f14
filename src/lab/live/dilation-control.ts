// The dilation of a lab whose clock it owns (the supervisor's, lab-clock.ts): `rocelab dilation N|auto`
// and, with `--dilation auto`, the loop that asks auto-dilation.ts once a window whether to change it.
// Every change is an info event of the lab, at the emulated time it takes effect.

import { MAX_DILATION, MIN_DILATION } from "../../runtime/realtime/dilation.js";
import type { LabEvent } from "../lab.js";
import { AUTO_WINDOW_MS, AutoDilation } from "./auto-dilation.js";
import type { LabClock } from "./lab-clock.js";

export class DilationControl {
  private auto: AutoDilation | null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly clock: LabClock,
    private readonly lateBudgetNs: number,
    auto: boolean,
    /** The latest device timer lateness since the previous call, emulated ns. */
    private readonly takeWorstLate: () => number,
    private readonly record: (ev: LabEvent) => void,
  ) {
    this.auto = auto ? new AutoDilation(clock.initialDilation, lateBudgetNs) : null;
  }

  get isAuto(): boolean {
    return this.auto !== null;
  }

  /**
   * Once a window, compares how far the lab's clock got with what the dilation promises (and, free clocks,
   * how late device timers fired) and changes the dilation when auto-dilation.ts says (only while auto).
   */
  start(): void {
    let real0 = performance.now();
    let emu0 = this.clock.now();
    this.timer = setInterval(() => {
      const real1 = performance.now();
      const emu1 = this.clock.now();
      const worstLateNs = this.takeWorstLate();
      const decision = this.auto?.decide({
        mode: this.clock.mode,
        dilation: this.clock.dilation,
        emulatedNs: emu1 - emu0,
        realNs: (real1 - real0) * 1e6,
        worstLateNs,
      });
      real0 = real1;
      emu0 = emu1;
      if (decision) this.apply(decision.dilation, `auto: ${decision.reason}`);
    }, AUTO_WINDOW_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** `rocelab dilation N|auto`: a fixed dilation (auto off), or auto from the current one up. */
  set(d: number | "auto"): { dilation: number; auto: boolean; at: number } {
    if (d === "auto") {
      this.auto = new AutoDilation(this.clock.initialDilation, this.lateBudgetNs);
      return { dilation: this.clock.dilation, auto: true, at: this.clock.now() };
    }
    if (!(d >= MIN_DILATION && d <= MAX_DILATION))
      throw new Error(`dilation must be between ${MIN_DILATION} and ${MAX_DILATION}, not ${d}`);
    this.auto = null;
    const at = this.apply(d, "set by the operator");
    return { dilation: d, auto: false, at };
  }

  private apply(d: number, why: string): number {
    const before = this.clock.dilation;
    const at = this.clock.setDilation(d);
    this.record({
      t: at,
      device: "lab",
      kind: "info",
      value: d,
      detail: `dilation ${before} -> ${d} (${why})`,
    });
    return at;
  }
}
