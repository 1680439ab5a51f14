// Benchmark: the simulator on 1 worker against 2 (`rocelab run --workers`, docs/parallel-sim.md), side by
// side in one run: the k = 8 fat tree under the web-search mix (docs/experiments/fat-tree-websearch.yaml)
// and HPCC's 64:1 DCQCN incast (sim-vs-ns3.ts), alternating 1 and 2 workers `--runs` times. Prints wall
// times, the ratio 1 worker / 2 workers, the incast against ns-3's recorded wall time, whether the two
// reports agree, and the machine's load average around each case (a busy machine makes the ratio
// meaningless: the two workers compete with everything else for the cores).
//
//   node dist/tools/bench/sim-parallel.js [--fat-tree-ms 10] [--runs 1] [--workers 2] [--no-fat-tree]

import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { runScenarioSimParallel } from "../../src/run/sim-parallel.js";
import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";
import { describeMachine, fmt, formatTable, isMain, median, runAsScript } from "./common.js";
import { incastScenario, NS3_RECORDED } from "./sim-vs-ns3.js";

const FAT_TREE = "docs/experiments/fat-tree-websearch.yaml";

interface CaseResult {
  readonly name: string;
  readonly one: number[];
  readonly many: number[];
  /** CPU ms of this process (every thread), per run. */
  readonly oneCpu: number[];
  readonly manyCpu: number[];
  readonly same: boolean;
  readonly load: [number, number];
  readonly cut: number;
  readonly lookaheadNs: number;
}

/** Wall ms and CPU ms (this process, every thread) of `fn`, and what it returned. */
async function timed<T>(fn: () => T | Promise<T>): Promise<[number, number, T]> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await fn();
  const c = process.cpuUsage(c0);
  return [performance.now() - t0, (c.user + c.system) / 1000, r];
}

/** The report without its wall-clock time. */
function comparable(report: { runtime?: unknown }): string {
  return JSON.stringify(report).replace(/"wallClockMs":[\d.e+-]+/, "");
}

async function runCase(name: string, sc: Scenario, runs: number, workers: number): Promise<CaseResult> {
  const one: number[] = [];
  const many: number[] = [];
  const oneCpu: number[] = [];
  const manyCpu: number[] = [];
  let same = true;
  let cut = 0;
  let lookaheadNs = 0;
  const before = loadavg()[0]!;
  for (let i = 0; i < runs; i++) {
    const [ms1, cpu1, r1] = await timed(() => runScenarioSim(sc));
    const [msN, cpuN, rN] = await timed(() => runScenarioSimParallel(sc, { workers }));
    one.push(ms1);
    many.push(msN);
    oneCpu.push(cpu1);
    manyCpu.push(cpuN);
    same &&= comparable(r1.report) === comparable(rN.report);
    cut = rN.partitioning.cutLinks;
    lookaheadNs = rN.partitioning.lookaheadNs;
  }
  return { name, one, many, oneCpu, manyCpu, same, load: [before, loadavg()[0]!], cut, lookaheadNs };
}

export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "fat-tree-ms": { type: "string", default: "10" },
      runs: { type: "string", default: "1" },
      workers: { type: "string", default: "2" },
      "no-fat-tree": { type: "boolean", default: false },
    },
  });
  const runs = Number(values.runs);
  const workers = Number(values.workers);
  const print = (s = ""): void => void process.stdout.write(`${s}\n`);
  print(describeMachine());
  print(
    `${availableParallelism()} cores; load average before: ${loadavg()
      .map((l) => fmt(l, 2))
      .join(" ")}`,
  );
  const cases: [string, Scenario][] = [
    ["64:1 incast (HPCC ns-3 DCQCN)", incastScenario(NS3_RECORDED.senders)],
  ];
  if (!values["no-fat-tree"]) {
    const ft = loadScenario(FAT_TREE);
    const ms = Number(values["fat-tree-ms"]);
    cases.push([`k = 8 fat tree, web search, ${ms} ms`, { ...ft, durationNs: Math.round(ms * 1e6) }]);
  }
  const results: CaseResult[] = [];
  for (const [name, sc] of cases) results.push(await runCase(name, sc, runs, workers));
  print();
  print(
    `1 worker against ${workers}, alternating, ${runs} pair(s) each, in-process wall time (ms); CPU ms of every thread`,
  );
  print(
    formatTable(
      [
        "case",
        "1 worker",
        `${workers} workers`,
        "ratio (median)",
        "CPU 1 / N",
        "same report",
        "cut links",
        "load avg",
      ],
      results.map((r) => [
        r.name,
        r.one.map((x) => fmt(x, 0)).join(" "),
        r.many.map((x) => fmt(x, 0)).join(" "),
        `${fmt(median(r.one) / median(r.many), 2)}×`,
        `${fmt(median(r.oneCpu), 0)} / ${fmt(median(r.manyCpu), 0)}`,
        r.same ? "yes" : "NO",
        `${r.cut} (lookahead ${fmt(r.lookaheadNs, 0)} ns)`,
        `${fmt(r.load[0], 1)} -> ${fmt(r.load[1], 1)}`,
      ]),
    ),
  );
  const incast = results[0]!;
  print();
  print(
    `64:1 incast against HPCC's ns-3 (${NS3_RECORDED.wallS} s recorded): 1 worker ` +
      `${fmt(median(incast.one) / 1000 / NS3_RECORDED.wallS, 2)}×, ${workers} workers ` +
      `${fmt(median(incast.many) / 1000 / NS3_RECORDED.wallS, 2)}× ns-3's wall time (in-process, warm)`,
  );
  print(
    `load average after: ${loadavg()
      .map((l) => fmt(l, 2))
      .join(" ")}`,
  );
}

if (isMain(import.meta.url)) runAsScript(main);
