// Elephant/mice adaptive buffer (H3C RoCE overview §1.4.3.4). By default every queue shares the pool and
// tail-drops when its dynamic threshold or the pool is reached, mice and elephants alike. Enabled, the switch
// checks once per `period` whether it dropped anything (any reason but this feature's own WRED):
//   * the first period with loss puts yellow packets (elephants, features/elephant.ts) under WRED with a
//     drop threshold of `initial` bytes of their egress queue: no drop below it, a drop probability rising
//     linearly to `pmax` at `span` × the threshold, every yellow packet dropped above that;
//   * each further period with loss lowers the threshold by the factor `step`, down to `floor`;
//   * each period without loss raises it by 1 / `step`; once past `initial`, elephants are back to tail
//     drop.
// The buffer elephants give up is what mice then find free. Every change is an `info` event whose value is
// the new threshold (0: tail drop) and is counted. Lossless (PFC-protected) priorities are never dropped
// here: with PFC the switch sees no loss and pauses instead.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import { CounterKind, Label } from "../../device/counters.js";
import { duration, fraction, overlay, ratio, size } from "../../device/setting-units.js";
import type { TimerKind } from "../../device/timers.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason } from "../drops.js";
import { type EcnQueueConfig, markProbability } from "../ecn.js";
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
  /** How often loss is looked at and the threshold moved, ns. */
  readonly period: Nanoseconds;
  /** The WRED threshold the first loss sets, bytes of the elephant's egress queue. */
  readonly initial: number;
  /** Factor the threshold is multiplied by per period with loss (and divided by per period without). */
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
  /** The yellow WRED in force, or null: tail drop. */
  private wred: { kmin: number; kmax: number; pmax: number } | null = null;
  private lossSeen = 0;
  private armed = false;
  private readonly timer: TimerKind;
  private readonly thresholdGauge: Float64Array;
  private readonly changes: Float64Array;
  private readonly dropped: Float64Array;

  constructor(private readonly ctx: SwitchContext) {
    this.timer = ctx.timers.register("adaptive-buffer", (_i, now) => this.tick(now));
    this.thresholdGauge = ctx.counters.add(SwitchCounter.adaptiveBufferThreshold);
    this.changes = ctx.counters.add(SwitchCounter.adaptiveBufferChanges);
    this.dropped = ctx.counters.add({
      name: "adaptive_buffer_dropped",
      kind: CounterKind.Counter,
      unit: "packets",
      help: "yellow packets the adaptive buffer's WRED dropped at this egress queue",
      labels: [Label.Port, Label.Queue],
    });
  }

  configure(cfg: SwitchConfig, now: Nanoseconds): void {
    this.cfg = cfg.adaptiveBuffer;
    if (!this.cfg.enabled) {
      if (this.armed) this.ctx.env.disarm(this.timer.id(0));
      this.armed = false;
      this.set(null);
      return;
    }
    this.lossSeen = this.loss(now);
    if (this.wred !== null) this.set(this.wred.kmin);
    this.ctx.env.arm(this.timer.id(0), now + this.cfg.period);
    this.armed = true;
  }

  activeHooks(): readonly Hook[] {
    return this.cfg.enabled ? ["admit"] : [];
  }

  admit(m: PacketMeta, now: Nanoseconds): boolean {
    const w = this.wred;
    if (w === null || !m.yellow || this.ctx.mmu.pfcProtected(m.pg)) return true;
    const p = markProbability(this.ctx.mmu.egressDepth(m.outPort, m.queue), w as EcnQueueConfig);
    if (p <= 0 || (p < 1 && this.ctx.env.random() >= p)) return true;
    this.dropped[m.outPort * PRIORITIES + m.queue]!++;
    this.ctx.drops.drop(DropReason.AdaptiveWred, m.lossless, m.inPort, m.outPort, m.queue, now);
    m.verdict = Verdict.Drop;
    return false;
  }

  private tick(now: Nanoseconds): void {
    const loss = this.loss(now);
    const lost = loss > this.lossSeen;
    this.lossSeen = loss;
    const c = this.cfg;
    if (lost) {
      this.set(this.wred === null ? c.initial : Math.max(c.floor, this.wred.kmin * c.step));
    } else if (this.wred !== null) {
      const up = this.wred.kmin / c.step;
      this.set(up > c.initial ? null : up);
    }
    this.ctx.env.arm(this.timer.id(0), now + c.period);
  }

  /** Drops so far that count as loss: every drop but this feature's own. */
  private loss(now: Nanoseconds): number {
    const cs = this.ctx.counters;
    let own = 0;
    for (const v of this.dropped) own += v;
    return (
      cs.value(SwitchCounter.droppedLossless.name, now) + cs.value(SwitchCounter.droppedLossy.name, now) - own
    );
  }

  private set(threshold: number | null): void {
    const before = this.wred?.kmin ?? null;
    const t = threshold === null ? null : Math.round(threshold);
    this.wred = t === null ? null : { kmin: t, kmax: t * this.cfg.span, pmax: this.cfg.pmax };
    if (t === before) return;
    this.thresholdGauge[0] = t ?? 0;
    this.changes[0]!++;
    this.ctx.env.emit({
      kind: EventKind.Info,
      value: t ?? 0,
      detail:
        t === null
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
    "Elephant/mice adaptive buffer (H3C RoCE overview §1.4.3.4): on loss, yellow (elephant) packets go " +
    "under WRED with a drop threshold of `initial` bytes, lowered by `step` each `period` that loss " +
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
