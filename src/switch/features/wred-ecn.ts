// WRED/ECN per egress queue, and Fast ECN. At enqueue (admit hook) a packet meets the queue's marking
// line (ecn.ts): marked CE, passed, or — Not-ECT — dropped. With Fast ECN the decision moves to dequeue,
// on the departing packet and the queue it leaves behind (marks reach the receiver a queue's drain time
// sooner); it only marks, since the scheduler already chose the packet. The rewrite stage sets CE.
//
// A queue's thresholds can be rewritten at run time as numbers (`ecn-thresholds`), without a `configure`
// and without touching the rest of the switch: what an ECN tuner (AI ECN) needs.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { EventKind } from "../../device/contract.js";
import type { CounterDef } from "../../device/counters.js";
import { fraction, size } from "../../device/setting-units.js";
import { type Ecn, ipv4Ecn } from "../../wire/ipv4.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { SwitchCounter } from "../counter-defs.js";
import { DropReason } from "../drops.js";
import { EcnAction, type EcnQueueConfig, ecnDecision } from "../ecn.js";
import { type PacketMeta, Verdict } from "../packet-meta.js";
import { AI_ECN_DEFAULTS, type AiEcnConfig, AiEcnTuner, aiEcnSettings, applyAiEcn } from "./ai-ecn.js";
import {
  defineFeature,
  type FeatureCommand,
  type FeatureReply,
  Hook,
  type SwitchFeature,
} from "./feature.js";

const queueSettings = z
  .object({ kmin: size, kmax: size, pmax: fraction })
  .strict()
  .refine((q) => q.kmin <= q.kmax, { message: "kmin must not exceed kmax" });

const settings = z
  .object({
    fast: z.boolean().optional(),
    queues: z.record(z.string().regex(/^[0-7]$/, "a queue number 0..7"), queueSettings.nullable()).optional(),
    /** AI ECN: tune the queues' thresholds online (ai-ecn.ts). */
    ai: aiEcnSettings.optional(),
  })
  .strict();

export interface EcnConfig {
  /** WRED/ECN per egress queue; queues without an entry are tail-drop only. */
  readonly queues: Readonly<Record<number, EcnQueueConfig>>;
  /** Fast ECN: decide at dequeue (on the departing packet) instead of at enqueue. */
  readonly fast: boolean;
  /** AI ECN (off by default). */
  readonly ai: AiEcnConfig;
}

/** Rewrites one queue's thresholds (bytes, probability 0..1); `null` turns WRED/ECN off on it. */
export interface EcnThresholdsCommand extends FeatureCommand {
  readonly type: "ecn-thresholds";
  readonly queue: number;
  readonly thresholds: EcnQueueConfig | null;
  /** Why (an ECN tuner's reason): given, the change is reported as an `info` event. */
  readonly reason?: string;
}

class WredEcn implements SwitchFeature {
  readonly name = "ecn";
  /** Per queue, or undefined: no WRED/ECN. */
  private readonly queues: (EcnQueueConfig | undefined)[] = new Array(PRIORITIES).fill(undefined);
  private fast = false;
  private readonly marked: Float64Array;
  private readonly wredDropped: Float64Array;
  private readonly keyBase: number;
  private readonly ai: AiEcnTuner;

  constructor(private readonly ctx: SwitchContext) {
    this.marked = ctx.counters.add(SwitchCounter.ecnMarked);
    this.wredDropped = ctx.counters.add(SwitchCounter.wredDropped);
    this.keyBase = ctx.limiter.keys(ctx.numPorts * PRIORITIES);
    const threshold = (def: CounterDef, read: (q: EcnQueueConfig) => number) =>
      ctx.counters.computed(def, (i) => {
        const q = this.queues[i % PRIORITIES];
        return q === undefined ? -1 : read(q);
      });
    threshold(SwitchCounter.ecnKmin, (q) => q.kmin);
    threshold(SwitchCounter.ecnKmax, (q) => q.kmax);
    threshold(SwitchCounter.ecnPmax, (q) => q.pmax);
    this.ai = new AiEcnTuner(ctx, (queue, t) => {
      this.queues[queue] = t;
    });
  }

  configure(cfg: SwitchConfig): void {
    this.fast = cfg.ecn.fast;
    for (let q = 0; q < PRIORITIES; q++) this.queues[q] = cfg.ecn.queues[q];
    this.ai.configure(cfg);
  }

  activeHooks(): readonly Hook[] {
    const ai = this.ai.mode !== "off";
    if (this.fast) return ai ? [Hook.Dequeued, Hook.Enqueued] : [Hook.Dequeued];
    return [Hook.Admit, Hook.Enqueued];
  }

