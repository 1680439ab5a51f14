// Pausing the peer: XOFF (a PFC frame with a pause time for one priority) when a receive buffer fills,
// re-sent before the pause runs out while it stays full, and XON (zero quanta) when it drains. The
// frames bypass the data queues (the owner sends them at the next frame boundary). Both devices use this.

import type { MacAddress } from "../../wire/bytes.js";
import { buildPfcFrame, PRIORITIES, quantaToNs } from "../../wire/pfc.js";
import type { DeviceEnv, Nanoseconds } from "../contract.js";
import { EventKind } from "../contract.js";
import type { TimerKind } from "../timers.js";

/** Puts a MAC Control frame on the port ahead of the data; false when the link is down (nothing sent). */
export interface ControlFrameSink {
  sendControlFrame(frame: Uint8Array, now: Nanoseconds): boolean;
}

/** Where the sender counts, per priority: arrays indexed `base + priority`. */
export interface PfcTxCounters {
  readonly txPause: Float64Array;
  readonly txResume: Float64Array;
  readonly xoffNs: Float64Array;
  readonly base: number;
}

export class PfcSender {
  /** Priorities we hold paused (XOFF asserted), bit p. */
  xoff = 0;
  private readonly xoffSince = new Float64Array(PRIORITIES);
  /** When the last XOFF (assert or refresh) left, per priority. */
  private readonly lastPauseAt = new Float64Array(PRIORITIES);
  private pauseQuanta = 0xffff;
  private refreshFraction = 0.5;

  /** `refreshTimer.id(timerBase + p)` re-sends XOFF; its handler calls `refresh`. */
  constructor(
    private readonly port: number,
    private readonly mac: MacAddress,
    private readonly rateBps: number,
    private readonly env: DeviceEnv,
    private readonly refreshTimer: TimerKind,
    private readonly timerBase: number,
    private readonly counters: PfcTxCounters,
    private readonly sink: ControlFrameSink,
  ) {}

  /** Pause time carried by XOFF (quanta) and when XOFF is re-sent (fraction of that time). */
  configure(pauseQuanta: number, refreshFraction: number): void {
    this.pauseQuanta = pauseQuanta;
    this.refreshFraction = refreshFraction;
  }

  isXoff(p: number): boolean {
    return ((this.xoff >> p) & 1) === 1;
  }

  assert(p: number, now: Nanoseconds): void {
    this.xoff |= 1 << p;
    this.xoffSince[p] = now;
    this.send(p, this.pauseQuanta, now);
    this.armRefresh(p, now);
    this.env.emit({ kind: EventKind.PfcXoff, port: this.port, priority: p });
  }

  /** The refresh timer fired: still congested, pause again before the previous pause runs out. */
  refresh(p: number, now: Nanoseconds): void {
    if (!this.isXoff(p)) return;
    this.send(p, this.pauseQuanta, now);
    this.armRefresh(p, now);
  }

  /** Ends XOFF; `sendFrame` false when the link is gone and there is nobody to tell. */
  release(p: number, now: Nanoseconds, sendFrame: boolean): void {
    if (!this.isXoff(p)) return;
    this.xoff &= ~(1 << p);
    const c = this.counters;
    c.xoffNs[c.base + p]! += now - this.xoffSince[p]!;
    this.env.disarm(this.refreshTimer.id(this.timerBase + p));
    if (sendFrame) {
      this.send(p, 0, now);
      this.env.emit({ kind: EventKind.PfcXon, port: this.port, priority: p });
    }
  }

  /**
   * Whether a frame of priority `p` arriving now came later than a punctual peer could have sent it: XOFF
   * has been asserted for longer than `reactionNs` (what the peer needs to hear it and stop) and the last
   * pause we sent has not run out. Only a peer that is late — or that does not obey — sends such a frame.
   */
  pastReaction(p: number, now: Nanoseconds, reactionNs: number): boolean {
    if (!this.isXoff(p) || now - this.xoffSince[p]! <= reactionNs) return false;
    return now < this.lastPauseAt[p]! + quantaToNs(this.pauseQuanta, this.rateBps);
  }

  /** Time we have held priority `p` paused in total, the current XOFF included. */
  xoffNsAt(p: number, now: Nanoseconds): number {
    const c = this.counters;
    return c.xoffNs[c.base + p]! + (this.isXoff(p) ? now - this.xoffSince[p]! : 0);
  }

  private armRefresh(p: number, now: Nanoseconds): void {
    const pauseNs = quantaToNs(this.pauseQuanta, this.rateBps);
    const at = now + Math.max(1, Math.floor(pauseNs * this.refreshFraction));
    this.env.arm(this.refreshTimer.id(this.timerBase + p), at);
  }

  private send(p: number, quanta: number, now: Nanoseconds): void {
    const times: (number | null)[] = [null, null, null, null, null, null, null, null];
    times[p] = quanta;
    const frame = buildPfcFrame({ src: this.mac, quanta: times });
    if (!this.sink.sendControlFrame(frame, now)) return;
    const c = this.counters;
    if (quanta > 0) {
      c.txPause[c.base + p]!++;
      this.lastPauseAt[p] = now;
    } else c.txResume[c.base + p]!++;
  }
}
