// The threshold tuner's search: seeded random candidates over ECN Kmin/Kmax/Pmax (the RoCE queue), a static
// PFC XOFF and the main DCQCN parameters (g, R_AI, the rate-increase timer), the three threshold presets
// beside them, the Pareto front of goodput against p99 FCT, and the recommended point on it as a profile
// snippet. Pure: evaluate.ts runs the candidates, tune.ts spreads them over worker threads.

import { createRandom } from "../../device/prng.js";
import { formatDuration, formatRate, formatSize } from "../../device/units.js";
import type { NicSettings, SwitchSettings } from "../../scenario/schema.js";
import type { SettingsChange } from "../../scenario/settings-layers.js";

/** The queue the tuner sets ECN on: RoCE data's (DSCP 26 → priority 3 → queue 3 in the default maps). */
export const ROCE_QUEUE = "3";

export interface Candidate {
  /** "aggressive" | "balanced" | "conservative" for the presets, "t<N>" for searched points. */
  readonly name: string;
  readonly preset: boolean;
  readonly kmin: number;
  readonly kmax: number;
  readonly pmax: number;
  readonly xoff: number;
  /** DCQCN; null: the scenario's own (the presets keep the hosts as the scenario sets them). */
  readonly dcqcn: { readonly g: number; readonly rai: number; readonly rpTimer: number } | null;
}

export interface TuneResult {
  readonly candidate: Candidate;
  /** Every delivered byte over the trial's span (report.ts): unfinished flows' bytes count. */
  readonly goodputBps: number;
  readonly deliveredBytes: number;
  /** p99 FCT over every flow, an unfinished one counted as its time to the trial's end (flow-stats.ts). */
  readonly p99FctNs: number;
  /** p99FctNs is only a lower bound: an unfinished flow reached its rank. */
  readonly p99AtLeast: boolean;
  readonly pauseFrames: number;
  readonly cnpSent: number;
  readonly losslessDrops: number;
  readonly flowsCompleted: number;
  readonly flowsTotal: number;
}

/** The DCQCN tuning article's threshold table (scenario/profiles.ts has the same as switch profiles). */
export const PRESETS: readonly Candidate[] = [
  { name: "aggressive", preset: true, kmin: 50_000, kmax: 200_000, pmax: 1, xoff: 100_000, dcqcn: null },
  { name: "balanced", preset: true, kmin: 150_000, kmax: 1_500_000, pmax: 1, xoff: 3_000_000, dcqcn: null },
  {
    name: "conservative",
    preset: true,
    kmin: 500_000,
    kmax: 3_000_000,
    pmax: 1,
    xoff: 6_000_000,
    dcqcn: null,
  },
];

/** XON this far below XOFF, as the presets pair them (100/17 KB, 3000/500 KB, 6000/1000 KB). */
const RESUME_FRACTION = 1 / 6;

function logUniform(r: () => number, lo: number, hi: number): number {
  return Math.exp(Math.log(lo) + r() * (Math.log(hi) - Math.log(lo)));
}

/** Two significant digits: thresholds people can write down. */
function nice(v: number): number {
  return Number(v.toPrecision(2));
}

/** `n` searched candidates, the same for the same seed. */
export function searchCandidates(seed: number, n: number): Candidate[] {
  const r = createRandom(seed, "tune").next;
  const out: Candidate[] = [];
  for (let i = 0; i < n; i++) {
    const kmin = nice(logUniform(r, 20_000, 800_000));
    const kmax = nice(kmin * logUniform(r, 2, 20));
    out.push({
      name: `t${i + 1}`,
      preset: false,
      kmin,
      kmax,
      pmax: nice(logUniform(r, 0.05, 1)),
      xoff: nice(logUniform(r, 50_000, 8_000_000)),
      dcqcn: {
        g: nice(logUniform(r, 1 / 1024, 1 / 16)),
        rai: nice(logUniform(r, 5e6, 200e6)),
        rpTimer: nice(logUniform(r, 50_000, 900_000)),
      },
    });
  }
  return out;
}

function switchSettings(c: Candidate): SwitchSettings {
  return {
    ecn: { queues: { [ROCE_QUEUE]: { kmin: c.kmin, kmax: c.kmax, pmax: c.pmax } } },
    pfc: { xoff: c.xoff, resumeOffset: Math.round(c.xoff * RESUME_FRACTION) },
  };
}

function hostSettings(c: Candidate): NicSettings | null {
  return c.dcqcn === null ? null : { dcqcn: { g: c.dcqcn.g, rai: c.dcqcn.rai, rpTimer: c.dcqcn.rpTimer } };
}

/** The scenario's overrides with the candidate on top. */
export function withCandidate(base: SettingsChange, c: Candidate): SettingsChange {
  const hosts = hostSettings(c);
  return {
    ...base,
    switches: [...base.switches, switchSettings(c)],
    hosts: hosts === null ? base.hosts : [...base.hosts, hosts],
  };
}

/** Every flow of the trial completed within its run. */
export function complete(r: TuneResult): boolean {
  return r.flowsCompleted === r.flowsTotal;
}

