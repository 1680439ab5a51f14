// Sim vs live: the same scenario in the virtual-time simulator (once: it is deterministic) and on the live
// lab (several times: it is not), side by side. What it measures is how far the live lab's timing — Node
// timers, a shared CPU, the dilated clock — moves the outcome away from the exact run of the same device
// code. Nothing passes or fails; docs/fidelity.md explains the figures.
//
//   npm run bench -- fidelity                         both scenarios, 3 live runs each at dilation 1000 (root)
//   npm run bench -- fidelity --runs 5 --dilation 1000,5000
//   npm run bench -- fidelity --scenario my.yaml --json out/fid.json

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type { TopLevelSpec } from "vega-lite";
import { DEFAULT_CLOCK_MODE, parseClockMode } from "../../src/lab/live/clock-plan.js";
import { distPath } from "../../src/lab/live/paths.js";
import { renderSvg } from "../../src/report/plots.js";
import type { Report } from "../../src/report/report.js";
import { runScenarioLive } from "../../src/run/run-live.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { writeNewFile } from "../../src/runtime/realtime/safe-files.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";
import { type BenchMain, describeMachine, fmt, formatTable, isMain, runAsScript } from "./common.js";

/** Benchmark outputs are rewritten run after run: replaced by rename, never written through a link. */
const REPLACE = { force: true } as const;

const DEFAULT_SCENARIOS = [
  "docs/experiments/fidelity/incast-dcqcn.yaml",
  "docs/experiments/fidelity/incast-pfc.yaml",
] as const;

/** One figure of a report, and how to print it. */
interface Metric {
  readonly name: string;
  readonly value: (r: Report) => number;
  readonly digits: number;
}

/** From the first flow's start to the last flow's end, ns (NaN when a flow did not finish). */
function incastSpan(r: Report): number {
  if (r.flows.length === 0 || r.flows.some((f) => f.endNs === null)) return Number.NaN;
  return Math.max(...r.flows.map((f) => f.endNs!)) - Math.min(...r.flows.map((f) => f.startNs));
}

/** Spread between the fastest and the slowest flow's goodput, as a fraction of the mean (fairness). */
function goodputSpread(r: Report): number {
  const g = r.flows.map((f) => f.goodputBps).filter((x): x is number => x !== null);
  if (g.length < 2) return Number.NaN;
  const mean = g.reduce((a, b) => a + b, 0) / g.length;
  return (Math.max(...g) - Math.min(...g)) / mean;
}

/**
 * The most transmit time any port lost because its process ran late by more than the catch-up bound
 * (tx_stalled_ns): 0 in the simulator, which is never late; on the live lab, capacity the link did not have.
 */
function worstStall(r: Report): number {
  let worst = 0;
  for (const d of Object.values(r.devices))
    for (const p of Object.values(d.ports)) worst = Math.max(worst, p.tx_stalled_ns ?? 0);
  return worst;
}

export const METRICS: readonly Metric[] = [
  { name: "goodput Gb/s", value: (r) => r.summary.goodputBps / 1e9, digits: 1 },
  { name: "incast span µs", value: (r) => incastSpan(r) / 1e3, digits: 0 },
  { name: "flow goodput spread %", value: (r) => goodputSpread(r) * 100, digits: 1 },
  { name: "packet latency p50 µs", value: (r) => r.summary.latencyNs.p50 / 1e3, digits: 1 },
  { name: "packet latency p99 µs", value: (r) => r.summary.latencyNs.p99 / 1e3, digits: 1 },
  { name: "queue peak KB", value: (r) => r.summary.queuePeakBytes / 1e3, digits: 0 },
  { name: "ECN marked", value: (r) => r.summary.ecnMarked, digits: 0 },
  { name: "CNP sent", value: (r) => r.summary.cnpSent, digits: 0 },
  { name: "PFC frames sent", value: (r) => r.summary.pauseFramesTx, digits: 0 },
  { name: "paused time µs", value: (r) => r.summary.pauseTimeNs / 1e3, digits: 0 },
  { name: "lossless drops", value: (r) => r.summary.drops.lossless, digits: 0 },
  { name: "retransmits", value: (r) => r.summary.retransmits, digits: 0 },
  { name: "tx stalled µs, worst port", value: (r) => worstStall(r) / 1e3, digits: 0 },
];

