// `sim-vs-ns3 --buffers … --cc …`: rocelab's simulator against HPCC's ns-3 on outcomes rather than CPU
// time. Every case (ns3-cases.ts) runs under each seed in both simulators (HPCC's in a process of its own,
// beside ours), once per MMU accounting of ours; the tables give each metric's mean over the seeds, its
// range, and ours over HPCC's. Without `--ns3` only our side is printed.

import { writeFileSync } from "node:fs";
import type { MmuMode } from "../../src/switch/mmu.js";
import { fmt, formatTable, median } from "./common.js";
import { type Ns3Flow, type Ns3Outcome, runNs3 } from "./hpcc-ns3.js";
import type { Ns3FlowResult } from "./hpcc-ns3-output.js";
import {
  type AckClass,
  buildCase,
  type CcMode,
  caseName,
  type EcmpAlgorithm,
  FAT_TREE_ARRIVALS_NS,
  FAT_TREE_DURATION_NS,
  type FidelityCase,
  type FlowOutcome,
  type RunOutcome,
  runOurs,
} from "./ns3-cases.js";
import { byteScale, wireScale } from "./ns3-cc.js";
import { pairedRatioCell, ratioCell, spreadCell } from "./ns3-fidelity-cells.js";
import { POOLED_NOTE, pooledRows } from "./ns3-pooled.js";

export { meansDiffer, pairedRatioCell, ratioCell, spreadCell } from "./ns3-fidelity-cells.js";

/** Size buckets of the fat tree's slowdowns, bytes: [from, to). */
export const BUCKETS: readonly (readonly [number, number])[] = [
  [0, 100_000],
  [100_000, 1_000_000],
  [1_000_000, 10_000_000],
  [10_000_000, Number.POSITIVE_INFINITY],
];

/** One run's metrics; an unfinished flow's FCT is +∞ (counted, never left out). */
export interface Metrics {
  readonly fctP50: number;
  readonly fctMax: number;
  readonly queuePeak: number;
  readonly pauses: number;
  /** Pauses of at least 20, 40 and 80 µs (absent in runs saved before it). */
  readonly longPauses?: readonly number[];
  readonly cnps: number;
  /** CNPs per data packet (packet counts differ: 1,024 bytes of payload here, 1,000 in HPCC's). */
  readonly cnpFraction: number;
  readonly drops: number;
  readonly done: number;
  readonly total: number;
  /** Fat tree: median and 99th-percentile FCT slowdown per size bucket (NaN: no flow in it). */
  readonly buckets: readonly { readonly p50: number; readonly p99: number; readonly n: number }[];
  /**
   * Fat tree: every flow's slowdown per size bucket, ascending (+∞: unfinished), kept so that a saved run
   * can pool the flows of all seeds (`--pooled`). Absent in runs saved before it.
   */
  readonly slowdowns?: readonly (readonly number[])[];
}

/** The value at quantile q (nearest rank) of an ascending list. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function metricsOf(o: RunOutcome): Metrics {
  const fct = o.flows.map((f) => f.fctNs ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const slowdowns = BUCKETS.map(([lo, hi]) =>
    o.flows
      .filter((f) => f.bytes >= lo && f.bytes < hi)
      .map((f) => (f.fctNs === null ? Number.POSITIVE_INFINITY : Math.max(1, f.fctNs / f.idealNs)))
      .sort((a, b) => a - b),
  );
  const buckets = slowdowns.map((s) => ({ p50: quantile(s, 0.5), p99: quantile(s, 0.99), n: s.length }));
  return {
    fctP50: fct.length === 0 ? Number.NaN : median(fct),
    fctMax: fct.at(-1) ?? Number.NaN,
    queuePeak: o.queuePeakBytes,
    pauses: o.pauses,
    ...(o.longPauses !== undefined ? { longPauses: o.longPauses } : {}),
    cnps: o.cnps,
    cnpFraction: o.dataPackets > 0 ? o.cnps / o.dataPackets : 0,
    drops: o.drops,
    done: o.flows.filter((f) => f.fctNs !== null).length,
    total: o.flows.length,
    buckets,
    slowdowns,
  };
}

/**
 * HPCC's run in our terms. Its FCT file lists the flows that completed; each input flow is matched to one
 * of them by its hosts and size (in order of start), and a flow without one is unfinished.
 */
