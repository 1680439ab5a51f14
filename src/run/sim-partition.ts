// How a parallel simulator run (sim-parallel.ts) splits a fabric over its workers: a partition of the
// topology's devices, made by a fixed rule from the topology alone (so a run is reproducible and the rule
// is documented in docs/parallel-sim.md):
//
//   1. Links that must not be cut join their two ends: a link with injected loss (its loss draws are one
//      random stream, shared by both directions, so both ends must be in one worker to draw them in the
//      single-threaded order), and a link whose delay is not a whole number of nanoseconds of at least 1
//      (a cut link's delay is the workers' lookahead).
//   2. A device weighs what simulating it costs: a switch its number of ports (what it forwards grows
//      with them), a host HOST_PORT_WEIGHT per port (its NIC builds, checks and acknowledges what a
//      switch port only forwards; docs/parallel-sim.md has the measurement).
//   3. Greedy graph growing (Karypis and Kumar, "A fast and high quality multilevel scheme for
//      partitioning irregular graphs", SIAM J. Sci. Comput. 20(1), 1998, section 4.2 "GGGP"): each
//      partition but the last starts from the unassigned group with the fewest links (in topology order
//      among equals: a host, the edge of the fabric) and takes, one at a time, the adjacent group whose
//      links into the partition outnumber its links to the rest by the most, until it holds its share of
//      the weight; the last partition takes what is left.
//
// The lookahead is the smallest delay among the cut links: a frame sent at t crosses to another worker no
// sooner than t + lookahead, so the workers can simulate that long apart without waiting for each other.

import { NodeKind, type Topology } from "../scenario/topology.js";

export interface Partitioning {
  /** Number of partitions (at most the number asked for: never an empty one). */
  readonly parts: number;
  /** Device name -> its partition, 0-based. */
  readonly of: ReadonlyMap<string, number>;
  /** Smallest delay of a cut link, ns (Infinity when nothing is cut). */
  readonly lookaheadNs: number;
  /** Topology links cut. */
  readonly cutLinks: number;
  /** Weight (ports) of each partition. */
  readonly weights: readonly number[];
}

/**
 * A host's weight per port against a switch port's 1, measured (docs/parallel-sim.md, "The partition
 * rule"): a host costs 2.6 switch ports of simulation on the k = 8 fat tree and 1.9 on the 64:1 incast.
 * With 2.5 the fat tree's 10 ms split into 17.1 / 16.9 s of CPU (15.5 / 18.4 s counting a host as 1 port).
 */
export const HOST_PORT_WEIGHT = 2.5;

/** What simulating a device costs, in switch ports (rule 2). */
export function deviceWeight(node: Topology["nodes"][number]): number {
  const ports = Math.max(1, node.ports.length);
  return node.kind === NodeKind.Host ? HOST_PORT_WEIGHT * ports : ports;
}

/** A link the partition may cut: its delay is a whole number of nanoseconds, at least 1, and it loses nothing. */
function cuttable(link: Topology["links"][number]): boolean {
  return Number.isInteger(link.delayNs) && link.delayNs >= 1 && !(link.lossRate ?? 0);
}

/** Splits `topo` into at most `parts` partitions (the rule above). */
export function partitionTopology(topo: Topology, parts: number): Partitioning {
  if (!Number.isInteger(parts) || parts < 1)
    throw new Error(`workers must be a whole number >= 1, not ${parts}`);
  const names = topo.nodes.map((n) => n.name);
  const index = new Map(names.map((n, i) => [n, i]));
  // 1. Groups: union-find over the links that must stay whole.
  const up = names.map((_, i) => i);
  const find = (i: number): number => {
    while (up[i] !== i) {
      up[i] = up[up[i]!]!;
      i = up[i]!;
    }
    return i;
  };
  for (const l of topo.links) {
    if (cuttable(l)) continue;
    const a = find(index.get(l.a.node)!);
    const b = find(index.get(l.b.node)!);
    if (a !== b) up[Math.max(a, b)] = Math.min(a, b);
  }
  const groupOf = names.map((_, i) => find(i));
  const groups = [...new Set(groupOf)].sort((a, b) => a - b);
  const weight = new Map<number, number>(groups.map((g) => [g, 0]));
  topo.nodes.forEach((n, i) => {
    weight.set(groupOf[i]!, weight.get(groupOf[i]!)! + deviceWeight(n));
  });
  // Links between groups, counted per pair.
  const adj = new Map<number, Map<number, number>>(groups.map((g) => [g, new Map()]));
  for (const l of topo.links) {
    const a = groupOf[index.get(l.a.node)!]!;
    const b = groupOf[index.get(l.b.node)!]!;
    if (a === b) continue;
    adj.get(a)!.set(b, (adj.get(a)!.get(b) ?? 0) + 1);
    adj.get(b)!.set(a, (adj.get(b)!.get(a) ?? 0) + 1);
  }
  // 3. Greedy graph growing.
  const part = new Map<number, number>();
  let left = [...weight.values()].reduce((s, w) => s + w, 0);
  const weights: number[] = [];
  const n = Math.min(parts, groups.length);
  let used = 0;
  for (let p = 0; p < n - 1; p++) {
    const free = groups.filter((g) => !part.has(g));
    if (free.length === 0) break;
    used = p + 1;
    const target = left / (n - p);
    let w = 0;
    const seed = minBy(free, (g) => sumLinks(adj.get(g)!));
    part.set(seed, p);
    w += weight.get(seed)!;
    while (w < target) {
      const frontier = groups.filter(
        (g) => !part.has(g) && [...adj.get(g)!.keys()].some((h) => part.get(h) === p),
      );
      const pool = frontier.length > 0 ? frontier : groups.filter((g) => !part.has(g));
      if (pool.length === 0) break;
      const pick = minBy(pool, (g) => {
        let inside = 0;
        let outside = 0;
        for (const [h, c] of adj.get(g)!) {
          if (part.get(h) === p) inside += c;
          else if (!part.has(h)) outside += c;
        }
        return outside - inside;
      });
      part.set(pick, p);
      w += weight.get(pick)!;
    }
    weights.push(w);
    left -= w;
  }
  if (groups.some((g) => !part.has(g))) {
    for (const g of groups) if (!part.has(g)) part.set(g, used);
    weights.push(left);
    used++;
  }
  const of = new Map(names.map((name, i) => [name, part.get(groupOf[i]!)!]));
  let lookaheadNs = Number.POSITIVE_INFINITY;
  let cutLinks = 0;
  for (const l of topo.links)
    if (of.get(l.a.node) !== of.get(l.b.node)) {
      cutLinks++;
      lookaheadNs = Math.min(lookaheadNs, l.delayNs);
    }
  return { parts: used, of, lookaheadNs, cutLinks, weights };
}

function sumLinks(m: ReadonlyMap<number, number>): number {
  let s = 0;
  for (const c of m.values()) s += c;
  return s;
}

/** The first of `xs` (they are in topology order) with the smallest `f`. */
function minBy(xs: readonly number[], f: (x: number) => number): number {
  let best = xs[0]!;
  let bestV = f(best);
  for (let i = 1; i < xs.length; i++) {
    const v = f(xs[i]!);
    if (v < bestV) {
      best = xs[i]!;
      bestV = v;
    }
  }
  return best;
}
