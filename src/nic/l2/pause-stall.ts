// The NIC's PFC stall prevention at work (features/pfc-stall-prevention.ts): it watches how long the NIC
// has held its link partner paused without a break — its receive buffer above XOFF, or a PFC storm — and
// at the warning mark (85 % of the timeout, at least 80 ms, as the mlx5 driver sets the device's minor
// watermark) counts tx_pause_storm_warning_events; at the timeout it counts tx_pause_storm_error_events and
// stops the NIC's pause frames. They may start again once nothing wants to pause any more (the buffer
// drained to XON, the storm stopped): the device is no longer stalled.

import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import type { TimerKind } from "../../device/timers.js";
import type { NicShared } from "../nic-shared.js";

/** Who holds the partner paused. */
export const PauseHolder = {
  RxBuffer: 1,
  Storm: 2,
} as const;
export type PauseHolder = (typeof PauseHolder)[keyof typeof PauseHolder];

const WARNING_FRACTION = 0.85;
const WARNING_MIN_NS = 80_000_000;

const Stage = { Watching: 0, Warned: 1, Stopped: 2 } as const;
type Stage = (typeof Stage)[keyof typeof Stage];

export class PauseStall {
  private holders = 0;
  /** When the current unbroken stretch of pausing began. */
  private since = 0;
  private stage: Stage = Stage.Watching;
  /** Called once when the NIC stops sending pause frames. */
  onStop: (now: Nanoseconds) => void = () => {};

  constructor(
    private readonly s: NicShared,
    private readonly timer: TimerKind,
  ) {}

  /** Pause frames are not to be sent (the timeout passed and something still wants to pause). */
  get stopped(): boolean {
    return this.stage === Stage.Stopped;
  }

  hold(who: PauseHolder, now: Nanoseconds): void {
    const was = this.holders;
    this.holders |= who;
    if (was !== 0) return;
    this.since = now;
    this.stage = Stage.Watching;
    this.arm();
  }

  release(who: PauseHolder): void {
    this.holders &= ~who;
    if (this.holders !== 0) return;
    if (this.stage === Stage.Stopped)
      this.s.env.emit({ kind: EventKind.Info, detail: "PFC stall over: pause frames allowed again" });
    this.stage = Stage.Watching;
    this.s.env.disarm(this.timer.id(0));
  }

  /** The timeout changed: the current stretch is judged by the new one. */
  configure(now: Nanoseconds): void {
    if (this.holders === 0 || this.stage === Stage.Stopped) return;
    // Timeout 0 turns the prevention off: disarm. Otherwise onTimer acts on a mark the stretch has already
    // passed under the new timeout and re-arms for the next one.
    if (this.timeout() === 0) this.arm();
    else this.onTimer(now);
  }

  onTimer(now: Nanoseconds): void {
    const timeout = this.timeout();
    if (this.holders === 0 || timeout === 0 || this.stage === Stage.Stopped) return;
    if (this.stage === Stage.Watching && now >= this.since + this.warningAt(timeout)) {
      this.stage = Stage.Warned;
      this.s.counters.txPauseStormWarningEvents[0]!++;
    }
    if (this.stage === Stage.Warned && now >= this.since + timeout) {
      this.stage = Stage.Stopped;
      this.s.counters.txPauseStormErrorEvents[0]!++;
      this.s.env.emit({ kind: EventKind.Info, detail: "PFC stall prevention: pause frames stopped" });
      this.onStop(now);
      return;
    }
    this.arm();
  }

  private timeout(): number {
    return this.s.cfg.pfcStallPrevention.timeout;
  }

  private warningAt(timeout: number): number {
    return Math.min(timeout, Math.max(WARNING_MIN_NS, Math.floor(timeout * WARNING_FRACTION)));
  }

  private arm(): void {
    const timeout = this.timeout();
    if (timeout === 0) {
      this.s.env.disarm(this.timer.id(0));
      return;
    }
    const next = this.stage === Stage.Watching ? this.warningAt(timeout) : timeout;
    this.s.env.arm(this.timer.id(0), this.since + next);
  }
}