export function ns3Outcome(o: Ns3Outcome, input: readonly Ns3Flow[]): RunOutcome {
  const done = new Map<string, Ns3FlowResult[]>();
  for (const f of [...o.flows].sort((x, y) => x.startNs - y.startNs)) {
    const k = `${f.src}>${f.dst}:${f.bytes}`;
    done.set(k, [...(done.get(k) ?? []), f]);
  }
  const flows: FlowOutcome[] = input.map((f) => {
    const r = done.get(`${f.src}>${f.dst}:${f.bytes}`)?.shift();
    return { bytes: f.bytes, fctNs: r?.fctNs ?? null, idealNs: r?.idealNs ?? 1 };
  });
  return {
    flows,
    queuePeakBytes: o.trace?.queuePeakBytes ?? Number.NaN,
    pauses: o.pauses,
    ...(o.longPauses !== undefined ? { longPauses: o.longPauses } : {}),
    cnps: o.trace?.cnps ?? Number.NaN,
    drops: o.drops,
    // HPCC packs 1,000 bytes of payload per packet.
    dataPackets: o.flows.reduce((a, f) => a + Math.ceil(f.bytes / 1000), 0),
    cpuMs: o.cpuMs,
  };
}

export interface CaseResult {
  readonly case: FidelityCase;
  readonly name: string;
  /** Per seed. */
  readonly ns3: readonly Metrics[] | null;
  readonly ours: Readonly<Record<string, readonly Metrics[]>>;
}

/** What `--json` writes and `--from` reads back. */
export interface SavedFidelity {
  readonly seeds: readonly number[];
  readonly acks: AckClass;
  /** Our byte settings' factor (`--byte-scale`: BYTE_SCALE); 1 or absent: as configured. */
  readonly byteScale?: number;
  /** `--scale-flows`: our fat-tree flows sent wireScale(cc) × HPCC's bytes; absent: the same bytes. */
  readonly scaleFlows?: boolean;
  /** `--ecmp`: our switches' hash; absent: the default. */
  readonly ecmp?: EcmpAlgorithm;
  readonly results: readonly CaseResult[];
}

/** Prints the tables of a saved run again (`--from FILE`). */
export function reprintFidelity(
  text: string,
  file: string,
  o: Pick<FidelityOptions, "markdown" | "print" | "pooled">,
): void {
  const saved = JSON.parse(text) as Partial<SavedFidelity>;
  // JSON has no +∞ or NaN: --json writes an unfinished flow's FCT as "+inf", a figure without data as "nan".
  if (!Array.isArray(saved.seeds) || !Array.isArray(saved.results))
    throw new Error(`${file}: not a saved sim-vs-ns3 run (expected { seeds, acks, results } from --json)`);
  const results = JSON.parse(text, (_k, v) =>
    v === "+inf" ? Number.POSITIVE_INFINITY : v === "nan" ? Number.NaN : v,
  ).results as CaseResult[];
  printFidelity(results, {
    ...o,
    seeds: saved.seeds,
    acks: saved.acks ?? "data",
    byteScale: saved.byteScale ?? 1,
    scaleFlows: saved.scaleFlows === true,
    ...(saved.ecmp !== undefined ? { ecmp: saved.ecmp } : {}),
    cases: [],
    mmus: [],
  });
}

export interface FidelityOptions {
  readonly cases: readonly FidelityCase[];
  readonly mmus: readonly MmuMode[];
  readonly seeds: readonly number[];
  readonly acks: AckClass;
  /** Multiplies our byte-denominated switch settings (BYTE_SCALE with `--byte-scale`); default 1. */
  readonly byteScale?: number;
  /** Fat tree: our flows carry wireScale(cc) × HPCC's bytes (`--scale-flows`), so each takes its wire time. */
  readonly scaleFlows?: boolean;
  readonly ns3Dir?: string;
  /**
   * `--perturb-starts NS`: instead of HPCC's ns-3, compare with rocelab itself with every other fat-tree
   * flow (incast sender) starting NS later: the figures' own sensitivity to a change no network would notice.
   */
  readonly perturbNs?: number;
  /** Fat tree: the ECMP hash of our switches (`--ecmp`); default: the feature's default, CRC-32. */
  readonly ecmp?: EcmpAlgorithm;
  /** Fat tree: also the quantiles of every seed's flows pooled, with a cluster bootstrap (`--pooled`). */
  readonly pooled?: boolean;
  readonly markdown: boolean;
  readonly json?: string;
  readonly print: (s?: string) => void;
}

/** The cases of `--buffers` × `--cc` × `--senders` (`--same-packets`: HPCC's packet), then the fat tree. */
export function fidelityCases(
  senders: readonly number[],
  buffers: readonly number[],
  ccs: readonly CcMode[],
  fatTree: readonly number[],
  load: number,
  samePackets = false,
  window: { readonly arrivalsNs: number; readonly stopNs: number } = {
    arrivalsNs: FAT_TREE_ARRIVALS_NS,
    stopNs: FAT_TREE_DURATION_NS,
  },
): FidelityCase[] {
  const out: FidelityCase[] = [];
  const same = samePackets ? { samePackets } : {};
  for (const n of senders)
    for (const cc of ccs)
      for (const b of buffers) out.push({ kind: "incast", senders: n, bufferMiB: b, cc, ...same });
  for (const b of fatTree)
    for (const cc of ccs) out.push({ kind: "fat-tree", bufferMiB: b, cc, load, ...window });
  return out;
}