export interface FidelityResult {
  readonly scenario: string;
  readonly dilation: number;
  readonly sim: Record<string, number>;
  readonly live: Record<string, number>[];
  readonly liveWallMs: number[];
  /**
   * The simulator under `--sim-seeds` seeds (the scenario's own first): how far a metric moves when only
   * the random draws change. Absent in results saved before the option existed.
   */
  readonly simSeeds?: Record<string, number>[];
  /**
   * Each flow's completion time, ns (null: unfinished), by flow id: the simulator's, then each live run's.
   * Absent in results saved before the tie rule (docs/fidelity.md, "The tie rule").
   */
  readonly simFct?: (number | null)[];
  readonly liveFct?: (number | null)[][];
  /**
   * Per live run: how many of the report's device-table values (every counter and level of every device,
   * port and queue, counted from time 0) equal the simulator's, and how many there are. Absent in results
   * saved before the simulator's bring-up (run/bring-up.ts).
   */
  readonly liveTables?: { readonly equal: number; readonly total: number }[];
}

/** Every number of a report's device tables, by path ("leaf1.ports.eth6.tx_packets"). */
export function tableValues(r: Report): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "number") out.set(path, v);
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, `${path}.${k}`);
  };
  for (const [name, d] of Object.entries(r.devices)) walk(d, name);
  return out;
}

/** How many of `live`'s table values equal `sim`'s, out of every path either has. */
export function sameTables(sim: Report, live: Report): { equal: number; total: number } {
  const a = tableValues(sim);
  const b = tableValues(live);
  const paths = new Set([...a.keys(), ...b.keys()]);
  let equal = 0;
  for (const p of paths) if (a.get(p) === b.get(p)) equal++;
  return { equal, total: paths.size };
}

/** Each flow's FCT in ns (null: unfinished), in flow id order. */
function flowFcts(r: Report): (number | null)[] {
  return [...r.flows].sort((a, b) => a.id - b.id).map((f) => f.fctNs);
}

/**
 * Per live run: how many flows finished in exactly the simulator's FCT, to the nanosecond, and how many
 * metrics of METRICS equal the simulator's exactly ("4/4 flows, 13/13 metrics").
 */
export function renderExact(res: FidelityResult): string {
  if (res.simFct === undefined || res.liveFct === undefined || res.liveFct.length === 0) return "";
  const sim = res.simFct;
  const runs = res.liveFct.map((live, i) => {
    const same = sim.filter((f, j) => f !== null && live[j] === f).length;
    const metrics = METRICS.filter((m) => res.live[i]![m.name] === res.sim[m.name]).length;
    const t = res.liveTables?.[i];
    const tables = t === undefined ? "" : `, ${t.equal}/${t.total} counter values`;
    return `${same}/${sim.length} flows, ${metrics}/${METRICS.length} metrics${tables}`;
  });
  return `identical to the simulator, per live run: ${runs.join("; ")}\n`;
}

function figures(r: Report): Record<string, number> {
  return Object.fromEntries(METRICS.map((m) => [m.name, m.value(r)]));
}

/** live mean / sim, or "-" when the sim figure is 0 (a ratio would say nothing). */
function ratio(live: number, sim: number): string {
  if (!Number.isFinite(live) || !Number.isFinite(sim)) return "-";
  if (sim === 0) return live === 0 ? "=" : "-";
  return `${fmt(live / sim, 2)}×`;
}

/** min–max of `values` with `digits`, "-" when there are none. */
function span(values: readonly number[], digits: number): string {
  return values.length ? `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}` : "-";
}

/**
 * Whether the live mean lies inside the simulator's own seed-to-seed range: for a metric that a change of
 * random draws alone moves by more than the ratio's tolerance, the ratio to one run says little, and this
 * says whether the live lab behaves like another seed of the same network.
 */
