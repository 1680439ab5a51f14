// PFC watchdog: detects an egress queue that a received PFC holds paused for good (a PFC storm from a
// broken NIC, or a deadlocked cycle of pauses), recovers it, and restores PFC — with one of two vendors'
// semantics (`semantics`, docs/pfc-watchdog.md): SONiC's pfcwd, below, or H3C's PFC deadlock detection
// (pfc-watchdog-h3c.ts). SONiC's: sonic-net/sonic-swss orchagent/pfcwdorch.cpp, pfc_detect_mellanox.lua,
// pfc_restore.lua.
//
// sonic, per port and lossless priority p (its queue q = priorityToQueue[p]), every `pollInterval`:
//   * monitoring: the storm condition holds over the last interval when the priority was paused for the
//     whole interval, queue q holds packets, and q sent nothing. Intervals in a row with the condition add
//     up; at `detectionTime` the queue is declared stormed (so detection takes between detectionTime and
//     detectionTime + pollInterval after the pause began). Any interval without it starts over.
//   * stormed: PFC is off on (port, p) — received pauses are counted but not obeyed, the port no longer
//     pauses its peer on p — and the action applies: `drop` discards what q holds and every packet meant
//     for q or received on (port, p); `forward` sends q's packets regardless of pauses. Intervals in a row
//     with no pause frame received on (port, p) add up; at `restorationTime` PFC and detection come back.
//   * latched: the `triggerLimit`-th storm within `triggerWindow` keeps the queue stormed (no restoration)
//     until an operator sends `pfc-enable` for the port and priority (`rocelab pfc enable NODE:PORT PRIO`).

import { EventKind, type Nanoseconds } from "../../device/contract.js";
import type { Counter } from "../../device/counters.js";
import { PfcCounter } from "../../device/l2/pfc-counters.js";
import { overlay } from "../../device/setting-units.js";
import type { TimerKind } from "../../device/timers.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { DropReason } from "../drops.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import {
  defineFeature,
  type FeatureCommand,
  type FeatureReply,
  Hook,
  type SwitchFeature,
} from "./feature.js";
import {
  type PfcEnableCommand,
  type PfcWatchdogConfig,
  PfcWatchdogCounter,
  pfcWatchdogDefaults,
  settings,
  WatchdogSemantics,
  WatchdogState,
} from "./pfc-watchdog-config.js";
import { H3cDeadlockDetection, type WatchdogCore } from "./pfc-watchdog-h3c.js";

export type { PfcEnableCommand, PfcWatchdogConfig } from "./pfc-watchdog-config.js";
export { PfcWatchdogCounter, WatchdogSemantics, WatchdogState } from "./pfc-watchdog-config.js";

const TOLERANCE_NS = 1;

class PfcWatchdog implements SwitchFeature, WatchdogCore {
  readonly name = "pfcWatchdog";
  cfg: PfcWatchdogConfig;
  lossless: readonly number[] = [];
  private priorityToQueue: readonly number[] = [];
  private readonly state: Float64Array;
  private readonly detected: Float64Array;
  private readonly restored: Float64Array;
  private readonly latchedCount: Float64Array;
  private readonly txDrop: Float64Array;
  private readonly rxDrop: Float64Array;
  private readonly txOk: Float64Array;
  /** Per (port, priority): time the condition held (monitoring) or pause-free time (stormed). */
  readonly held: Float64Array;
  private readonly lastTx: Float64Array;
  private readonly lastRxPause: Float64Array;
  private readonly lastPausedNs: Float64Array;
  private readonly windowStart: Float64Array;
  private readonly windowCount: Float64Array;
  /** Per port: queues whose packets are dropped (bit q), PGs whose arrivals are dropped (bit p), queues
   * forwarded regardless of pauses (bit q). */
  private readonly dropQueues: Uint8Array;
  private readonly dropPgs: Uint8Array;
  private readonly forwardQueues: Uint8Array;
  private readonly rxPause: Counter;
  private readonly pausedNs: Counter;
  private readonly queueTx: Counter;
  private readonly poll: TimerKind;
  private readonly h3c: H3cDeadlockDetection;
  private armed = false;
  private lastPollAt = 0;
  private semantics: WatchdogSemantics = WatchdogSemantics.Sonic;

