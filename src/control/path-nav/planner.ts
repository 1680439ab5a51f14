// Path navigation's path computation: given the traffic matrix (one demand per QP) and every demand's
// equal-cost shortest paths, choose one path per demand so that flows share fabric links as little as
// possible — link-disjoint where the fabric has enough links, otherwise spread evenly.
//
// How: choosing one path per flow to minimise the most-loaded link is the unsplittable multicommodity
// flow problem (NP-hard in general), so we use a greedy placement with local search. Demands are placed
// heaviest first, each on the candidate whose most-loaded link (after adding it) is least loaded (ties:
// the smaller sum of loads, then candidate order). Then local search on the objective (most-loaded link,
// number of links at that load, sum of squared loads), compared lexicographically: move one demand to
// another candidate when that improves the objective; when no single move does, try moving two demands
// at once, one of them on a most-loaded link (this escapes the local minima single moves get stuck in,
// e.g. two flows that must swap spines). Every accepted move strictly lowers the objective, so the
// search ends; it is also capped at 50 rounds. A 1:1 leaf-spine fabric can always carry a permutation
// link-disjointly (König: a bipartite multigraph of degree <= k has a k-edge-colouring, one colour per
// spine); the report gives the most-loaded link achieved, so a shortfall would be visible.

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

const MAX_ROUNDS = 50;

/** Directed switch-to-switch links of a path: every hop but the last (which leaves for the host). */
function links(path: readonly Hop[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < path.length - 1; i++) out.push(`${path[i]!.sw}:${path[i]!.port}`);
  return out;
}

type Objective = readonly [number, number, number];

function better(a: Objective, b: Objective): boolean {
  const eps = 1e-9;
  if (a[0] < b[0] - eps) return true;
  if (a[0] > b[0] + eps) return false;
  if (a[1] !== b[1]) return a[1] < b[1];
  return a[2] < b[2] - eps;
}

export function assignPaths(demands: readonly PlanDemand[]): Assignment {
  const load = new Map<string, number>();
  const linkSets = demands.map((d) => d.candidates.map(links));
  const choice = new Array<number>(demands.length).fill(0);
  const add = (i: number, sign: number): void => {
    const w = demands[i]!.weight * sign;
    for (const l of linkSets[i]![choice[i]!]!) load.set(l, (load.get(l) ?? 0) + w);
  };
  const objective = (): Objective => {
    let max = 0;
    let atMax = 0;
    let squares = 0;
    for (const v of load.values()) {
      squares += v * v;
      if (v > max + 1e-9) {
        max = v;
        atMax = 1;
      } else if (Math.abs(v - max) <= 1e-9 && v > 0) atMax++;
    }
    return [max, atMax, squares];
  };
  const greedy = (i: number): number => {
    const w = demands[i]!.weight;
    let pick = 0;
    let best: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    linkSets[i]!.forEach((ls, c) => {
      let max = 0;
      let sum = 0;
      for (const l of ls) {
        const v = (load.get(l) ?? 0) + w;
        max = Math.max(max, v);
        sum += v;
      }
      if (max < best[0] || (max === best[0] && sum < best[1])) {
        best = [max, sum];
        pick = c;
      }
    });
    return pick;
  };
  const order = demands.map((_, i) => i).sort((a, b) => demands[b]!.weight - demands[a]!.weight || a - b);
  for (const i of order) {
    choice[i] = greedy(i);
    add(i, 1);
  }
  /** Moves demand i to candidate c (keeping the load map in step). */
  const move = (i: number, c: number): void => {
    add(i, -1);
    choice[i] = c;
    add(i, 1);
  };
  const singleMove = (): boolean => {
    let improved = false;
    for (const i of order) {
      for (let c = 0; c < linkSets[i]!.length; c++) {
        const was = choice[i]!;
        if (c === was) continue;
        const before = objective();
        move(i, c);
        if (better(objective(), before)) improved = true;
        else move(i, was);
      }
    }
    return improved;
  };
  const pairMove = (): boolean => {
    const [max] = objective();
    for (const i of order) {
      if (!linkSets[i]![choice[i]!]!.some((l) => Math.abs((load.get(l) ?? 0) - max) <= 1e-9)) continue;
      for (const j of order) {
        if (j === i) continue;
        const wasI = choice[i]!;
        const wasJ = choice[j]!;
        const before = objective();
        for (let ci = 0; ci < linkSets[i]!.length; ci++) {
          for (let cj = 0; cj < linkSets[j]!.length; cj++) {
            if (ci === wasI && cj === wasJ) continue;
            move(i, ci);
            move(j, cj);
            if (better(objective(), before)) return true;
            move(j, wasJ);
            move(i, wasI);
          }
        }
      }
    }
    return false;
  };
  let passes = 0;
  while (passes < MAX_ROUNDS && (singleMove() || pairMove())) passes++;
  const used = [...load.values()].filter((v) => v > 1e-9);
  return {
    choice,
    maxLoad: used.length === 0 ? 0 : Math.max(...used),
    meanLoad: used.length === 0 ? 0 : used.reduce((a, b) => a + b, 0) / used.length,
    passes,
  };
}
