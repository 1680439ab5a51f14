// AI ECN's configuration section (`ecn.ai`): one zod schema with the same names for users and code, the
// resolved config, its defaults, and the XOFF bound Kmax must stay under. The tuner is in ai-ecn.ts.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { duration, fraction, overlay, size } from "../../device/setting-units.js";
import type { SwitchConfig } from "../config.js";
import type { AiEcnControl } from "./ai-ecn-controller.js";
import { AI_ECN_MODELS } from "./ai-ecn-models.js";

const template = z.object({ kmin: size, kmax: size, pmax: fraction }).strict();

export const aiEcnSettings = z
  .object({
    mode: z.enum(["off", "local", "central", "model"]).optional(),
    queues: z.array(z.number().int().min(0).max(7)).optional(),
    period: duration.optional(),
    elephantPeriods: z.number().int().min(1).max(1000).optional(),
    flows: z.number().int().min(1).max(65536).optional(),
    levels: z.number().int().min(2).max(64).optional(),
    low: template.optional(),
    high: template.optional(),
    utilTarget: fraction.optional(),
    maxOffset: z.number().int().min(0).max(64).optional(),
    decayPeriods: z.number().int().min(1).optional(),
    safety: fraction.optional(),
    wDelay: z.number().min(0).optional(),
    wPfc: z.number().min(0).optional(),
    maxDistance: z.number().min(0).max(2).optional(),
    publish: z.boolean().optional(),
  })
  .strict();

export interface AiEcnConfig extends AiEcnControl {
  readonly mode: "off" | "local" | "central" | "model";
  readonly queues: readonly number[];
  readonly period: Nanoseconds;
  readonly elephantPeriods: number;
  /** Flow-table capacity (takes effect at start). */
  readonly flows: number;
  /** Model mode: a pattern applies when the queue's features lie closer than this (0: never). */
  readonly maxDistance: number;
  /** Model mode: also publish each period's feature vector as an `info` event (training). */
  readonly publish: boolean;
}

export const AI_ECN_DEFAULTS: AiEcnConfig = {
  mode: "off",
  queues: [3],
  period: 100_000,
  // Active for 3 periods (300 µs): a web-search mouse (< 100 KB) takes a few µs at 100 Gb/s.
  elephantPeriods: 3,
  flows: 1024,
  levels: 8,
  // The "aggressive" and "conservative" presets (scenario/profiles.ts), with their Pmax 100 %.
  low: { kmin: 50_000, kmax: 200_000, pmax: 1 },
  high: { kmin: 500_000, kmax: 3_000_000, pmax: 1 },
  utilTarget: 0.9,
  maxOffset: 2,
  decayPeriods: 10,
  safety: 0.9,
  wDelay: 0.5,
  wPfc: 1,
  // The bound the training chose (ai-ecn-models.ts).
  maxDistance: AI_ECN_MODELS.maxDistance,
  publish: false,
};

export function applyAiEcn(c: AiEcnConfig, s: z.output<typeof aiEcnSettings> | undefined): AiEcnConfig {
  return overlay(c, s);
}

/** The PFC XOFF threshold Kmax must stay under: static, or the dynamic threshold's steady state with one
 * congested PG (α·B/(1+α) of a pool B), whichever is configured. */
export function xoffBound(cfg: SwitchConfig, poolBytes: number): number {
  const { xoff, alpha } = cfg.pfc;
  return xoff === "dynamic" ? (alpha * poolBytes) / (1 + alpha) : xoff;
}