  constructor(readonly ctx: SwitchContext) {
    const c = ctx.counters;
    this.detected = c.add(PfcWatchdogCounter.detected);
    this.restored = c.add(PfcWatchdogCounter.restored);
    this.latchedCount = c.add(PfcWatchdogCounter.latched);
    this.txDrop = c.add(PfcWatchdogCounter.txDrop);
    this.rxDrop = c.add(PfcWatchdogCounter.rxDrop);
    this.txOk = c.add(PfcWatchdogCounter.txOk);
    this.state = c.add(PfcWatchdogCounter.state);
    const n = ctx.numPorts * PRIORITIES;
    this.held = new Float64Array(n);
    this.lastTx = new Float64Array(n);
    this.lastRxPause = new Float64Array(n);
    this.lastPausedNs = new Float64Array(n);
    this.windowStart = new Float64Array(n);
    this.windowCount = new Float64Array(n);
    this.dropQueues = new Uint8Array(ctx.numPorts);
    this.dropPgs = new Uint8Array(ctx.numPorts);
    this.forwardQueues = new Uint8Array(ctx.numPorts);
    const need = (name: string): Counter => {
      const found = c.find(name);
      if (found === undefined) throw new Error(`the PFC watchdog needs the ${name} counter (pfc feature)`);
      return found;
    };
    this.rxPause = need(PfcCounter.rxPause.name);
    this.pausedNs = need(PfcCounter.rxPauseDuration.name);
    this.queueTx = need("queue_tx_packets");
    this.cfg = ctx.config.pfcWatchdog;
    this.poll = ctx.timers.register("pfcwd-poll", (_i, now) => this.onPoll(now));
    this.h3c = new H3cDeadlockDetection(this, ctx.numPorts);
  }

  /** The poll interval the armed timer runs at. */
  private armedInterval = 0;

  configure(cfg: SwitchConfig, now: Nanoseconds): void {
    this.cfg = cfg.pfcWatchdog;
    this.lossless = cfg.qos.lossless;
    this.priorityToQueue = cfg.qos.priorityToQueue;
    if (!this.cfg.enabled || this.cfg.semantics !== this.semantics) {
      // Off, or the other vendor's semantics: whatever the watchdog held is let go, uncounted.
      this.h3c.reset(now);
      for (const ps of this.ctx.portList)
        for (let p = 0; p < PRIORITIES; p++) this.release(ps.port * PRIORITIES + p, now, false);
      if (this.cfg.semantics !== this.semantics) {
        this.windowCount.fill(0);
        this.held.fill(0);
      }
      this.semantics = this.cfg.semantics;
    }
    if (!this.cfg.enabled) {
      if (this.armed) this.ctx.env.disarm(this.poll.id(0));
      this.armed = false;
      return;
    }
    // Already polling at this interval: keep the detection under way. A new interval (a scenario's
    // overrides reach a live switch as a `configure` after it started) starts polling afresh at it.
    if (this.armed && this.armedInterval === this.cfg.pollInterval) return;
    this.armed = true;
    this.armedInterval = this.cfg.pollInterval;
    this.snapshotAll(now);
    this.ctx.env.arm(this.poll.id(0), now + Math.max(1, this.cfg.pollInterval));
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.enabled ? [Hook.Admit, Hook.Dequeued] : [];
  }

  /** Drop action: nothing enters a stormed queue, nothing is taken in on a stormed priority. */
  admit(m: PacketMeta, now: Nanoseconds): boolean {
    const toStormed = ((this.dropQueues[m.outPort]! >> m.queue) & 1) === 1;
    const fromStormed = m.inPort >= 0 && ((this.dropPgs[m.inPort]! >> m.pg) & 1) === 1;
    if (!toStormed && !fromStormed) return true;
    if (toStormed) this.txDrop[m.outPort * PRIORITIES + m.pg]!++;
    else this.rxDrop[m.inPort * PRIORITIES + m.pg]!++;
    this.ctx.drops.drop(DropReason.PfcWatchdog, m.lossless, m.inPort, m.outPort, m.queue, now);
    return false;
  }

