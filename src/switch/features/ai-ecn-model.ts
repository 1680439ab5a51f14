// AI ECN's model mode, the inference, pure: from what a switch observes on one queue over a period to
// the ECN thresholds of the known traffic pattern it resembles, or to nothing (no pattern close enough:
// the switch falls back to the online correction of ai-ecn-controller.ts). H3C describes its AI ECN as
// recognising known traffic patterns with a model trained offline and inferring the thresholds, with
// online correction where no model fits (H3C RoCE overview §1.4.3.5). The models here are a nearest-
// centroid classifier over a small feature vector: each known pattern is the mean feature vector the
// switches saw under it in the simulator, with the threshold set that scored best for it
// (scripts/train-ai-ecn-model.mjs; the parameters in ai-ecn-models.ts say how they were made). H3C's
// neural-network mode is not built: this is a nearest-centroid model, not a network.
//
// The features are chosen to describe the traffic rather than the thresholds' own effect on it (a queue's
// depth, its marking and PFC all change with the thresholds the model sets, and would let the model chase
// its own output):
//   elephantFlows  persistent flows on the port of the queue that sent the most in the period (the incast
//                  degree estimate; a flow counts while its leaky activity streak lasts, so senders held
//                  back by PFC for a period or two still count)
//   activeFlows    flows seen on that port within the flow table's aging window (ten periods)
//   elephantShare  share of the queue's bytes carried by elephants (smoothed)
//   load           demand on that port: bytes that arrived in the period plus the backlog left, over
//                  what its line rate carries in a period (above 1 under incast)
// Flow counts enter as log2(1 + n) / log2(1 + 64) (capped at 1), so 4 → 8 senders weighs like 8 → 16;
// the load as load / 2 (capped at 1); the share is a fraction already. Distance is Euclidean in that
// unit cube.

export const AI_ECN_MODEL_FEATURES = ["elephantFlows", "activeFlows", "elephantShare", "load"] as const;
export const AI_ECN_MODEL_DIMS = AI_ECN_MODEL_FEATURES.length;

/** What the switch observed on one queue in a period (raw, before scaling). */
export interface AiEcnModelObservation {
  readonly elephantFlows: number;
  readonly activeFlows: number;
  readonly elephantShare: number;
  readonly load: number;
}

export interface AiEcnPattern {
  readonly name: string;
  /** The pattern's mean scaled feature vector (AI_ECN_MODEL_FEATURES order). */
  readonly centroid: readonly number[];
  /** The threshold set trained for it (bytes, probability). */
  readonly kmin: number;
  readonly kmax: number;
  readonly pmax: number;
}

export interface AiEcnModelLibrary {
  readonly features: readonly string[];
  /** The distance bound the training suggests (the config's default `maxDistance`). */
  readonly maxDistance: number;
  readonly patterns: readonly AiEcnPattern[];
}

export interface AiEcnMatch {
  /** Index of the nearest pattern (−1: the library is empty). */
  readonly index: number;
  readonly distance: number;
  /** Within the bound: the pattern's thresholds apply. */
  readonly matched: boolean;
}

const FLOW_SCALE = Math.log2(1 + 64);
const unit = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** The scaled vector of an observation, written into `out` (length AI_ECN_MODEL_DIMS); returns `out`. */
export function scaleObservation(
  o: AiEcnModelObservation,
  out: number[] | Float64Array,
): number[] | Float64Array {
  out[0] = unit(Math.log2(1 + Math.max(0, o.elephantFlows)) / FLOW_SCALE);
  out[1] = unit(Math.log2(1 + Math.max(0, o.activeFlows)) / FLOW_SCALE);
  out[2] = unit(o.elephantShare);
  out[3] = unit(o.load / 2);
  return out;
}

/** Euclidean distance between a scaled vector and a centroid. */
export function patternDistance(v: ArrayLike<number>, centroid: readonly number[]): number {
  let d = 0;
  for (let i = 0; i < AI_ECN_MODEL_DIMS; i++) {
    const x = (v[i] ?? 0) - (centroid[i] ?? 0);
    d += x * x;
  }
  return Math.sqrt(d);
}

/**
 * The nearest pattern to the scaled vector `v`, and whether it lies within `maxDistance` (strictly:
 * `maxDistance` 0 never matches, which turns the library off). Ties go to the earlier pattern.
 */
export function matchPattern(v: ArrayLike<number>, lib: AiEcnModelLibrary, maxDistance: number): AiEcnMatch {
  let index = -1;
  let distance = Number.POSITIVE_INFINITY;
  for (let i = 0; i < lib.patterns.length; i++) {
    const d = patternDistance(v, lib.patterns[i]!.centroid);
    if (d < distance) {
      distance = d;
      index = i;
    }
  }
  return { index, distance, matched: index >= 0 && distance < maxDistance };
}

/** Checks a library's shape (the committed one and any a test builds); throws saying what is wrong. */
export function checkLibrary(lib: AiEcnModelLibrary, where: string): void {
  if (lib.features.join(",") !== AI_ECN_MODEL_FEATURES.join(","))
    throw new Error(
      `${where}: features ${lib.features.join(",")}, expected ${AI_ECN_MODEL_FEATURES.join(",")}`,
    );
  if (!(lib.maxDistance >= 0)) throw new Error(`${where}: maxDistance must be a number >= 0`);
  for (const p of lib.patterns) {
    if (p.centroid.length !== AI_ECN_MODEL_DIMS || p.centroid.some((x) => !(x >= 0 && x <= 1)))
      throw new Error(`${where}: pattern ${p.name}: centroid needs ${AI_ECN_MODEL_DIMS} values in 0..1`);
    if (!(p.kmin > 0 && p.kmin <= p.kmax && p.pmax > 0 && p.pmax <= 1))
      throw new Error(`${where}: pattern ${p.name}: needs 0 < kmin <= kmax and 0 < pmax <= 1`);
  }
}
