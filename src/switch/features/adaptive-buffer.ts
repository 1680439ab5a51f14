// Elephant/mice adaptive buffer (H3C RoCE overview §1.4.3.4). By default every queue shares the pool and
// tail-drops when its dynamic threshold or the pool is reached, mice and elephants alike. Enabled, the switch
// checks once per `period`, port by port, whether that egress port lost anything (drops meant for one of its
// queues, any reason but this feature's own WRED):
//   * the first period with loss on a port puts the yellow packets (elephants, features/elephant.ts) leaving
//     it under WRED with a drop threshold of `initial` bytes of their egress queue: no drop below it, a drop
//     probability rising linearly to `pmax` at `span` × the threshold, every yellow packet dropped above that;
//   * each further period with loss on that port lowers its threshold by the factor `step`, down to `floor`;
//   * each period without loss raises it by 1 / `step`; once past `initial`, that port's elephants are back
//     to tail drop.
// The buffer elephants give up is what mice then find free. Loss is accounted where it happens: per egress
// port and queue (`adaptive_buffer_loss`), so congestion on one port does not squeeze the elephants of
// another; drops with no egress queue (no route, TTL expired, malformed) are not congestion loss and do not
// count. Every change is an `info` event on the port whose value is the new threshold (0: tail drop) and is
// counted. Lossless (PFC-protected) priorities are never dropped here: with PFC the switch sees no loss and
// pauses instead.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import { duration, fraction, overlay, ratio, size } from "../../device/setting-units.js";
import type { TimerKind } from "../../device/timers.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason } from "../drops.js";
import { markProbability } from "../ecn.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import { defineFeature, type Hook, type SwitchFeature } from "./feature.js";

const settings = z
  .object({
    enabled: z.boolean().optional(),
    period: duration.optional(),
    initial: size.optional(),
    step: z.number().gt(0).lt(1).optional(),
    floor: size.optional(),
    span: ratio.optional(),
    pmax: fraction.optional(),
  })
  .strict();

export interface AdaptiveBufferConfig {
  readonly enabled: boolean;
  /** How often loss is looked at and the thresholds moved, ns. */
  readonly period: Nanoseconds;
  /** The WRED threshold the first loss on a port sets, bytes of the elephant's egress queue. */
  readonly initial: number;
  /** Factor a threshold is multiplied by per period with loss (and divided by per period without). */
  readonly step: number;
  /** Lowest threshold, bytes. */
  readonly floor: number;
  /** WRED's maximum threshold is `span` × the threshold. */
  readonly span: number;
  /** Drop probability at the maximum threshold. */
  readonly pmax: number;
}

