// One arm of `sim-parallel`: a whole simulation in a process of its own, started as `rocelab run` starts
// it (`--workers` > 1 with V8's single-threaded collector, src/cli/gc-rerun.ts; the parent passes the
// flag). Prints one JSON line: the in-process wall and CPU time (ms, every thread), a hash of the report
// without its wall-clock time, and for a split run its partition and where each worker's time went.
//
//   node [--single-threaded-gc] dist/tools/bench/sim-parallel-arm.js incast|fat-tree|fat-tree-k16 MS WORKERS

import { createHash } from "node:crypto";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { runScenarioSimParallel } from "../../src/run/sim-parallel.js";
import { isMain, runAsScript } from "./common.js";
import { type ArmCase, type ArmResult, armScenario } from "./sim-parallel-cases.js";

function hash(report: unknown): string {
  const text = JSON.stringify(report).replace(/"wallClockMs":[\d.e+-]+/, "");
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

export async function main(argv: readonly string[]): Promise<void> {
  const [which, ms, workers] = [argv[0] as ArmCase, Number(argv[1]), Number(argv[2])];
  if (
    !["incast", "fat-tree", "fat-tree-k16"].includes(which) ||
    !(ms > 0) ||
    !Number.isInteger(workers) ||
    workers < 1
  )
    throw new Error("usage: sim-parallel-arm.js incast|fat-tree|fat-tree-k16 MS WORKERS");
  const sc = armScenario(which, ms);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const split = workers === 1 ? null : await runScenarioSimParallel(sc, { workers });
  const report = split?.report ?? runScenarioSim(sc).report;
  const c = process.cpuUsage(c0);
  const result: ArmResult = {
    wallMs: performance.now() - t0,
    cpuMs: (c.user + c.system) / 1000,
    report: hash(report),
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    ...(split
      ? {
          cutLinks: split.partitioning.cutLinks,
          lookaheadNs: split.partitioning.lookaheadNs,
          workers: split.workers,
        }
      : {}),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (isMain(import.meta.url)) runAsScript(main);
