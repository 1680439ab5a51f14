// Being paused: PFC frames from the link partner (IEEE 802.1Qbb) stop our transmission per priority
// until they resume us or their pause time runs out.

import type { Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { readMac } from "../wire/bytes.js";
import { PFC_DST_MAC, parseMacControl, quantaToNs } from "../wire/pfc.js";
import { PRIORITIES } from "./config.js";
import { DropReason, PORT, T_PAUSE_EXPIRE, TIMER_KIND } from "./nic-ids.js";
import type { Kick, NicShared } from "./nic-shared.js";

export class PauseState {
  /** Bit p set: priority p is paused. */
  paused = 0;
  private readonly pauseUntil = new Float64Array(PRIORITIES);
  readonly pausedSince = new Float64Array(PRIORITIES);
  readonly rxPause = new Float64Array(PRIORITIES);
  readonly rxResume = new Float64Array(PRIORITIES);
  readonly rxPauseNs = new Float64Array(PRIORITIES);
  readonly rxPauseTransitions = new Float64Array(PRIORITIES);

  constructor(
    private readonly s: NicShared,
    private readonly kick: Kick,
  ) {}

  isPaused(p: number): boolean {
    return ((this.paused >> p) & 1) === 1;
  }

  /** A MAC control frame (EtherType 0x8808) arrived. */
  receive(frame: Uint8Array, now: Nanoseconds): void {
    const s = this.s;
    if (readMac(frame, 0) !== PFC_DST_MAC) {
      s.counters.rxIgnored++;
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
      s.counters.rxIgnored++;
      return;
    }
    for (let p = 0; p < PRIORITIES; p++) {
      if (!((control.enableVector >> p) & 1)) continue;
      const quanta = control.quanta[p]!;
      if (quanta === 0) {
        this.rxResume[p]!++;
        this.unpause(p, now);
        continue;
      }
      this.rxPause[p]!++;
      const until = now + quantaToNs(quanta, s.lineRate);
      this.pauseUntil[p] = until;
      s.env.arm(T_PAUSE_EXPIRE * TIMER_KIND + p, Math.ceil(until));
      if (!((this.paused >> p) & 1)) {
        this.paused |= 1 << p;
        this.pausedSince[p] = now;
        s.env.emit({ kind: EventKind.PausedOn, port: PORT, priority: p });
      }
    }
  }

  /** The pause timer of priority `p` fired. */
  onExpire(p: number, now: Nanoseconds): void {
    if (now >= this.pauseUntil[p]!) this.unpause(p, now);
  }

  unpause(p: number, now: Nanoseconds): void {
    if (!((this.paused >> p) & 1)) return;
    this.paused &= ~(1 << p);
    this.rxPauseNs[p]! += now - this.pausedSince[p]!;
    this.rxPauseTransitions[p]!++;
    this.s.env.disarm(T_PAUSE_EXPIRE * TIMER_KIND + p);
    this.s.env.emit({ kind: EventKind.PausedOff, port: PORT, priority: p });
    this.kick(now);
  }

  /** Time priority `p` has been paused, the current pause included. */
  pausedNs(p: number, now: Nanoseconds): number {
    return this.rxPauseNs[p]! + ((this.paused >> p) & 1 ? now - this.pausedSince[p]! : 0);
  }

  clearCounters(): void {
    for (const a of [this.rxPause, this.rxResume, this.rxPauseNs, this.rxPauseTransitions]) a.fill(0);
  }
}
