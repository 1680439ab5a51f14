// Failure injection: the NIC turns into a broken one that keeps its link partner paused — a PFC storm. While
// on, it sends an XOFF with the longest pause time (0xffff quanta) for one priority, and again every
// `intervalNs` (by default half that pause time, so the partner never resumes), whatever its own buffers
// say. The frames are real PFC frames, counted as tx_prio<p>_pause. Used by `rocelab inject pfc-storm`
// and the `inject: { pfcStorm: HOST }` scenario step to exercise the switch's PFC watchdog.

import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import type { Counter } from "../../device/counters.js";
import { PfcCounter } from "../../device/l2/pfc-counters.js";
import type { TimerKind } from "../../device/timers.js";
import { buildPfcFrame, PRIORITIES, quantaToNs } from "../../wire/pfc.js";
import { PORT } from "../nic-ids.js";
import type { NicShared } from "../nic-shared.js";
import { PauseHolder, type PauseStall } from "./pause-stall.js";
import type { TxArbiter } from "./tx-arbiter.js";

const STORM_QUANTA = 0xffff;

export class PfcStorm {
  /** The stormed priority, or -1 when no storm runs. */
  priority = -1;
  private intervalNs = 0;
  private frame: Uint8Array | null = null;
  private readonly txPause: Counter;

  constructor(
    private readonly s: NicShared,
    private readonly tx: TxArbiter,
    private readonly stall: PauseStall,
    private readonly timer: TimerKind,
  ) {
    const c = s.counterSet.find(PfcCounter.txPause.name);
    if (c === undefined) throw new Error("the PFC storm needs the tx pause counter");
    this.txPause = c;
  }

  /** Starts (or retargets) a storm on `priority`, or stops it (`priority` null). */
  set(priority: number | null, intervalNs: number | undefined, now: Nanoseconds): string | null {
    if (priority === null) {
      if (this.priority >= 0) this.s.env.emit({ kind: EventKind.Info, detail: "PFC storm stopped" });
      this.priority = -1;
      this.s.env.disarm(this.timer.id(0));
      this.stall.release(PauseHolder.Storm);
      return null;
    }
    if (!Number.isInteger(priority) || priority < 0 || priority >= PRIORITIES)
      return `priority ${priority} is not 0..7`;
    const pauseNs = quantaToNs(STORM_QUANTA, this.s.lineRate);
    const every = intervalNs ?? Math.floor(pauseNs / 2);
    if (!(every > 0 && every < pauseNs)) return `interval must be in (0, ${Math.floor(pauseNs)}) ns`;
    const quanta: (number | null)[] = [null, null, null, null, null, null, null, null];
    quanta[priority] = STORM_QUANTA;
    this.frame = buildPfcFrame({ src: this.s.cfg.port.mac, quanta });
    this.priority = priority;
    this.intervalNs = every;
    this.s.env.emit({ kind: EventKind.Info, priority, detail: "PFC storm started" });
    this.stall.hold(PauseHolder.Storm, now);
    this.onTimer(now);
    return null;
  }

  /** PFC stall prevention stopped the NIC's pause frames: the storm stays on, its frames do not go out. */
  halt(): void {
    this.s.env.disarm(this.timer.id(0));
  }

  onTimer(now: Nanoseconds): void {
    if (this.priority < 0 || this.frame === null || this.stall.stopped) return;
    this.tx.pushUrgent(this.frame);
    this.tx.kick(now);
    this.txPause.values[PORT * PRIORITIES + this.priority]!++;
    this.s.env.arm(this.timer.id(0), now + this.intervalNs);
  }
}
