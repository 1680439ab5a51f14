// Benchmark: the simulator on 1 worker against 2 (`rocelab run --workers`, docs/parallel-sim.md), side by
// side in one run: the k = 8 fat tree under the web-search mix (docs/experiments/fat-tree-websearch.yaml)
// and HPCC's 64:1 DCQCN incast (sim-vs-ns3.ts), alternating 1 and 2 workers `--runs` times. Each run is a
// process of its own (sim-parallel-arm.ts), started as `rocelab run` starts it: the split run with V8's
// single-threaded collector (src/cli/gc-rerun.ts; `--gc default` runs it without, to show what that
// costs). Prints the simulation's wall time in the process and the whole process's, the ratio 1 worker /
// 2 workers, the CPU, the incast against ns-3's recorded wall time, whether the two reports agree, where
// the workers' time went, and the machine's load average around each case (a busy machine makes the
// ratio meaningless: the two workers compete with everything else for the cores).
//
// With --contention it also runs, per case, one whole single-threaded copy in a worker thread alone and
// then two copies at once: how much two independent simulations of the whole fabric slow each other on
// this machine (shared caches and memory). A worker of a split run touches only its part of the fabric,
// so this is the worst case of what the cores' sharing costs, not a bound on the split.
//
//   node dist/tools/bench/sim-parallel.js [--fat-tree-ms 10] [--runs 1] [--workers 2] [--no-fat-tree]
//                                         [--gc single|default] [--contention] [--k16-ms MS]
//
// --k16-ms runs, after the cases, the web-search mix on a k = 16 fat tree (1,024 hosts) for MS milliseconds
// on --workers workers only (one arm takes minutes), and prints its whole-process time and largest
// resident set against issue #42's targets (10 ms in at most 10 minutes and 8 GiB).

import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { execa } from "execa";
import { SINGLE_THREADED_GC } from "../../src/cli/gc-rerun.js";
import type { Scenario } from "../../src/scenario/scenario.js";
import { describeMachine, fmt, formatTable, isMain, median, runAsScript } from "./common.js";
import { type ArmCase, type ArmResult, armScenario } from "./sim-parallel-cases.js";
import { NS3_RECORDED } from "./sim-vs-ns3.js";

interface CaseResult {
  readonly name: string;
  /** The simulation's wall ms in its process (from the scenario to the report), per run. */
  readonly one: number[];
  readonly many: number[];
  /** The whole process's wall ms (Node's start, loading, the run, the exit), per run. */
  readonly oneProcess: number[];
  readonly manyProcess: number[];
  /** CPU ms of the simulation in its process (every thread), per run. */
  readonly oneCpu: number[];
  readonly manyCpu: number[];
  readonly same: boolean;
  readonly load: [number, number];
  readonly cut: number;
  readonly lookaheadNs: number;
  /** The last N-worker run's workers: where their time went. */
  readonly workers: NonNullable<ArmResult["workers"]>;
  /** --contention: wall ms of one copy alone in a worker thread, and of each of two copies at once. */
  readonly contention?: { alone: number; together: number[] };
}

/** Wall ms of each of `n` whole single-threaded copies of `sc`, run at once in worker threads. */
async function copies(sc: Scenario, n: number): Promise<number[]> {
  const url = new URL("./sim-copy-worker.js", import.meta.url);
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(url, { workerData: { sc } });
          w.once("message", (ms: number) => {
            resolve(ms);
            void w.terminate();
          });
          w.once("error", reject);
        }),
    ),
  );
}

