// AI ECN's decision, pure: from one period's features of a queue to the queue's ECN thresholds. The same
// code runs inside a switch (`ecn.ai.mode: local`) and in the lab's central analyser (`central`).
//
// In the spirit of ACC (Yan et al., "ACC: Automatic ECN Tuning for High-Speed Datacenter Networks",
// SIGCOMM 2021): the thresholds are chosen from a discrete set of templates — here a ladder of `levels`
// settings, geometric from `low` (shallow marking: short queues for mice) to `high` (deep marking:
// throughput for elephants) — to maximise, period by period, the objective
//
//     reward = utilisation − wDelay · meanDepth / high.kmax − wPfc · [PFC XOFF sent in the period]
//
// ACC learns the choice with deep reinforcement learning; this controller is a deliberately small online
// search instead, two parts:
//   1. a prior from the traffic model H3C names for its AI ECN (H3C RoCE overview §1.4.3.5): the larger
//      the mice share of the queue's bytes, the lower the level (mice want short queues), the larger the
//      elephant share, the higher (elephants want throughput): prior = round(elephantShare × (levels − 1));
//   2. an online correction of that prior, one step per period, following the reward: PFC fired → one
//      level lower (ECN must act before PFC, ibid.); the link under-used (utilisation below
//      `utilTarget`) while the queue stays below Kmin, packets are being marked and elephants carry most
//      bytes → one level higher (marking is costing the elephants throughput; with mostly mice a link
//      below target is simply lightly loaded); the link busy and the mean depth above Kmax → one level lower
//      (queueing delay without throughput to gain). The correction is bounded (±`maxOffset`) and decays
//      one step towards 0 after `decayPeriods` quiet periods, so the prior wins again when traffic changes.
// Safety: Kmax never reaches the PFC XOFF threshold (it is capped at `safety` × XOFF) and Kmin ≤ Kmax.

import type { EcnQueueConfig } from "../ecn.js";

export interface AiEcnTemplate {
  readonly kmin: number;
  readonly kmax: number;
  readonly pmax: number;
}

export interface AiEcnControl {
  readonly levels: number;
  readonly low: AiEcnTemplate;
  readonly high: AiEcnTemplate;
  readonly utilTarget: number;
  readonly maxOffset: number;
  readonly decayPeriods: number;
  /** Kmax ≤ safety × XOFF. */
  readonly safety: number;
  readonly wDelay: number;
  readonly wPfc: number;
}

/** One period of one queue, as the switch samples it. */
export interface AiEcnFeatures {
  /** Packets enqueued in the period (0: idle, nothing is decided). */
  readonly packets: number;
  /** Mean depth seen by arriving packets, and the peak, bytes. */
  readonly meanDepth: number;
  readonly peakDepth: number;
  /** Output rate / line rate of the busiest port of the queue, 0..1. */
  readonly utilisation: number;
  /** Marked / enqueued packets, 0..1. */
  readonly markRate: number;
  /** PFC XOFF frames the switch sent for the queue's priority in the period. */
  readonly pauses: number;
  /** Shares of the period's bytes carried by mice and elephant flows, 0..1 (they sum to 1 with traffic). */
  readonly miceShare: number;
  readonly elephantShare: number;
}

export interface AiEcnState {
  level: number;
  offset: number;
  quiet: number;
}

export const AiEcnReason = {
  Idle: "idle",
  Mice: "mice share",
  Elephants: "elephant share",
  Pfc: "pfc fired",
  Throughput: "under-utilised",
  Delay: "queueing delay",
  Decay: "correction decays",
} as const;
export type AiEcnReason = (typeof AiEcnReason)[keyof typeof AiEcnReason];

/** The documented objective, for reports and tests. */
export function aiEcnReward(f: AiEcnFeatures, c: AiEcnControl): number {
  return f.utilisation - (c.wDelay * f.meanDepth) / c.high.kmax - (f.pauses > 0 ? c.wPfc : 0);
}

/** Kmax ≤ safety × XOFF, Kmin ≤ Kmax, 0 < Pmax ≤ 1. */
export function safeThresholds(t: AiEcnTemplate, xoffBytes: number, safety: number): EcnQueueConfig {
  const kmax = Math.max(1, Math.min(t.kmax, Math.floor(safety * xoffBytes)));
  const kmin = Math.min(t.kmin, kmax);
  return { kmin, kmax, pmax: Math.min(1, Math.max(0.01, t.pmax)) };
}

/** The template of `level` (0 = low … levels − 1 = high), geometric between the two ends. */
export function templateOf(level: number, c: AiEcnControl): AiEcnTemplate {
  const x = c.levels <= 1 ? 0 : level / (c.levels - 1);
  const geo = (a: number, b: number) => Math.round(a * (b / a) ** x);
  return {
    kmin: geo(c.low.kmin, c.high.kmin),
    kmax: geo(c.low.kmax, c.high.kmax),
    pmax: c.low.pmax + (c.high.pmax - c.low.pmax) * x,
  };
}

/** Updates `s` from one period; returns why the level changed, or null when it did not. */
export function aiEcnStep(f: AiEcnFeatures, s: AiEcnState, c: AiEcnControl): AiEcnReason | null {
  if (f.packets === 0) return null;
  const top = c.levels - 1;
  const prior = Math.round(Math.min(1, Math.max(0, f.elephantShare)) * top);
  const current = templateOf(s.level, c);
  let reason: AiEcnReason | null = null;
  if (f.pauses > 0) {
    s.offset = Math.max(-c.maxOffset, s.offset - 1);
    s.quiet = 0;
    reason = AiEcnReason.Pfc;
  } else if (
    f.utilisation < c.utilTarget &&
    f.meanDepth < current.kmin &&
    f.markRate > 0 &&
    f.elephantShare >= 0.5
  ) {
    s.offset = Math.min(c.maxOffset, s.offset + 1);
    s.quiet = 0;
    reason = AiEcnReason.Throughput;
  } else if (f.utilisation >= c.utilTarget && f.meanDepth > current.kmax) {
    s.offset = Math.max(-c.maxOffset, s.offset - 1);
    s.quiet = 0;
    reason = AiEcnReason.Delay;
  } else if (s.offset !== 0 && ++s.quiet >= c.decayPeriods) {
    s.offset += s.offset > 0 ? -1 : 1;
    s.quiet = 0;
    reason = AiEcnReason.Decay;
  }
  const level = Math.min(top, Math.max(0, prior + s.offset));
  if (level === s.level) return null;
  const moved = reason ?? (level < s.level ? AiEcnReason.Mice : AiEcnReason.Elephants);
  s.level = level;
  return moved;
}