export async function runFidelity(o: FidelityOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of o.cases) {
    const ns3: Metrics[] = [];
    const ours: Record<string, Metrics[]> = Object.fromEntries(o.mmus.map((m) => [m, []]));
    for (const seed of o.seeds) {
      // --byte-scale: the factor of this case's packet (its INT bytes included).
      const scale = (o.byteScale ?? 1) === 1 ? 1 : byteScale(c.cc);
      const flows = o.scaleFlows === true;
      const build = (m: MmuMode, late = 0) => buildCase(c, m, seed, o.acks, scale, flows, late, o.ecmp);
      const first = build(o.mmus[0]!);
      // HPCC's run goes on in its own process while ours run here.
      const theirs: Promise<RunOutcome> | null =
        o.perturbNs !== undefined
          ? Promise.resolve(runOurs(build(o.mmus[0]!, o.perturbNs)))
          : o.ns3Dir === undefined
            ? null
            : runNs3(o.ns3Dir, first.ns3, seed).then((t) => ns3Outcome(t, first.ns3.flows));
      for (const m of o.mmus) ours[m]!.push(metricsOf(runOurs(m === o.mmus[0] ? first : build(m))));
      if (theirs !== null) ns3.push(metricsOf(await theirs));
    }
    const compared = o.ns3Dir !== undefined || o.perturbNs !== undefined;
    const r: CaseResult = { case: c, name: caseName(c), ns3: compared ? ns3 : null, ours };
    results.push(r);
    o.print(`done: ${r.name} (${o.seeds.length} seeds)`);
  }
  if (o.json !== undefined) {
    const saved: SavedFidelity = {
      seeds: o.seeds,
      acks: o.acks,
      byteScale: o.byteScale ?? 1,
      scaleFlows: o.scaleFlows === true,
      ...(o.ecmp !== undefined ? { ecmp: o.ecmp } : {}),
      results,
    };
    const json = JSON.stringify(
      saved,
      (_k, v) =>
        v === Number.POSITIVE_INFINITY ? "+inf" : typeof v === "number" && Number.isNaN(v) ? "nan" : v,
      1,
    );
    writeFileSync(o.json, `${json}\n`);
  }
  printFidelity(results, o);
  return results;
}

interface Column {
  readonly head: string;
  readonly pick: (m: Metrics) => number;
  readonly scale: number;
  readonly digits: number;
}

const INCAST_COLUMNS: readonly Column[] = [
  { head: "FCT p50 µs", pick: (m) => m.fctP50, scale: 1e3, digits: 1 },
  { head: "FCT max µs", pick: (m) => m.fctMax, scale: 1e3, digits: 1 },
  { head: "queue peak KB", pick: (m) => m.queuePeak, scale: 1e3, digits: 0 },
  { head: "pauses", pick: (m) => m.pauses, scale: 1, digits: 0 },
  { head: "CNPs / data pkt", pick: (m) => m.cnpFraction, scale: 1, digits: 3 },
  { head: "lossless drops", pick: (m) => m.drops, scale: 1, digits: 0 },
];

function fatTreeColumns(): Column[] {
  const label = (lo: number, hi: number): string =>
    hi === Number.POSITIVE_INFINITY
      ? `≥ ${lo / 1e6} MB`
      : lo === 0
        ? `< ${hi / 1e3} KB`
        : `${lo / 1e3}K–${hi / 1e3}K`;
  const cols: Column[] = [];
  BUCKETS.forEach(([lo, hi], i) => {
    cols.push({ head: `${label(lo, hi)} p50`, pick: (m) => m.buckets[i]!.p50, scale: 1, digits: 2 });
    cols.push({ head: `${label(lo, hi)} p99`, pick: (m) => m.buckets[i]!.p99, scale: 1, digits: 2 });
  });
  cols.push({ head: "queue peak KB", pick: (m) => m.queuePeak, scale: 1e3, digits: 0 });
  cols.push({ head: "pauses", pick: (m) => m.pauses, scale: 1, digits: 0 });
  cols.push({ head: "lossless drops", pick: (m) => m.drops, scale: 1, digits: 0 });
  return cols;
}

/** "pauses ≥ 40 µs", when every run of these cases counted its pause lengths (older saved runs did not). */
function longPauseColumn(rs: readonly CaseResult[]): Column[] {
  const all = rs.flatMap((r) => [...(r.ns3 ?? []), ...Object.values(r.ours).flat()]);
  if (!all.every((m) => m.longPauses !== undefined)) return [];
  return [{ head: "pauses ≥ 40 µs", pick: (m) => m.longPauses![1]!, scale: 1, digits: 0 }];
}