class AdaptiveBuffer implements SwitchFeature {
  readonly name = "adaptiveBuffer";
  private cfg!: AdaptiveBufferConfig;
  /** Per egress port, the yellow WRED threshold in force (bytes), or 0: tail drop. */
  private readonly threshold: Float64Array;
  /** Per egress port, the loss counted at the last look. */
  private readonly lossSeen: Float64Array;
  /** WRED's curve, refilled per packet (no allocation). */
  private readonly curve = { kmin: 0, kmax: 0, pmax: 0 };
  private armed = false;
  private readonly timer: TimerKind;
  private readonly lowestGauge: Float64Array;
  private readonly portGauge: Float64Array;
  private readonly changes: Float64Array;
  private readonly dropped: Float64Array;
  private readonly queueDropped: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    const c = ctx.counters;
    this.timer = ctx.timers.register("adaptive-buffer", (_i, now) => this.tick(now));
    this.threshold = new Float64Array(ctx.numPorts);
    this.lossSeen = new Float64Array(ctx.numPorts);
    this.lowestGauge = c.add(SwitchCounter.adaptiveBufferThreshold);
    this.portGauge = c.add(SwitchCounter.adaptiveBufferPortThreshold);
    this.changes = c.add(SwitchCounter.adaptiveBufferChanges);
    this.dropped = c.add(SwitchCounter.adaptiveBufferDropped);
    // Every drop meant for an egress queue is in queue_dropped (drops.ts); the loss is that minus our own.
    this.queueDropped = c.find(SwitchCounter.queueDropped.name)!.values;
    c.computed(SwitchCounter.adaptiveBufferLoss, (i) => this.queueDropped[i]! - this.dropped[i]!);
  }

  configure(cfg: SwitchConfig, now: Nanoseconds): void {
    this.cfg = cfg.adaptiveBuffer;
    if (!this.cfg.enabled) {
      if (this.armed) this.ctx.env.disarm(this.timer.id(0));
      this.armed = false;
      for (let p = 0; p < this.threshold.length; p++) this.set(p, 0);
      return;
    }
    for (let p = 0; p < this.lossSeen.length; p++) this.lossSeen[p] = this.portLoss(p);
    this.ctx.env.arm(this.timer.id(0), now + this.cfg.period);
    this.armed = true;
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.enabled ? ["admit"] : [];
  }

  admit(m: PacketMeta, now: Nanoseconds): boolean {
    if (!m.yellow || m.outPort < 0) return true;
    const t = this.threshold[m.outPort]!;
    if (t === 0 || this.ctx.mmu.pfcProtected(m.pg)) return true;
    const w = this.curve;
    w.kmin = t;
    w.kmax = t * this.cfg.span;
    w.pmax = this.cfg.pmax;
    const p = markProbability(this.ctx.mmu.egressDepth(m.outPort, m.queue), w);
    if (p <= 0 || (p < 1 && this.ctx.env.random() >= p)) return true;
    this.dropped[m.outPort * PRIORITIES + m.queue]!++;
    this.ctx.drops.drop(DropReason.AdaptiveWred, m.lossless, m.inPort, m.outPort, m.queue, now);
    m.verdict = Verdict.Drop;
    return false;
  }

  private tick(now: Nanoseconds): void {
    const c = this.cfg;
    for (let port = 0; port < this.threshold.length; port++) {
      const loss = this.portLoss(port);
      const lost = loss > this.lossSeen[port]!;
      this.lossSeen[port] = loss;
      const t = this.threshold[port]!;
      if (lost) {
        this.set(port, t === 0 ? c.initial : Math.max(c.floor, t * c.step));
      } else if (t !== 0) {
        const up = t / c.step;
        this.set(port, up > c.initial ? 0 : up);
      }
    }
    this.ctx.env.arm(this.timer.id(0), now + c.period);
  }

  /** Drops so far at `port`'s egress queues that count as loss: every drop but this feature's own. */
  private portLoss(port: number): number {
    let loss = 0;
    for (let q = port * PRIORITIES; q < (port + 1) * PRIORITIES; q++) {
      loss += this.queueDropped[q]! - this.dropped[q]!;
    }
    return loss;
  }

  private set(port: number, threshold: number): void {
    const t = Math.round(threshold);
    if (t === this.threshold[port]) return;
    this.threshold[port] = t;
    this.portGauge[port] = t;
    let lowest = 0;
    for (const v of this.threshold) if (v !== 0 && (lowest === 0 || v < lowest)) lowest = v;
    this.lowestGauge[0] = lowest;
    this.changes[0]!++;
    this.ctx.env.emit({
      kind: EventKind.Info,
      port,
      value: t,
      detail:
        t === 0
          ? "adaptive buffer: elephants back to tail drop"
          : `adaptive buffer: elephants under WRED from ${t} bytes`,
    });
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly adaptiveBuffer: AdaptiveBufferConfig;
  }
}

export const adaptiveBufferFeature = defineFeature({
  key: "adaptiveBuffer",
  doc:
    "Elephant/mice adaptive buffer (H3C RoCE overview §1.4.3.4): on loss at an egress port, yellow " +
    "(elephant) packets leaving it go under WRED with a drop threshold of `initial` bytes, lowered by `step` each `period` that loss " +
    "persists (not below `floor`) and raised step by step once it stops, back to tail drop; lossless " +
    "priorities are never dropped by it.",
  settings,
  defaults: (): AdaptiveBufferConfig => ({
    enabled: false,
    period: 100_000,
    initial: 256_000,
    step: 0.5,
    floor: 16_000,
    span: 2,
    pmax: 1,
  }),
  apply: (c: AdaptiveBufferConfig, s) => overlay(c, s as Partial<AdaptiveBufferConfig>),
  create: (ctx) => new AdaptiveBuffer(ctx),
});