export function inSeedRange(mean: number, seeds: readonly number[]): string {
  if (seeds.length < 2 || !Number.isFinite(mean)) return "-";
  const lo = Math.min(...seeds);
  const hi = Math.max(...seeds);
  // The mean of equal values may differ from them in the last bit (974.8475 × 5 / 5 = 974.8475000000001).
  const ulps = 1e-12 * Math.max(Math.abs(lo), Math.abs(hi));
  return mean >= lo - ulps && mean <= hi + ulps ? "yes" : "no";
}

export function renderComparison(res: FidelityResult): string {
  const seeds = res.simSeeds ?? [];
  const rows = METRICS.map((m) => {
    const sim = res.sim[m.name]!;
    const live = res.live.map((l) => l[m.name]!).filter(Number.isFinite);
    const mean = live.length ? live.reduce((a, b) => a + b, 0) / live.length : Number.NaN;
    const row = [m.name, fmt(sim, m.digits), fmt(mean, m.digits), span(live, m.digits), ratio(mean, sim)];
    if (seeds.length < 2) return row;
    const bySeed = seeds.map((f) => f[m.name]!).filter(Number.isFinite);
    return [...row, span(bySeed, m.digits), inSeedRange(mean, bySeed)];
  });
  const head = ["metric", "sim", `live mean (${res.live.length})`, "live min–max", "live/sim"];
  if (seeds.length >= 2) head.push(`sim, ${seeds.length} seeds`, "live mean inside");
  return formatTable(head, rows);
}

/** A bar per metric and dilation: live mean / sim, one panel per scenario (metrics the sim has as 0 left out). */
export function ratioChart(results: readonly FidelityResult[], machine: string): TopLevelSpec {
  const values: { scenario: string; metric: string; dilation: string; ratio: number }[] = [];
  for (const res of results) {
    for (const m of METRICS) {
      const sim = res.sim[m.name]!;
      const live = res.live.map((l) => l[m.name]!).filter(Number.isFinite);
      if (sim === 0 || !Number.isFinite(sim) || live.length === 0) continue;
      const mean = live.reduce((a, b) => a + b, 0) / live.length;
      values.push({
        scenario: res.scenario,
        metric: m.name,
        dilation: `D = ${res.dilation}`,
        ratio: mean / sim,
      });
    }
  }
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: {
      text: "Live lab / simulator, same scenario (1 = identical)",
      subtitle: machine,
      anchor: "start",
    },
    config: { font: "DejaVu Sans, Helvetica, Arial, sans-serif", aria: false },
    data: { values },
    facet: { row: { field: "scenario", type: "nominal", title: null } },
    resolve: { scale: { y: "independent" } },
    spec: {
      width: 520,
      height: { step: 9 },
      layer: [
        {
          mark: { type: "bar" },
          encoding: {
            y: { field: "metric", type: "nominal", sort: METRICS.map((m) => m.name), title: null },
            yOffset: { field: "dilation", type: "nominal" },
            x: {
              field: "ratio",
              type: "quantitative",
              title: "live mean / sim",
              scale: { domain: [0, 1.6] },
            },
            color: { field: "dilation", type: "nominal", title: "dilation" },
          },
        },
        { mark: { type: "rule", color: "#333" }, encoding: { x: { datum: 1 } } },
      ],
    },
  } as TopLevelSpec;
}

/** The scenario with the seed `i` after its own. */
function withSeed(sc: Scenario, i: number): Scenario {
  return { ...sc, seed: sc.seed + i };
}

function parseList(text: string, what: string): number[] {
  const out = text.split(",").map((s) => Number(s.trim()));
  for (const n of out)
    if (!(n >= 1)) throw new Error(`--${what} takes numbers >= 1 separated by commas, not "${text}"`);
  return out;
}

