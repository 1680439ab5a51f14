// Path navigation's path computation: given the traffic matrix (one demand per QP) and every demand's
// equal-cost shortest paths, choose one path per demand so that flows share fabric links as little as
// possible — link-disjoint where the fabric has enough links, otherwise spread evenly.
//
// How: choosing one path per flow to minimise the most-loaded link is the unsplittable multicommodity
// flow problem (NP-hard in general), so we use the usual greedy heuristic with local improvement: place
// demands heaviest first, each on the candidate whose most-loaded link (after adding it) is least loaded,
// ties broken by the sum of loads on its links and then by candidate order; then repeat passes that lift
// each demand out and put it back on its best candidate, until a pass changes nothing (or 20 passes).
// Each pass never raises the objective (a demand moves only to a strictly better candidate), so it ends.
// On a 1:1 leaf-spine fabric with a permutation this finds link-disjoint paths (one flow per uplink) in
// every case we tried; the report gives the achieved most-loaded link so a shortfall is visible.

import type { Hop } from "./fabric-graph.js";

export interface PlanDemand {
  /** Candidate paths (at least one). */
  readonly candidates: readonly (readonly Hop[])[];
  /** Relative size (bytes); equal for a collective's flows. */
  readonly weight: number;
}

export interface Assignment {
  /** Index of the chosen candidate per demand. */
  readonly choice: readonly number[];
  /** Highest and mean load over the switch-to-switch directed links carrying something (weight units). */
  readonly maxLoad: number;
  readonly meanLoad: number;
  readonly passes: number;
}

const MAX_PASSES = 20;

/** Directed switch-to-switch links of a path: every hop but the last (which leaves for the host). */
function links(path: readonly Hop[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < path.length - 1; i++) out.push(`${path[i]!.sw}:${path[i]!.port}`);
  return out;
}

export function assignPaths(demands: readonly PlanDemand[]): Assignment {
  const load = new Map<string, number>();
  const linkSets = demands.map((d) => d.candidates.map(links));
  const add = (ls: readonly string[], w: number): void => {
    for (const l of ls) load.set(l, (load.get(l) ?? 0) + w);
  };
  const score = (ls: readonly string[], w: number): [number, number] => {
    let max = 0;
    let sum = 0;
    for (const l of ls) {
      const v = (load.get(l) ?? 0) + w;
      if (v > max) max = v;
      sum += v;
    }
    return [max, sum];
  };
  const best = (i: number): number => {
    const d = demands[i]!;
    let pick = 0;
    let bestScore: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    linkSets[i]!.forEach((ls, c) => {
      const s = score(ls, d.weight);
      if (s[0] < bestScore[0] || (s[0] === bestScore[0] && s[1] < bestScore[1])) {
        bestScore = s;
        pick = c;
      }
    });
    return pick;
  };
  const order = demands.map((_, i) => i).sort((a, b) => demands[b]!.weight - demands[a]!.weight || a - b);
  const choice = new Array<number>(demands.length).fill(0);
  for (const i of order) {
    choice[i] = best(i);
    add(linkSets[i]![choice[i]!]!, demands[i]!.weight);
  }
  let passes = 0;
  for (let changed = true; changed && passes < MAX_PASSES; passes++) {
    changed = false;
    for (const i of order) {
      const w = demands[i]!.weight;
      const current = linkSets[i]![choice[i]!]!;
      add(current, -w);
      const before = score(current, w);
      const c = best(i);
      const after = score(linkSets[i]![c]!, w);
      if (c !== choice[i] && (after[0] < before[0] || (after[0] === before[0] && after[1] < before[1]))) {
        choice[i] = c;
        changed = true;
      }
      add(linkSets[i]![choice[i]!]!, w);
    }
  }
  const used = [...load.values()].filter((v) => v > 0);
  return {
    choice,
    maxLoad: used.length === 0 ? 0 : Math.max(...used),
    meanLoad: used.length === 0 ? 0 : used.reduce((a, b) => a + b, 0) / used.length,
    passes,
  };
}
