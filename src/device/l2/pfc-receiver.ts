// Being paused: the state a received IEEE 802.1Qbb PFC frame sets on one port. A non-zero pause time
// stops the priority until it runs out (quanta × 512 bit times at the port's rate) or a zero-quanta frame
// resumes it. Both devices (switch ports and the NIC's port) obey PFC through this.

import { type PfcControl, PRIORITIES, quantaToNs } from "../../wire/pfc.js";
import type { DeviceEnv, Nanoseconds } from "../contract.js";
import { EventKind } from "../contract.js";
import type { TimerKind } from "../timers.js";

/** Told whenever a priority of the port starts or stops being paused (after the event is emitted). */
export interface PauseListener {
  pauseChanged(port: number, priority: number, paused: boolean, now: Nanoseconds): void;
}

/** Where the receiver counts, per priority: arrays indexed `base + priority`. */
export interface PfcRxCounters {
  readonly rxPause: Float64Array;
  readonly rxResume: Float64Array;
  readonly pausedNs: Float64Array;
  /** Pauses that ended. */
  readonly transitions: Float64Array;
  readonly base: number;
}

export class PfcReceiver {
  /** Paused priorities, bit p. */
  paused = 0;
  private readonly pausedSince = new Float64Array(PRIORITIES);

  /** `expiry.id(timerBase + p)` is armed while priority p is paused; its handler calls `expire`. */
  constructor(
    private readonly port: number,
    private readonly rateBps: number,
    private readonly env: DeviceEnv,
    private readonly expiry: TimerKind,
    private readonly timerBase: number,
    private readonly counters: PfcRxCounters,
    private readonly listener: PauseListener,
  ) {}

  /** `ignore` (bit p): priorities whose pauses are counted but not obeyed (PFC switched off on them). */
  receive(control: PfcControl, now: Nanoseconds, ignore = 0): void {
    const c = this.counters;
    for (let p = 0; p < PRIORITIES; p++) {
      if (!((control.enableVector >> p) & 1)) continue;
      const quanta = control.quanta[p]!;
      if (quanta === 0) {
        c.rxResume[c.base + p]!++;
        this.unpause(p, now);
        continue;
      }
      c.rxPause[c.base + p]!++;
      if ((ignore >> p) & 1) continue;
      const until = now + quantaToNs(quanta, this.rateBps);
      this.env.arm(this.expiry.id(this.timerBase + p), Math.ceil(until));
      if (!((this.paused >> p) & 1)) {
        this.paused |= 1 << p;
        this.pausedSince[p] = now;
        this.env.emit({ kind: EventKind.PausedOn, port: this.port, priority: p });
        this.listener.pauseChanged(this.port, p, true, now);
      }
    }
  }

  /** Ends the pause of priority `p` (pause time over, resume received, or link gone). */
  unpause(p: number, now: Nanoseconds): void {
    if (!((this.paused >> p) & 1)) return;
    this.paused &= ~(1 << p);
    const c = this.counters;
    c.pausedNs[c.base + p]! += now - this.pausedSince[p]!;
    c.transitions[c.base + p]!++;
    this.env.disarm(this.expiry.id(this.timerBase + p));
    this.env.emit({ kind: EventKind.PausedOff, port: this.port, priority: p });
    this.listener.pauseChanged(this.port, p, false, now);
  }

  /** Time priority `p` has been paused in total, the current pause included. */
  pausedNsAt(p: number, now: Nanoseconds): number {
    const c = this.counters;
    return c.pausedNs[c.base + p]! + ((this.paused >> p) & 1 ? now - this.pausedSince[p]! : 0);
  }
}