  /** Forward action: count what a stormed queue sends. */
  dequeued(m: PacketMeta): void {
    if (m.verdict === Verdict.Forward && ((this.forwardQueues[m.outPort]! >> m.queue) & 1) === 1)
      this.txOk[m.outPort * PRIORITIES + m.pg]!++;
  }

  command(cmd: FeatureCommand, now: Nanoseconds): FeatureReply | undefined {
    if (cmd.type !== "pfc-enable") return undefined;
    const { port, priority } = cmd as PfcEnableCommand;
    if (this.ctx.ports[port] === undefined) return { ok: false, error: `no port eth${port}` };
    if (!Number.isInteger(priority) || priority < 0 || priority >= PRIORITIES)
      return { ok: false, error: `priority ${priority} is not 0..7` };
    if (this.semantics === WatchdogSemantics.H3c) {
      this.h3c.restore(port, now);
      return { ok: true };
    }
    const i = port * PRIORITIES + priority;
    this.windowCount[i] = 0;
    this.release(i, now, true);
    return { ok: true };
  }

  private onPoll(now: Nanoseconds): void {
    const elapsed = now - this.lastPollAt;
    const h3c = this.semantics === WatchdogSemantics.H3c;
    for (const ps of this.ctx.portList) {
      if (h3c)
        this.h3c.poll(
          ps.port,
          elapsed,
          (p) => ps.up && this.pausedThrough(ps.port * PRIORITIES + p, elapsed, now),
          now,
        );
      else this.pollSonic(ps.port, ps.up, elapsed, now);
      for (const p of this.lossless) this.snapshot(ps.port * PRIORITIES + p, now);
    }
    this.lastPollAt = now;
    this.ctx.env.arm(this.poll.id(0), now + Math.max(1, this.cfg.pollInterval));
  }

  /** Priority i was paused for the whole of the last `elapsed` ns. */
  private pausedThrough(i: number, elapsed: number, now: Nanoseconds): boolean {
    return this.ctx.counters.read(this.pausedNs, i, now) - this.lastPausedNs[i]! >= elapsed - TOLERANCE_NS;
  }

  private snapshot(i: number, now: Nanoseconds): void {
    const q = this.priorityToQueue[i % PRIORITIES]!;
    this.lastTx[i] = this.queueTx.values[i - (i % PRIORITIES) + q]!;
    this.lastRxPause[i] = this.rxPause.values[i]!;
    this.lastPausedNs[i] = this.ctx.counters.read(this.pausedNs, i, now);
  }

  private pollSonic(port: number, up: boolean, elapsed: number, now: Nanoseconds): void {
    const ps = this.ctx.ports[port]!;
    for (const p of this.lossless) {
      const i = port * PRIORITIES + p;
      const q = this.priorityToQueue[p]!;
      const state = this.state[i]!;
      if (state === WatchdogState.Monitoring) {
        const storm =
          up &&
          this.pausedThrough(i, elapsed, now) &&
          ps.sched.queues[q]!.length > 0 &&
          this.queueTx.values[port * PRIORITIES + q]! === this.lastTx[i]!;
        this.held[i] = storm ? this.held[i]! + elapsed : 0;
        if (storm && this.held[i]! >= this.cfg.detectionTime - TOLERANCE_NS) this.storm(i, now);
      } else if (state === WatchdogState.Stormed) {
        this.held[i] = this.rxPause.values[i]! === this.lastRxPause[i]! ? this.held[i]! + elapsed : 0;
        if (this.held[i]! >= this.cfg.restorationTime - TOLERANCE_NS) this.release(i, now, true);
      }
    }
  }