/** Runs one arm in a process of its own (sim-parallel-arm.ts); its result and the whole process's wall ms. */
async function arm(
  which: ArmCase,
  ms: number,
  workers: number,
  gc: "single" | "default",
): Promise<[ArmResult, number]> {
  const script = fileURLToPath(new URL("./sim-parallel-arm.js", import.meta.url));
  const flags = workers > 1 && gc === "single" ? [SINGLE_THREADED_GC] : [];
  const t0 = performance.now();
  const r = await execa(process.execPath, [...flags, script, which, String(ms), String(workers)], {
    reject: false,
    env: { NODE_OPTIONS: "" },
  });
  const wall = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${which} on ${workers} worker(s) failed: ${r.stderr.slice(-2000)}`);
  return [JSON.parse(r.stdout.trim().split("\n").at(-1)!) as ArmResult, wall];
}

async function runCase(
  name: string,
  which: ArmCase,
  ms: number,
  opts: { runs: number; workers: number; gc: "single" | "default"; contention: boolean },
): Promise<CaseResult> {
  const r: Omit<CaseResult, "same" | "load" | "cut" | "lookaheadNs" | "workers" | "contention"> = {
    name,
    one: [],
    many: [],
    oneProcess: [],
    manyProcess: [],
    oneCpu: [],
    manyCpu: [],
  };
  let same = true;
  let last: ArmResult | null = null;
  const before = loadavg()[0]!;
  for (let i = 0; i < opts.runs; i++) {
    const [a, aWall] = await arm(which, ms, 1, opts.gc);
    const [b, bWall] = await arm(which, ms, opts.workers, opts.gc);
    r.one.push(a.wallMs);
    r.many.push(b.wallMs);
    r.oneProcess.push(aWall);
    r.manyProcess.push(bWall);
    r.oneCpu.push(a.cpuMs);
    r.manyCpu.push(b.cpuMs);
    same &&= a.report === b.report;
    last = b;
  }
  const sc = armScenario(which, ms);
  const shared = opts.contention
    ? { alone: (await copies(sc, 1))[0]!, together: await copies(sc, 2) }
    : undefined;
  return {
    ...r,
    same,
    load: [before, loadavg()[0]!],
    cut: last?.cutLinks ?? 0,
    lookaheadNs: last?.lookaheadNs ?? 0,
    workers: last?.workers ?? [],
    ...(shared ? { contention: shared } : {}),
  };
}

const USAGE = `usage: npm run bench -- sim-parallel [--fat-tree-ms 10] [--runs 1] [--workers 2] [--no-fat-tree]
                                      [--gc single|default] [--contention] [--k16-ms MS]
  the 64:1 incast and the k = 8 fat tree on 1 worker against --workers, alternating --runs times, each run
  a process of its own; --k16-ms also runs the k = 16 fat tree for MS ms on --workers (minutes);
  docs/performance.md, "Parallel simulator"
`;

export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      help: { type: "boolean", short: "h" },
      "fat-tree-ms": { type: "string", default: "10" },
      runs: { type: "string", default: "1" },
      workers: { type: "string", default: "2" },
      "no-fat-tree": { type: "boolean", default: false },
      contention: { type: "boolean", default: false },
      gc: { type: "string", default: "single" },
      "k16-ms": { type: "string" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const runs = Number(values.runs);
  const workers = Number(values.workers);
  const gc = values.gc;
  if (gc !== "single" && gc !== "default") throw new Error(`--gc ${gc}: expected single or default`);
  const print = (s = ""): void => void process.stdout.write(`${s}\n`);
  print(describeMachine());
  print(
    `${availableParallelism()} cores; load average before: ${loadavg()
      .map((l) => fmt(l, 2))
      .join(" ")}`,
  );
  const ms = Number(values["fat-tree-ms"]);
  const cases: [string, ArmCase][] = [["64:1 incast (HPCC ns-3 DCQCN)", "incast"]];
  if (!values["no-fat-tree"]) cases.push([`k = 8 fat tree, web search, ${ms} ms`, "fat-tree"]);
  const results: CaseResult[] = [];
  for (const [name, which] of cases)
    results.push(
      await runCase(name, which, ms, { runs, workers, gc, contention: values.contention === true }),
    );
  print();
  print(
    `1 worker against ${workers} (${gc === "single" ? "V8's single-threaded collector, as rocelab run --workers" : "V8's default collector"}), ` +
      `alternating, ${runs} pair(s) each, each run a process of its own: the simulation's wall time in ` +
      "its process (ms), the whole process's in brackets; CPU ms of the simulation, every thread",
  );
  print(
    formatTable(
      [
        "case",
        "1 worker",
        `${workers} workers`,
        "ratio (median)",
        "whole process",
        "CPU 1 / N",
        "same report",
        "cut links",
        "load avg",
      ],
      results.map((r) => [
        r.name,
        r.one.map((x, i) => `${fmt(x, 0)} (${fmt(r.oneProcess[i]!, 0)})`).join(" "),
        r.many.map((x, i) => `${fmt(x, 0)} (${fmt(r.manyProcess[i]!, 0)})`).join(" "),
        `${fmt(median(r.one) / median(r.many), 2)}×`,
        `${fmt(median(r.oneProcess) / median(r.manyProcess), 2)}×`,
        `${fmt(median(r.oneCpu), 0)} / ${fmt(median(r.manyCpu), 0)}`,
        r.same ? "yes" : "NO",
        `${r.cut} (lookahead ${fmt(r.lookaheadNs, 0)} ns)`,
        `${fmt(r.load[0], 1)} -> ${fmt(r.load[1], 1)}`,
      ]),
    ),
  );
  print();
  print(`where the ${workers} workers' time went (the last run; ms of real time per worker)`);
  print(
    formatTable(
      ["case", "worker", "build", "simulate", "windows' ends", "events", "windows", "frames sent"],
      results.flatMap((r) =>
        r.workers.map((w, i) => [
          r.name,
          String(i),
          fmt(w.buildMs, 0),
          fmt(w.simulateMs, 0),
          fmt(w.exchangeMs, 0),
          String(w.events),
          String(w.windows),
          String(w.framesSent),
        ]),
      ),
    ),
  );
  for (const r of results) {
    const sum = r.workers.reduce((s, w) => s + w.simulateMs, 0);
    print(
      `${r.name}: the workers' simulating adds up to ${fmt(sum / median(r.one), 2)}× the 1-worker run's wall time`,
    );
    if (!r.contention) continue;
    const { alone, together } = r.contention;
    print(
      `  one whole single-threaded copy alone in a thread ${fmt(alone, 0)} ms, two at once ` +
        `${together.map((x) => fmt(x, 0)).join(" and ")} ms: ${fmt(Math.max(...together) / alone, 2)}× slower`,
    );
  }
  if (values["k16-ms"] !== undefined) {
    const k16 = Number(values["k16-ms"]);
    const [r, whole] = await arm("fat-tree-k16", k16, workers, gc);
    print();
    print(
      `k = 16 fat tree (1,024 hosts), web search, ${k16} ms on ${workers} worker(s): ` +
        `${fmt(r.wallMs / 1000, 1)} s simulating, ${fmt(whole / 1000, 1)} s the whole process ` +
        `(${fmt(whole / 60_000, 2)} of 10 minutes), largest resident set ${fmt(r.maxRssMiB / 1024, 2)} GiB ` +
        `(of 8), CPU ${fmt(r.cpuMs / 1000, 0)} s`,
    );
  }
  const incast = results[0]!;
  print();
  print(
    `64:1 incast against HPCC's ns-3 (${NS3_RECORDED.wallS} s recorded): 1 worker ` +
      `${fmt(median(incast.one) / 1000 / NS3_RECORDED.wallS, 2)}×, ${workers} workers ` +
      `${fmt(median(incast.many) / 1000 / NS3_RECORDED.wallS, 2)}× ns-3's wall time (the simulation in ` +
      `its process); whole processes ${fmt(median(incast.oneProcess) / 1000 / NS3_RECORDED.wallS, 2)}× and ` +
      `${fmt(median(incast.manyProcess) / 1000 / NS3_RECORDED.wallS, 2)}×`,
  );
  print(
    `load average after: ${loadavg()
      .map((l) => fmt(l, 2))
      .join(" ")}`,
  );
}

if (isMain(import.meta.url)) runAsScript(main);
