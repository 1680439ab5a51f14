// H3C's PFC deadlock detection (Comware: H3C S6850/S9850 "Configuring PFC deadlock detection", and
// H3C's RoCE overview §1.4.2, docs/references.md), the `h3c` semantics of the PFC watchdog:
//
//   * detection, per interface and lossless priority p: p was in XOFF (a received PFC held it paused) for
//     the whole of every poll since it began, for `interval` → the interface is deadlocked. Nothing else is
//     asked: not that the queue holds packets, not that it sent nothing (SONiC asks both).
//   * recovery, per interface: PFC and deadlock detection are off on the whole interface (every lossless
//     priority: received pauses counted and ignored, the peer no longer paused) and the deadlocked
//     priority's packets are forwarded or dropped (`autoRecoverAction`); after `autoRecoverDelay` both come
//     back, whether or not pauses still arrive (SONiC waits for the pauses to stop).
//   * latching: with `recoverMode: manual`, or at the `triggerLimit`-th deadlock of the interface within
//     `triggerWindow` (0: since the last manual restore), PFC and detection stay off until an operator
//     restores them (`priority-flow-control deadlock recover`; here `pfc-enable` on any priority of the
//     interface).

import type { Nanoseconds } from "../../device/contract.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchContext } from "../context.js";
import type { PfcWatchdogConfig } from "./pfc-watchdog-config.js";

/** What the H3C state machine asks of the watchdog it runs in. */
export interface WatchdogCore {
  readonly ctx: SwitchContext;
  readonly cfg: PfcWatchdogConfig;
  readonly lossless: readonly number[];
  /** (port, priority) → time the priority has been continuously paused over whole polls, ns. */
  readonly held: Float64Array;
  /** Takes (port × 8 + p) out of service: the action on its queue, PFC off on it, counted and told. */
  hold(i: number, action: "drop" | "forward", latched: boolean, detail: string, now: Nanoseconds): void;
  /** Puts (port × 8 + p) back: PFC on, nothing dropped or forced (`counted`: a restoration). */
  release(i: number, now: Nanoseconds, counted: boolean): void;
}

const Port = { Monitoring: 0, Recovering: 1, Latched: 2 } as const;

export class H3cDeadlockDetection {
  /** Per port: Port.*. */
  private readonly portState: Uint8Array;
  /** Per port: the priority whose deadlock took the interface out (its counters tell the story). */
  private readonly deadlocked: Int8Array;
  /** Per port: time in recovery so far, ns. */
  private readonly recovering: Float64Array;
  /** Per port: deadlocks counted towards the trigger limit, and when the window began. */
  private readonly count: Float64Array;
  private readonly windowStart: Float64Array;

  constructor(
    private readonly w: WatchdogCore,
    numPorts: number,
  ) {
    this.portState = new Uint8Array(numPorts);
    this.deadlocked = new Int8Array(numPorts).fill(-1);
    this.recovering = new Float64Array(numPorts);
    this.count = new Float64Array(numPorts);
    this.windowStart = new Float64Array(numPorts);
  }

  /** One poll of `port`: `pausedThrough(p)` says p was paused for the whole last `elapsed` ns. */
  poll(port: number, elapsed: number, pausedThrough: (p: number) => boolean, now: Nanoseconds): void {
    const state = this.portState[port]!;
    if (state === Port.Latched) return;
    if (state === Port.Recovering) {
      this.recovering[port]! += elapsed;
      if (this.recovering[port]! >= this.w.cfg.autoRecoverDelay - 1) this.recover(port, now, true);
      return;
    }
    const interval = this.w.cfg.interval;
    for (const p of this.w.lossless) {
      const i = port * PRIORITIES + p;
      this.w.held[i] = pausedThrough(p) ? this.w.held[i]! + elapsed : 0;
      if (this.w.held[i]! >= interval - 1) {
        this.deadlock(port, p, now);
        return;
      }
    }
  }

  /** The operator's `pfc-enable` on any priority of the port: PFC and detection back on it. */
  restore(port: number, now: Nanoseconds): void {
    this.count[port] = 0;
    if (this.portState[port] !== Port.Monitoring) this.recover(port, now, true);
  }

  /** Everything back on, nothing counted (the watchdog switched off or changed semantics). */
  reset(now: Nanoseconds): void {
    for (let port = 0; port < this.portState.length; port++) {
      this.count[port] = 0;
      if (this.portState[port] !== Port.Monitoring) this.recover(port, now, false);
    }
  }

  private deadlock(port: number, p: number, now: Nanoseconds): void {
    const cfg = this.w.cfg;
    const windowOver = cfg.triggerWindow > 0 && now - this.windowStart[port]! > cfg.triggerWindow;
    if (this.count[port] === 0 || windowOver) {
      this.windowStart[port] = now;
      this.count[port] = 0;
    }
    this.count[port]!++;
    const limited = cfg.triggerLimit > 0 && this.count[port]! >= cfg.triggerLimit;
    const latched = limited || cfg.recoverMode === "manual";
    this.portState[port] = latched ? Port.Latched : Port.Recovering;
    this.deadlocked[port] = p;
    this.recovering[port] = 0;
    const why = limited ? ", latched" : latched ? ", manual" : "";
    this.w.hold(
      port * PRIORITIES + p,
      cfg.autoRecoverAction,
      latched,
      `deadlock, ${cfg.autoRecoverAction}${why}`,
      now,
    );
    // PFC off on the whole interface: every other lossless priority ignores pauses and stops pausing too.
    for (const q of this.w.lossless) if (q !== p) this.w.ctx.pfcOverride.set(port, q, true, now);
    for (let q = 0; q < PRIORITIES; q++) this.w.held[port * PRIORITIES + q] = 0;
    this.w.ctx.ports[port]!.tx.kick(now);
  }

  private recover(port: number, now: Nanoseconds, counted: boolean): void {
    const p = this.deadlocked[port]!;
    this.portState[port] = Port.Monitoring;
    this.deadlocked[port] = -1;
    this.recovering[port] = 0;
    for (let q = 0; q < PRIORITIES; q++) {
      this.w.held[port * PRIORITIES + q] = 0;
      if (q !== p) this.w.ctx.pfcOverride.set(port, q, false, now);
    }
    if (p >= 0) this.w.release(port * PRIORITIES + p, now, counted);
  }
}
