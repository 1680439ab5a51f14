// PFC watchdog: detects an egress queue that a received PFC holds paused for good (a PFC storm from a
// broken NIC, or a deadlocked cycle of pauses), recovers it, and restores PFC when the pauses stop — after
// SONiC's pfcwd (sonic-net/sonic-swss orchagent/pfcwdorch.cpp, pfc_detect_mellanox.lua, pfc_restore.lua).
//
// Per port and lossless priority p (its queue q = priorityToQueue[p]), every `pollInterval`:
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

import { z } from "zod";
import { EventKind, type Nanoseconds } from "../../device/contract.js";
import { type Counter, type CounterDef, CounterKind, Label } from "../../device/counters.js";
import { PfcCounter } from "../../device/l2/pfc-counters.js";
import { duration, overlay } from "../../device/setting-units.js";
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

const settings = z
  .object({
    enabled: z.boolean().optional(),
    detectionTime: duration.optional(),
    restorationTime: duration.optional(),
    pollInterval: duration.optional(),
    action: z.enum(["drop", "forward"]).optional(),
    /** Storms within `triggerWindow` that latch PFC off (0: never latch). */
    triggerLimit: z.number().int().min(0).max(1000).optional(),
    triggerWindow: duration.optional(),
  })
  .strict();

export interface PfcWatchdogConfig {
  readonly enabled: boolean;
  /** A queue paused this long without sending is stormed, ns (SONiC detection_time). */
  readonly detectionTime: Nanoseconds;
  /** A stormed queue that received no pause frame this long is restored, ns (SONiC restoration_time). */
  readonly restorationTime: Nanoseconds;
  /** How often the watchdog looks, ns (SONiC POLL_INTERVAL). */
  readonly pollInterval: Nanoseconds;
  readonly action: "drop" | "forward";
  readonly triggerLimit: number;
  readonly triggerWindow: Nanoseconds;
}

/** Restores (or latches) PFC on a port and priority the watchdog switched off. */
export interface PfcEnableCommand extends FeatureCommand {
  readonly type: "pfc-enable";
  readonly port: number;
  readonly priority: number;
}

export const WatchdogState = { Monitoring: 0, Stormed: 1, Latched: 2 } as const;

const PORT_PRIORITY = [Label.Port, Label.Priority] as const;
const def = (name: string, kind: CounterKind, unit: string, help: string): CounterDef => ({
  name: `pfcwd_${name}`,
  key: `pfcwd_prio{priority}_${name}`,
  kind,
  unit,
  help,
  labels: PORT_PRIORITY,
});

/** The watchdog's counters per (port, priority), after `show pfcwd stats` (STORM DETECTED/RESTORED, TX/RX
 * DROP, TX OK) and `show pfcwd status`. */
export const PfcWatchdogCounter = {
  detected: def("storm_detected", CounterKind.Counter, "events", "PFC storms detected on this queue"),
  restored: def("storm_restored", CounterKind.Counter, "events", "PFC storms this queue recovered from"),
  txDrop: def("tx_drop", CounterKind.Counter, "packets", "packets for the stormed queue dropped"),
  rxDrop: def("rx_drop", CounterKind.Counter, "packets", "packets received on the stormed priority dropped"),
  txOk: def("tx_ok", CounterKind.Counter, "packets", "packets sent from the queue while stormed (forward)"),
  state: def("state", CounterKind.Gauge, "state", "0 monitoring, 1 stormed (recovering), 2 latched"),
} as const;

const TOLERANCE_NS = 1;

class PfcWatchdog implements SwitchFeature {
  readonly name = "pfcWatchdog";
  private cfg: PfcWatchdogConfig;
  private lossless: readonly number[] = [];
  private priorityToQueue: readonly number[] = [];
  private readonly state: Float64Array;
  private readonly detected: Float64Array;
  private readonly restored: Float64Array;
  private readonly txDrop: Float64Array;
  private readonly rxDrop: Float64Array;
  private readonly txOk: Float64Array;
  /** Per (port, priority): time the condition held (monitoring) or pause-free time (stormed). */
  private readonly held: Float64Array;
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
  private armed = false;
  private lastPollAt = 0;

  constructor(private readonly ctx: SwitchContext) {
    const c = ctx.counters;
    this.detected = c.add(PfcWatchdogCounter.detected);
    this.restored = c.add(PfcWatchdogCounter.restored);
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
  }

  /** The poll interval the armed timer runs at. */
  private armedInterval = 0;