/**
 * What the trials are ranked on. "complete": some trial without lossless drops completed every flow, and
 * only such trials are ranked (goodput against p99 FCT): a trial that left flows unfinished has an FCT that
 * is only a lower bound, and must not win over one whose flows all finished. "delivered": none completed
 * every flow, but some completed at least one: those are ranked by the bytes they delivered (their goodput,
 * over the same span to the end of the run). "none": no trial completed a single flow: nothing to rank.
 */
export type RankingBasis = "complete" | "delivered" | "none";

export function rankingBasis(results: readonly TuneResult[]): RankingBasis {
  const ok = results.filter(feasible);
  if (ok.some(complete)) return "complete";
  return ok.some((r) => r.flowsCompleted > 0) ? "delivered" : "none";
}

/** Why the ranking is what it is, for the command's output; "" when every ranked trial completed. */
export function rankingWhy(results: readonly TuneResult[], durationNs: number): string {
  const basis = rankingBasis(results);
  const unfinished = results.filter((r) => !complete(r)).length;
  const run = formatDuration(durationNs);
  if (basis === "none")
    return `no trial completed a single flow within ${run}: nothing to recommend; raise --duration (or the scenario's duration)`;
  if (basis === "delivered")
    return `no trial completed all its flows within ${run}: ranked by bytes delivered (p99 FCTs are lower bounds, shown with ≥); raise --duration for a recommendation on completion times`;
  return unfinished > 0
    ? `${unfinished} trial${unfinished === 1 ? "" : "s"} left flows unfinished within ${run}: not ranked, as their FCTs are only lower bounds and a trial that completed every flow is preferred`
    : "";
}

/**
 * The trials the ranking basis admits (no lossless drops; all flows complete when any trial completed
 * them all) that no other beats on both goodput (higher) and p99 FCT (lower).
 */
export function paretoFront(results: readonly TuneResult[]): TuneResult[] {
  const basis = rankingBasis(results);
  if (basis === "none") return [];
  const ok = results.filter(
    (r) => feasible(r) && (basis === "complete" ? complete(r) : r.flowsCompleted > 0),
  );
  const front = ok.filter(
    (a) =>
      !ok.some(
        (b) =>
          b !== a &&
          b.goodputBps >= a.goodputBps &&
          b.p99FctNs <= a.p99FctNs &&
          (b.goodputBps > a.goodputBps || b.p99FctNs < a.p99FctNs),
      ),
  );
  return front.sort((a, b) => a.p99FctNs - b.p99FctNs || b.goodputBps - a.goodputBps);
}

/** A setting that lost lossless packets is no candidate. */
export function feasible(r: TuneResult): boolean {
  return r.losslessDrops === 0;
}

/**
 * The front's point nearest the ideal (best goodput, best p99 of the front), both axes normalised; on a
 * front of trials that left flows unfinished, the one that delivered the most.
 */
export function recommend(front: readonly TuneResult[]): TuneResult | null {
  if (front.length === 0) return null;
  if (!front.every(complete))
    return front.reduce((best, r) => (r.goodputBps > best.goodputBps ? r : best), front[0]!);
  const g = front.map((r) => r.goodputBps);
  const p = front.map((r) => r.p99FctNs);
  const [gLo, gHi, pLo, pHi] = [Math.min(...g), Math.max(...g), Math.min(...p), Math.max(...p)];
  const norm = (v: number, lo: number, hi: number) => (hi > lo ? (v - lo) / (hi - lo) : 0);
  let best = front[0]!;
  let bestD = Number.POSITIVE_INFINITY;
  for (const r of front) {
    const d = Math.hypot(1 - norm(r.goodputBps, gLo, gHi), norm(r.p99FctNs, pLo, pHi));
    if (d < bestD) {
      bestD = d;
      best = r;
    }
  }
  return best;
}

/** The candidate as YAML to paste: a switch profile for a topology, and host settings for a scenario. */
export function profileSnippet(r: TuneResult, scenario: string): string {
  const c = r.candidate;
  const lines = [
    `# rocelab tune ${scenario}: ${c.name}, goodput ${formatRate(r.goodputBps)}b/s, p99 FCT ${r.p99AtLeast ? "≥ " : ""}${formatDuration(r.p99FctNs)},`,
    `# ${r.pauseFrames} pause frames, ${r.cnpSent} CNPs, no lossless drop, ${r.flowsCompleted}/${r.flowsTotal} flows completed.`,
    "# In a topology file (then `profile: tuned` in defaults.switch or on a node):",
    "profiles:",
    "  tuned:",
    `    ecn: { queues: { "${ROCE_QUEUE}": { kmin: ${formatSize(c.kmin)}, kmax: ${formatSize(c.kmax)}, pmax: ${Math.round(c.pmax * 1000) / 10}% } } }`,
    `    pfc: { xoff: ${formatSize(c.xoff)}, resumeOffset: ${formatSize(Math.round(c.xoff * RESUME_FRACTION))} }`,
  ];
  if (c.dcqcn !== null)
    lines.push(
      "# In a scenario's overrides (DCQCN is the NICs'):",
      `hosts: { dcqcn: { g: ${c.dcqcn.g}, rai: ${formatRate(c.dcqcn.rai)}, rpTimer: ${formatDuration(c.dcqcn.rpTimer)} } }`,
    );
  return `${lines.join("\n")}\n`;
}
