// `--dilation auto`: the supervisor raises the lab's dilation when the machine cannot hold it and lowers it
// back (never below the floor the lab started with) when it can again.
//
// What "cannot hold" means depends on the clocks:
//   synced  the devices wait for each other, so a busy machine shows as pace: emulated time advanced per
//           (real time / dilation). Pace below LOW_PACE over a window means the lab ran slower than its
//           dilation promises; the new dilation is the old one divided by the pace (with a margin), so
//           the lab runs at the speed the machine gives it and the dilation says so.
//   free    the clocks never wait, so lateness is what matters: the latest timer of any device in the
//           window (emulated ns). Above the budget (the PFC headroom's live slack) the reaction of some
//           device came later than the headroom covers; the dilation is raised so that the same real
//           lateness is fewer emulated ns.
// It lowers the dilation (× LOWER_STEP) only after QUIET_WINDOWS windows in a row with pace ≥ HIGH_PACE and
// lateness under a quarter of the budget, so it does not oscillate around the machine's limit.
//
// Every change is an event (kind "dilation") with its reason; the supervisor applies it through the lab
// clock (lab-clock.ts), which every device follows at the same real instant.

import { MAX_DILATION } from "../../runtime/realtime/dilation.js";
import { ClockMode } from "./clock-plan.js";

export const AUTO_WINDOW_MS = 1000;
export const LOW_PACE = 0.8;
export const HIGH_PACE = 0.97;
export const QUIET_WINDOWS = 5;
export const LOWER_STEP = 0.7;
/** The most a single step raises the dilation by. */
export const MAX_RAISE = 8;

export interface AutoDilationInput {
  readonly mode: ClockMode;
  /** The dilation in force over the window. */
  readonly dilation: number;
  /** Emulated ns the lab advanced over the window (the slowest device's clock). */
  readonly emulatedNs: number;
  /** Real ns the window lasted. */
  readonly realNs: number;
  /** Latest any device timer fired in the window, emulated ns. */
  readonly worstLateNs: number;
}

export interface AutoDilationDecision {
  readonly dilation: number;
  readonly reason: string;
}

export class AutoDilation {
  private quiet = 0;

  constructor(
    /** The lowest dilation it goes back to (the one the lab started with). */
    readonly floor: number,
    /** Free clocks: emulated lateness a device's reaction may have (the headroom's live slack). */
    readonly lateBudgetNs: number,
    readonly ceiling = MAX_DILATION,
  ) {}

  /** Looks at one window; returns a change, or null to keep the dilation. */
  decide(w: AutoDilationInput): AutoDilationDecision | null {
    if (w.realNs <= 0) return null;
    const pace = w.emulatedNs / (w.realNs / w.dilation);
    const late = w.mode === ClockMode.Free ? w.worstLateNs : 0;
    if (w.mode === ClockMode.Synced && pace < LOW_PACE) {
      this.quiet = 0;
      const next = this.clamp((w.dilation / Math.max(pace, 1 / MAX_RAISE)) * 1.1);
      if (next <= w.dilation) return null;
      return { dilation: next, reason: `pace ${pace.toFixed(2)} of real time / ${w.dilation}` };
    }
    if (late > this.lateBudgetNs) {
      this.quiet = 0;
      const next = this.clamp(w.dilation * Math.min(MAX_RAISE, (late / this.lateBudgetNs) * 1.25));
      if (next <= w.dilation) return null;
      return {
        dilation: next,
        reason: `a device timer fired ${Math.round(late)} ns late (budget ${Math.round(this.lateBudgetNs)} ns)`,
      };
    }
    if (pace >= HIGH_PACE && late < this.lateBudgetNs / 4) this.quiet++;
    else this.quiet = 0;
    if (this.quiet >= QUIET_WINDOWS && w.dilation > this.floor) {
      this.quiet = 0;
      const next = this.clamp(Math.max(this.floor, w.dilation * LOWER_STEP));
      return { dilation: next, reason: `${QUIET_WINDOWS} s keeping pace: back towards ${this.floor}` };
    }
    return null;
  }

  private clamp(d: number): number {
    return Math.round(Math.min(this.ceiling, Math.max(this.floor, d)));
  }
}

/** `--dilation` as users write it: a number >= 1, or `auto` / `auto:FLOOR`. */
export function parseDilationOption(
  text: string,
  fallbackFloor: number,
): { dilation: number; auto: boolean } {
  const m = /^auto(?::(\d+(?:\.\d+)?))?$/.exec(text.trim());
  if (m) {
    const floor = m[1] !== undefined ? Number(m[1]) : fallbackFloor;
    if (!(floor >= 1 && floor <= MAX_DILATION))
      throw new Error(`--dilation auto:N takes a floor between 1 and ${MAX_DILATION}, not "${text}"`);
    return { dilation: floor, auto: true };
  }
  const d = Number(text);
  if (!(d >= 1 && d <= MAX_DILATION))
    throw new Error(
      `--dilation takes a number between 1 and ${MAX_DILATION}, or auto / auto:FLOOR (raised when the machine cannot hold it), not "${text}"`,
    );
  return { dilation: d, auto: false };
}
