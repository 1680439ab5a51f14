// Being paused: PFC frames from the link partner (IEEE 802.1Qbb) stop our transmission per priority
// until they resume us or their pause time runs out. The pause state itself is the shared L2 piece both
// devices use (device/l2/pfc-receiver.ts); this part filters the MAC Control frames a NIC port takes.

import type { Nanoseconds } from "../../device/contract.js";
import { PfcCounter } from "../../device/l2/pfc-counters.js";
import { type PauseListener, PfcReceiver } from "../../device/l2/pfc-receiver.js";
import { readMac } from "../../wire/bytes.js";
import { PFC_DST_MAC, PRIORITIES, parseMacControl } from "../../wire/pfc.js";
import { DropReason, PORT } from "../nic-ids.js";
import type { Kick, NicShared } from "../nic-shared.js";

export class PauseState implements PauseListener {
  private readonly receiver: PfcReceiver;

  constructor(
    private readonly s: NicShared,
    private readonly kick: Kick,
  ) {
    const c = s.counterSet;
    const pausedNs = new Float64Array((PORT + 1) * PRIORITIES);
    const counters = {
      rxPause: c.add(PfcCounter.rxPause),
      rxResume: c.add(PfcCounter.rxResume),
      pausedNs,
      transitions: c.add(PfcCounter.rxPauseTransition),
      base: PORT * PRIORITIES,
    };
    c.computed(
      PfcCounter.rxPauseDuration,
      (i, now) =>
        i >= counters.base && i < counters.base + PRIORITIES ? this.pausedNs(i - counters.base, now) : 0,
      () => pausedNs.fill(0),
    );
    this.receiver = new PfcReceiver(PORT, s.lineRate, s.env, s.t.pauseExpiry, 0, counters, this);
  }

  /** Bit p set: priority p is paused. */
  get paused(): number {
    return this.receiver.paused;
  }

  isPaused(p: number): boolean {
    return ((this.receiver.paused >> p) & 1) === 1;
  }

  /** A MAC control frame (EtherType 0x8808) arrived. */
  receive(frame: Uint8Array, now: Nanoseconds): void {
    const s = this.s;
    if (readMac(frame, 0) !== PFC_DST_MAC) {
      s.counters.rxIgnored[0]!++;
      return;
    }
    const parsed = parseMacControl(frame, 14);
    if (!parsed.ok) {
      s.drop(DropReason.Malformed, now);
      return;
    }
    const control = parsed.value;
    if (control.kind !== "pfc") {
      // 802.3x link pause is not configured on RoCE ports.
      s.counters.rxIgnored[0]!++;
      return;
    }
    this.receiver.receive(control, now);
  }

  /** The pause timer of priority `p` fired. */
  onExpire(p: number, now: Nanoseconds): void {
    this.receiver.unpause(p, now);
  }

  unpause(p: number, now: Nanoseconds): void {
    this.receiver.unpause(p, now);
  }

  pauseChanged(_port: number, _priority: number, paused: boolean, now: Nanoseconds): void {
    if (!paused) this.kick(now);
  }

  /** Time priority `p` has been paused, the current pause included. */
  pausedNs(p: number, now: Nanoseconds): number {
    return this.receiver.pausedNsAt(p, now);
  }
}