  /** sonic: the storm of (port, p) — counted against the trigger limit, then held. */
  private storm(i: number, now: Nanoseconds): void {
    const cfg = this.cfg;
    const windowOver = cfg.triggerWindow > 0 && now - this.windowStart[i]! > cfg.triggerWindow;
    if (windowOver || this.windowCount[i] === 0) {
      this.windowStart[i] = now;
      this.windowCount[i] = 0;
    }
    this.windowCount[i]!++;
    const latched = cfg.triggerLimit > 0 && this.windowCount[i]! >= cfg.triggerLimit;
    this.hold(i, cfg.action, latched, latched ? `${cfg.action}, latched` : cfg.action, now);
    this.ctx.ports[Math.floor(i / PRIORITIES)]!.tx.kick(now);
  }

  /** Takes (port, p) out of service: the action on its queue first, then PFC off (which wakes the port):
   * nothing leaves the queue unaccounted. */
  hold(i: number, action: "drop" | "forward", latched: boolean, detail: string, now: Nanoseconds): void {
    const port = Math.floor(i / PRIORITIES);
    const p = i % PRIORITIES;
    const q = this.priorityToQueue[p]!;
    this.state[i] = latched ? WatchdogState.Latched : WatchdogState.Stormed;
    this.detected[i]!++;
    if (latched) this.latchedCount[i]!++;
    this.held[i] = 0;
    if (action === "drop") {
      this.dropQueues[port]! |= 1 << q;
      this.dropPgs[port]! |= 1 << p;
      this.txDrop[i]! += this.ctx.flushQueue(port, q, DropReason.PfcWatchdog, now);
    } else {
      this.forwardQueues[port]! |= 1 << q;
    }
    this.ctx.pfcOverride.set(port, p, true, now);
    this.ctx.env.emit({ kind: EventKind.PfcStorm, port, priority: p, detail });
  }

  /** Back to monitoring: PFC on again, nothing dropped or forced (`counted`: a restoration, not a reset). */
  release(i: number, now: Nanoseconds, counted: boolean): void {
    if (this.state[i] === WatchdogState.Monitoring) return;
    const port = Math.floor(i / PRIORITIES);
    const p = i % PRIORITIES;
    const q = this.priorityToQueue[p]!;
    this.state[i] = WatchdogState.Monitoring;
    this.held[i] = 0;
    this.dropQueues[port]! &= ~(1 << q);
    this.dropPgs[port]! &= ~(1 << p);
    this.forwardQueues[port]! &= ~(1 << q);
    this.ctx.pfcOverride.set(port, p, false, now);
    if (counted) this.restored[i]!++;
    this.ctx.env.emit({ kind: EventKind.PfcStormRestored, port, priority: p });
  }

  private snapshotAll(now: Nanoseconds): void {
    for (const ps of this.ctx.portList) {
      for (let p = 0; p < PRIORITIES; p++) {
        const i = ps.port * PRIORITIES + p;
        this.snapshot(i, now);
        this.held[i] = 0;
      }
    }
    this.lastPollAt = now;
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly pfcWatchdog: PfcWatchdogConfig;
  }
}

export const pfcWatchdogFeature = defineFeature({
  key: "pfcWatchdog",
  doc:
    "PFC watchdog, `semantics: sonic` (the default, after SONiC's pfcwd): every pollInterval, a lossless " +
    "queue paused for the whole interval that holds packets and sent none counts towards detectionTime; " +
    "then PFC is off on that port and priority and its traffic dropped or forwarded (action) until no pause " +
    "frame arrived for restorationTime. `semantics: h3c` (H3C's PFC deadlock detection): a priority in XOFF " +
    "for `interval` deadlocks the interface; its PFC and detection are off for autoRecoverDelay " +
    "(autoRecoverAction forward or drop), then back, pauses or not; recoverMode manual waits for the " +
    "operator. Both: the triggerLimit-th within triggerWindow latches until `pfc-enable`.",
  settings,
  defaults: pfcWatchdogDefaults,
  apply: (c: PfcWatchdogConfig, s) => overlay(c, s),
  create: (ctx) => new PfcWatchdog(ctx),
});
