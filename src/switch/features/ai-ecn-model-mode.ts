// AI ECN `model` mode inside the switch: per watched queue and period, the observation is scaled
// (ai-ecn-model.ts), smoothed over periods (EWMA, gain 1/2, as the mice share is) and matched against the
// trained library (ai-ecn-models.ts). Within `maxDistance` of a pattern, the queue takes the pattern's
// thresholds; otherwise the online correction of local mode (aiEcnStep) moves the level from where it is.
// Counters: `ai_ecn_model_matches` (periods a pattern matched), `ai_ecn_model_corrections` (threshold
// changes made by the online correction because no pattern matched); gauge `ai_ecn_pattern` (index of
// the pattern in force per queue, −1 none). With `publish`, each period's scaled vector is also an `info`
// event (`{"aiEcn":"model-features",...}`): what the training script harvests.

import { EventKind } from "../../device/contract.js";
import { CounterKind, Label } from "../../device/counters.js";
import { PRIORITIES } from "../../wire/pfc.js";
import type { SwitchContext } from "../context.js";
import type { EcnQueueConfig } from "../ecn.js";
import type { AiEcnConfig } from "./ai-ecn-config.js";
import {
  type AiEcnFeatures,
  type AiEcnState,
  aiEcnStep,
  safeThresholds,
  templateOf,
} from "./ai-ecn-controller.js";
import {
  AI_ECN_MODEL_DIMS,
  type AiEcnModelLibrary,
  type AiEcnModelObservation,
  matchPattern,
  scaleObservation,
} from "./ai-ecn-model.js";
import { AI_ECN_MODELS } from "./ai-ecn-models.js";

export const AiEcnModelCounter = {
  matches: {
    name: "ai_ecn_model_matches",
    kind: CounterKind.Counter,
    unit: "periods",
    help: "AI ECN model mode: periods in which a queue's traffic matched a trained pattern",
    labels: [],
  },
  corrections: {
    name: "ai_ecn_model_corrections",
    kind: CounterKind.Counter,
    unit: "events",
    help: "AI ECN model mode: threshold changes made by online correction (no pattern within maxDistance)",
    labels: [],
  },
  pattern: {
    name: "ai_ecn_pattern",
    kind: CounterKind.Gauge,
    unit: "index",
    help: "AI ECN model mode: index of the trained pattern whose thresholds the queue has (-1: none)",
    labels: [Label.Port, Label.Queue],
  },
} as const;

export class AiEcnModelMode {
  private readonly scaled = new Float64Array(AI_ECN_MODEL_DIMS);
  private readonly smooth = new Float64Array(PRIORITIES * AI_ECN_MODEL_DIMS).fill(-1);
  private readonly pattern = new Int16Array(PRIORITIES).fill(-1);
  private readonly matches: Float64Array;
  private readonly corrections: Float64Array;

  constructor(
    private readonly ctx: SwitchContext,
    private readonly lib: AiEcnModelLibrary = AI_ECN_MODELS,
  ) {
    this.matches = ctx.counters.add(AiEcnModelCounter.matches);
    this.corrections = ctx.counters.add(AiEcnModelCounter.corrections);
    ctx.counters.computed(AiEcnModelCounter.pattern, (i) => this.pattern[i % PRIORITIES]!);
  }

  /**
   * One period of queue `q`: the thresholds to write (already safe under `xoff`), with the reason for
   * the event log, or null when nothing changes. Updates `s` (the level in force).
   */
  decide(
    q: number,
    f: AiEcnFeatures,
    o: AiEcnModelObservation,
    s: AiEcnState,
    cfg: AiEcnConfig,
    xoff: number,
  ): { readonly thresholds: EcnQueueConfig; readonly reason: string } | null {
    if (f.packets === 0) return null;
    const v = this.smoothed(q, o);
    if (cfg.publish) this.publishVector(q, v);
    const m = matchPattern(v, this.lib, cfg.maxDistance);
    if (m.matched) {
      this.matches[0]!++;
      if (this.pattern[q] === m.index) return null;
      const p = this.lib.patterns[m.index]!;
      this.pattern[q] = m.index;
      // The correction restarts from the ladder level nearest the pattern's Kmax.
      s.level = nearestLevel(p.kmax, cfg);
      s.offset = 0;
      s.quiet = 0;
      return {
        thresholds: safeThresholds(p, xoff, cfg.safety),
        reason: `pattern ${p.name}, distance ${m.distance.toFixed(3)}`,
      };
    }
    const fromPattern = this.pattern[q]! >= 0;
    const first = s.level < 0;
    this.pattern[q] = -1;
    if (first) s.level = Math.round(f.elephantShare * (cfg.levels - 1));
    const reason = aiEcnStep(f, s, cfg);
    if (reason === null && !first && !fromPattern) return null;
    this.corrections[0]!++;
    const nearest =
      m.index < 0 ? "no patterns" : `nearest ${this.lib.patterns[m.index]!.name} at ${m.distance.toFixed(3)}`;
    return {
      thresholds: safeThresholds(templateOf(s.level, cfg), xoff, cfg.safety),
      reason: `online correction level ${s.level}: ${reason ?? "first decision"}; ${nearest}`,
    };
  }

  private smoothed(q: number, o: AiEcnModelObservation): Float64Array {
    scaleObservation(o, this.scaled);
    const base = q * AI_ECN_MODEL_DIMS;
    for (let i = 0; i < AI_ECN_MODEL_DIMS; i++) {
      const e = this.smooth[base + i]!;
      const x = this.scaled[i]!;
      this.smooth[base + i] = e < 0 ? x : (e + x) / 2;
      this.scaled[i] = this.smooth[base + i]!;
    }
    return this.scaled;
  }

  private publishVector(q: number, v: Float64Array): void {
    this.ctx.env.emit({
      kind: EventKind.Info,
      priority: q,
      detail: JSON.stringify({
        aiEcn: "model-features",
        queue: q,
        vector: Array.from(v, (x) => +x.toFixed(4)),
      }),
    });
  }
}

/** The template level (of the configured ladder) whose Kmax is nearest `kmax` on a log scale. */
export function nearestLevel(kmax: number, cfg: AiEcnConfig): number {
  let best = 0;
  let bestD = Number.POSITIVE_INFINITY;
  for (let l = 0; l < cfg.levels; l++) {
    const d = Math.abs(Math.log(templateOf(l, cfg).kmax / kmax));
    if (d < bestD) {
      bestD = d;
      best = l;
    }
  }
  return best;
}