  configure(cfg: SwitchConfig, now: Nanoseconds): void {
    this.cfg = cfg.pfcWatchdog;
    this.lossless = cfg.qos.lossless;
    this.priorityToQueue = cfg.qos.priorityToQueue;
    if (!this.cfg.enabled) {
      for (const ps of this.ctx.portList)
        for (let p = 0; p < PRIORITIES; p++) this.restore(ps.port * PRIORITIES + p, now, false);
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
    const i = port * PRIORITIES + priority;
    this.windowCount[i] = 0;
    this.restore(i, now, true);
    return { ok: true };
  }

  private onPoll(now: Nanoseconds): void {
    const elapsed = now - this.lastPollAt;
    for (const ps of this.ctx.portList) {
      for (const p of this.lossless) {
        const i = ps.port * PRIORITIES + p;
        const q = this.priorityToQueue[p]!;
        const qi = ps.port * PRIORITIES + q;
        const tx = this.queueTx.values[qi]!;
        const rx = this.rxPause.values[i]!;
        const paused = this.ctx.counters.read(this.pausedNs, i, now);
        const state = this.state[i]!;
        if (state === WatchdogState.Monitoring) {
          const storm =
            ps.up &&
            paused - this.lastPausedNs[i]! >= elapsed - TOLERANCE_NS &&
            ps.sched.queues[q]!.length > 0 &&
            tx === this.lastTx[i]!;
          this.held[i] = storm ? this.held[i]! + elapsed : 0;
          if (storm && this.held[i]! >= this.cfg.detectionTime - TOLERANCE_NS) this.storm(i, q, now);
        } else if (state === WatchdogState.Stormed) {
          this.held[i] = rx === this.lastRxPause[i]! ? this.held[i]! + elapsed : 0;
          if (this.held[i]! >= this.cfg.restorationTime - TOLERANCE_NS) this.restore(i, now, true);
        }
        this.lastTx[i] = tx;
        this.lastRxPause[i] = rx;
        this.lastPausedNs[i] = paused;
      }
    }
    this.lastPollAt = now;
    this.ctx.env.arm(this.poll.id(0), now + Math.max(1, this.cfg.pollInterval));
  }

  private storm(i: number, q: number, now: Nanoseconds): void {
    const port = Math.floor(i / PRIORITIES);
    const p = i % PRIORITIES;
    const cfg = this.cfg;
    if (now - this.windowStart[i]! > cfg.triggerWindow || this.windowCount[i] === 0) {
      this.windowStart[i] = now;
      this.windowCount[i] = 0;
    }
    this.windowCount[i]!++;
    const latched = cfg.triggerLimit > 0 && this.windowCount[i]! >= cfg.triggerLimit;
    this.state[i] = latched ? WatchdogState.Latched : WatchdogState.Stormed;
    this.detected[i]!++;
    this.held[i] = 0;
    // The action first, then PFC off (which wakes the port): nothing leaves the queue unaccounted.
    if (cfg.action === "drop") {
      this.dropQueues[port]! |= 1 << q;
      this.dropPgs[port]! |= 1 << p;
      this.txDrop[i]! += this.ctx.flushQueue(port, q, DropReason.PfcWatchdog, now);
    } else {
      this.forwardQueues[port]! |= 1 << q;
    }
    this.ctx.pfcOverride.set(port, p, true, now);
    this.ctx.env.emit({
      kind: EventKind.PfcStorm,
      port,
      priority: p,
      detail: latched ? `${cfg.action}, latched` : cfg.action,
    });
    this.ctx.ports[port]!.tx.kick(now);
  }

  /** Back to monitoring: PFC on again, nothing dropped or forced (`counted`: a restoration, not a reset). */
  private restore(i: number, now: Nanoseconds, counted: boolean): void {
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
        this.lastTx[i] = this.queueTx.values[ps.port * PRIORITIES + (this.priorityToQueue[p] ?? p)]!;
        this.lastRxPause[i] = this.rxPause.values[i]!;
        this.lastPausedNs[i] = this.ctx.counters.read(this.pausedNs, i, now);
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
    "PFC watchdog (after SONiC's pfcwd): every pollInterval, a lossless queue paused for the whole " +
    "interval that holds packets and sent none counts towards detectionTime; then PFC is off on that port " +
    "and priority and its traffic dropped or forwarded (action) until no pause frame arrived for " +
    "restorationTime; the triggerLimit-th storm within triggerWindow latches until `pfc-enable`.",
  settings,
  // SONiC's defaults (sonic-utilities `pfcwd start_default`, sonic-swss pfcwdorch): detection 200 ms,
  // restoration 200 ms, polling 200 ms, action drop; on by default, as `pfcwd start_default` starts it on
  // every lossless queue. Its first poll comes 200 ms in, so runs shorter than that are not touched by it.
  defaults: (): PfcWatchdogConfig => ({
    enabled: true,
    detectionTime: 200e6,
    restorationTime: 200e6,
    pollInterval: 200e6,
    action: "drop",
    triggerLimit: 0,
    triggerWindow: 1e9,
  }),
  apply: (c: PfcWatchdogConfig, s) => overlay(c, s),
  create: (ctx) => new PfcWatchdog(ctx),
});