  admit(m: PacketMeta, now: Nanoseconds): boolean {
    const q = this.queues[m.queue];
    if (q === undefined) return true;
    const depth = this.ctx.mmu.egressDepth(m.outPort, m.queue);
    const action = ecnDecision(depth, m.ecn as Ecn, q, this.ctx.env.random);
    if (action === EcnAction.Drop) {
      this.wredDropped[m.outPort * PRIORITIES + m.queue]!++;
      this.ctx.drops.drop(DropReason.Wred, m.lossless, m.inPort, m.outPort, m.queue, now);
      m.verdict = Verdict.Drop;
      return false;
    }
    m.mark = action === EcnAction.Mark;
    return true;
  }

  enqueued(m: PacketMeta, now: Nanoseconds): void {
    if (m.mark && !this.fast) this.countMark(m.outPort, m.queue, now);
    if (this.ai.mode !== "off") this.ai.enqueued(m, now);
  }

  dequeued(m: PacketMeta, now: Nanoseconds): void {
    const q = this.queues[m.queue];
    if (q === undefined || m.verdict !== Verdict.Forward || m.l3 < 0) return;
    const depth = this.ctx.mmu.egressDepth(m.outPort, m.queue);
    const action = ecnDecision(depth, ipv4Ecn(m.frame, m.l3), q, this.ctx.env.random);
    // Too late to drop a Not-ECT packet that the scheduler already chose: Fast ECN only marks.
    if (action === EcnAction.Mark) {
      m.mark = true;
      this.countMark(m.outPort, m.queue, now);
    }
  }

  command(cmd: FeatureCommand): FeatureReply | undefined {
    if (cmd.type !== "ecn-thresholds") return undefined;
    const { queue, thresholds, reason } = cmd as EcnThresholdsCommand;
    if (!Number.isInteger(queue) || queue < 0 || queue >= PRIORITIES) {
      return { ok: false, error: `queue ${queue} is not 0..7` };
    }
    if (
      thresholds !== null &&
      !(thresholds.kmin <= thresholds.kmax && thresholds.pmax >= 0 && thresholds.pmax <= 1)
    ) {
      return { ok: false, error: "thresholds need kmin <= kmax and 0 <= pmax <= 1" };
    }
    this.queues[queue] = thresholds ?? undefined;
    if (reason !== undefined) {
      const t =
        thresholds === null
          ? "off"
          : `kmin ${thresholds.kmin} kmax ${thresholds.kmax} pmax ${thresholds.pmax}`;
      this.ctx.env.emit({
        kind: EventKind.Info,
        priority: queue,
        detail: `ecn thresholds queue ${queue}: ${t} (${reason})`,
      });
    }
    return { ok: true };
  }

  private countMark(port: number, queue: number, now: Nanoseconds): void {
    const i = port * PRIORITIES + queue;
    this.marked[i]!++;
    const count = this.ctx.limiter.admit(this.keyBase + i, now);
    if (count > 0) this.ctx.env.emit({ kind: EventKind.EcnMark, port, priority: queue, count });
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly ecn: EcnConfig;
  }
}

export const wredEcnFeature = defineFeature({
  key: "ecn",
  doc:
    "WRED/ECN on the instantaneous egress queue depth, per queue (Kmin, Kmax, Pmax; DCQCN's congestion " +
    "point, SIGCOMM 2015): ECT packets are marked CE, Not-ECT packets dropped with the same probability. " +
    "`fast` decides at dequeue instead (Fast ECN). The IPv4 checksum is updated incrementally (RFC 1624); " +
    "the RoCEv2 ICRC masks the TOS byte, so it stays valid.",
  settings,
  defaults: (): EcnConfig => ({
    // The "balanced" preset's thresholds (scenario/profiles.ts) for the lossless queue (150 KB / 1500 KB);
    // Pmax 20 % as in HPCC's DCQCN runs (github.com/alibaba-edu/High-Precision-Congestion-Control,
    // simulation/run.py: PMAX_MAP 0.2).
    queues: { 3: { kmin: 150_000, kmax: 1_500_000, pmax: 0.2 } },
    fast: false,
    ai: AI_ECN_DEFAULTS,
  }),
  apply: (c: EcnConfig, s): EcnConfig => {
    const queues: Record<number, EcnQueueConfig> = { ...c.queues };
    for (const [q, cfg] of Object.entries(s.queues ?? {})) {
      if (cfg === null) delete queues[Number(q)];
      else queues[Number(q)] = cfg;
    }
    return { queues, fast: s.fast ?? c.fast, ai: applyAiEcn(c.ai, s.ai) };
  },
  create: (ctx) => new WredEcn(ctx),
});