function table(o: FidelityOptions, header: readonly string[], rows: readonly (readonly string[])[]): string {
  if (!o.markdown) return formatTable(header, rows);
  const line = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((_, i) => (i < 2 ? "---" : "--:"))), ...rows.map(line)].join("\n");
}

function printFidelity(results: readonly CaseResult[], o: FidelityOptions): void {
  const scale = o.byteScale ?? 1;
  if (scale !== 1) {
    const ccs = [...new Set(results.map((r) => r.case.cc))];
    o.print(
      `rocelab's buffer, reserve, headroom, resume offset, Kmin and Kmax × ${ccs.map((cc) => `${fmt(byteScale(cc), 4)} (${cc})`).join(", ")} ` +
        "(--byte-scale: the same wire time as HPCC's bytes)",
    );
  }
  const trees = results.filter((r) => r.case.kind === "fat-tree");
  if (o.scaleFlows === true && trees.length > 0) {
    // Each algorithm's own factor (its INT bytes included: ns3-cc.ts wireScale), as buildFatTree sends.
    const ccs = [...new Set(trees.map((r) => r.case.cc))];
    o.print(
      `rocelab's fat-tree flows send ${ccs.map((cc) => `${fmt(wireScale(cc), 4)} (${cc})`).join(", ")} × HPCC's ` +
        "bytes (--scale-flows: the same wire time); slowdowns bucketed by HPCC's size, over the ideal FCT of what was sent",
    );
  }
  if (o.ecmp !== undefined && trees.length > 0)
    o.print(`rocelab's switches hash ECMP with ${o.ecmp} (--ecmp; HPCC's ns-3 with its own EcmpHash)`);
  for (const kind of ["incast", "fat-tree"] as const) {
    const rs = results.filter((r) => r.case.kind === kind);
    if (rs.length === 0) continue;
    const cols = [...(kind === "incast" ? INCAST_COLUMNS : fatTreeColumns()), ...longPauseColumn(rs)];
    const done = (ms: readonly Metrics[]): string =>
      `${ms.reduce((a, m) => a + m.done, 0)}/${ms.reduce((a, m) => a + m.total, 0)}`;
    o.print();
    o.print(
      `${kind === "incast" ? "Incasts" : "Fat tree (FCT slowdown by flow size)"}: mean over seeds ${o.seeds.join(",")} (min–max)`,
    );
    const rows: string[][] = [];
    // `--perturb-starts`: the reference is rocelab itself, every other flow a few ns late.
    const ref = o.perturbNs === undefined ? "HPCC ns-3" : `rocelab, odd flows +${o.perturbNs} ns`;
    for (const r of rs) {
      if (r.ns3 !== null)
        rows.push([
          r.name,
          ref,
          done(r.ns3),
          ...cols.map((c) => spreadCell(r.ns3!.map(c.pick), c.scale, c.digits)),
        ]);
      for (const [m, ms] of Object.entries(r.ours))
        rows.push([
          r.name,
          `rocelab, mmu ${m}`,
          done(ms),
          ...cols.map((c) => spreadCell(ms.map(c.pick), c.scale, c.digits)),
        ]);
    }
    o.print(table(o, ["case", "simulator", "flows done", ...cols.map((c) => c.head)], rows));
    if (rs.some((r) => r.ns3 === null)) continue;
    o.print();
    // A fat-tree seed is one flow list run by both simulators: its ratio is paired. An incast seed only
    // draws each simulator's random numbers, so there the means are compared.
    const paired = kind === "fat-tree";
    o.print(
      paired
        ? `rocelab over ${o.perturbNs === undefined ? "HPCC's ns-3" : ref}, seed by seed on the same flows: the mean of the seeds' ratios and its ` +
            "95 % interval (* the interval leaves out 1):"
        : `rocelab over ${o.perturbNs === undefined ? "HPCC's ns-3" : ref} (ratio of the means; * the means differ by more than two standard ` +
            "errors of their difference: more than the seeds' spread explains; runs without congestion " +
            "control do not vary with the seed, so any difference there is marked):",
    );
    const cell = paired ? pairedRatioCell : ratioCell;
    const ratios: string[][] = [];
    for (const r of rs)
      for (const [m, ms] of Object.entries(r.ours))
        ratios.push([r.name, `mmu ${m}`, ...cols.map((c) => cell(ms.map(c.pick), r.ns3!.map(c.pick)))]);
    o.print(table(o, ["case", "rocelab", ...cols.map((c) => c.head)], ratios));
    if (paired && o.pooled === true) {
      o.print();
      o.print(POOLED_NOTE);
      const heads = cols.slice(0, 2 * BUCKETS.length).map((c) => c.head);
      o.print(table(o, ["case", "rocelab", ...heads], pooledRows(rs, BUCKETS.length)));
    }
  }
}