export const main: BenchMain = async (argv) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      scenario: { type: "string", multiple: true },
      runs: { type: "string", default: "3" },
      "sim-seeds": { type: "string", default: "10" },
      dilation: { type: "string", default: "1000" },
      clock: { type: "string", default: DEFAULT_CLOCK_MODE },
      json: { type: "string" },
      plot: { type: "string" },
      from: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: npm run bench -- fidelity [--scenario FILE]... [--runs N] [--sim-seeds N] [--dilation D[,D...]] [--clock synced|free] [--json FILE] [--plot FILE.svg]\n" +
        "       npm run bench -- fidelity --from FILE.json [--plot FILE.svg]\n" +
        "Runs each scenario once in the simulator and N times on a live lab per dilation (root), and prints\n" +
        "the figures side by side. --sim-seeds N (default 10) also runs the simulator under N seeds (the\n" +
        "scenario's first) and prints each metric's range across them and whether the live mean lies inside\n" +
        "it; 1 turns that off. --from reprints (and plots) the figures a --json run saved.\n",
    );
    return;
  }
  if (values.from) {
    const saved = JSON.parse(readFileSync(values.from, "utf8")) as {
      machine: string;
      results: FidelityResult[];
    };
    process.stdout.write(`fidelity: simulator vs live lab (saved: ${values.from})\n${saved.machine}\n`);
    for (const res of saved.results)
      process.stdout.write(
        `\n${res.scenario}: dilation ${res.dilation}\n${renderComparison(res)}\n${renderExact(res)}`,
      );
    if (values.plot) {
      writeNewFile(values.plot, await renderSvg(ratioChart(saved.results, saved.machine)), REPLACE);
      process.stdout.write(`\nchart: ${values.plot}\n`);
    }
    return;
  }
  const runs = parseList(values.runs, "runs")[0]!;
  const simSeedCount = parseList(values["sim-seeds"], "sim-seeds")[0]!;
  const clock = parseClockMode(values.clock, "--clock");
  const dilations = parseList(values.dilation, "dilation");
  const root = dirname(distPath(""));
  const files = values.scenario ?? DEFAULT_SCENARIOS.map((f) => join(root, f));
  const isRoot = process.getuid?.() === 0;
  process.stdout.write(`fidelity: simulator vs live lab (${clock} clocks)\n${describeMachine()}\n`);
  if (!isRoot) process.stdout.write("not root: simulator figures only (the live lab needs root)\n");
  const results: FidelityResult[] = [];
  for (const file of files) {
    const sc: Scenario = loadScenario(file);
    const sim = runScenarioSim(sc).report;
    const simSeeds = [figures(sim)];
    for (let i = 1; i < simSeedCount; i++) simSeeds.push(figures(runScenarioSim(withSeed(sc, i)).report));
    for (const dilation of dilations) {
      const live: Record<string, number>[] = [];
      const liveFct: (number | null)[][] = [];
      const liveTables: { equal: number; total: number }[] = [];
      const liveWallMs: number[] = [];
      for (let i = 0; isRoot && i < runs; i++) {
        const started = performance.now();
        const report = await runScenarioLive(sc, { dilation, clock, lab: "fidelity" });
        liveWallMs.push(performance.now() - started);
        live.push(figures(report));
        liveFct.push(flowFcts(report));
        liveTables.push(sameTables(sim, report));
        process.stdout.write(`  ${sc.name}: live run ${i + 1}/${runs} at dilation ${dilation} done\n`);
      }
      const res = {
        scenario: sc.name,
        dilation,
        sim: figures(sim),
        live,
        liveWallMs,
        simSeeds,
        simFct: flowFcts(sim),
        liveFct,
        liveTables,
      };
      results.push(res);
      const wall = liveWallMs.length
        ? `, live runs ${fmt(liveWallMs.reduce((a, b) => a + b, 0) / liveWallMs.length / 1000, 1)} s each (bring-up and teardown included)`
        : "";
      process.stdout.write(
        `\n${sc.name}: dilation ${dilation}, sim in ${fmt(sim.wallClockMs, 0)} ms${wall}\n`,
      );
      process.stdout.write(`${renderComparison(res)}\n${renderExact(res)}`);
    }
  }
  if (values.plot) {
    writeNewFile(values.plot, await renderSvg(ratioChart(results, describeMachine())), REPLACE);
    process.stdout.write(`\nchart: ${values.plot}\n`);
  }
  if (values.json) {
    writeNewFile(
      values.json,
      `${JSON.stringify({ machine: describeMachine(), results }, null, 2)}\n`,
      REPLACE,
    );
    process.stdout.write(`\nraw figures: ${values.json}\n`);
  }
};

if (isMain(import.meta.url)) runAsScript(main);
