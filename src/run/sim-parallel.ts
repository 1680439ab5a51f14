// A scenario run in the simulator over several worker threads (`rocelab run --runtime sim --workers N`),
// with the same report, series and event log, byte for byte, as the single-threaded run (run-sim.ts):
// docs/parallel-sim.md says how and why it is exact. This file is the coordinator: it splits the fabric
// (sim-partition.ts), starts one worker per partition (main/sim-worker.ts, sim-partition-run.ts), and
// merges what they hand back into the order the single-threaded run writes.

import { Worker } from "node:worker_threads";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { FlowReport } from "../lab/flow-report.js";
import { entryPath } from "../lab/live/paths.js";
import type { NicDetail } from "../nic/stats-types.js";
import { assembleReport, type Report, writeReport } from "../report/report.js";
import { SeriesRecorder } from "../report/series-recorder.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import { createExchangeMemory } from "../runtime/sim/partition-exchange.js";
import type { Scenario } from "../scenario/scenario.js";
import { SettingsLayers } from "../scenario/settings-layers.js";
import { NodeKind } from "../scenario/topology.js";
import type { SimRunOptions } from "./run-sim.js";
import { type Partitioning, partitionTopology } from "./sim-partition.js";
import type { PartitionJob, PartitionResult } from "./sim-partition-run.js";
import { PARTITION_REFUSALS } from "./sim-run-setup.js";

export interface ParallelRunOptions extends Pick<SimRunOptions, "outDir" | "force" | "onProgress"> {
  readonly workers: number;
  /** Real ms between progress calls (default 250). */
  readonly progressMs?: number;
}

export interface ParallelRunResult {
  readonly report: Report;
  readonly partitioning: Partitioning;
  /** Per worker: events processed, windows, frames sent to other workers. */
  readonly workers: readonly Pick<
    PartitionResult,
    "events" | "windows" | "framesSent" | "buildMs" | "simulateMs" | "exchangeMs"
  >[];
}

/** What else a run asks for, that a parallel run may not give. */
export interface ParallelAsks {
  readonly capture?: boolean;
  readonly openmetrics?: boolean;
}

/**
 * Why a run cannot be split over workers (null: it can), found in the scenario before any worker starts.
 * The workers check the same as they build and post flows (sim-run-setup.ts), should anything escape this.
 */
export function parallelRefusal(sc: Scenario, asks: ParallelAsks = {}): string | null {
  if (sc.controller?.pathNavigation !== undefined)
    return "the path-navigation controller reads every switch's LLDP table at once: run it with --workers 1";
  if (asks.capture === true) return "--capture is not available with --workers > 1";
  if (asks.openmetrics === true) return "--openmetrics is not available with --workers > 1";
  if (usesCentralAiEcn(sc)) return PARTITION_REFUSALS.aiEcn;
  for (const step of sc.timeline) {
    if (step.action.kind !== "start") continue;
    const w = step.action.workload;
    if (w.type === "all-reduce") return PARTITION_REFUSALS.dependent;
    if (w.onError === "reconnect") return PARTITION_REFUSALS.reconnect;
  }
  return null;
}

/**
 * Whether any switch runs AI ECN's central mode (`ecn.ai.mode: central`), whose analyser needs every
 * switch at once: each switch's settings resolved as the run resolves them, from the start and after each
 * `set` step.
 */
function usesCentralAiEcn(sc: Scenario): boolean {
  const layers = new SettingsLayers(sc.topology, sc.overrides);
  const central = (): boolean =>
    layers.switches.some((name) => layers.switchTunables(name).ecn.ai.mode === "central");
  if (central()) return true;
  for (const step of sc.timeline) {
    if (step.action.kind !== "set") continue;
    layers.push(step.action.change);
    if (central()) return true;
  }
  return false;
}

/** Runs `sc` over `opts.workers` workers (at most one per partition the topology allows). */
export async function runScenarioSimParallel(
  sc: Scenario,
  opts: ParallelRunOptions,
): Promise<ParallelRunResult> {
  const refusal = parallelRefusal(sc);
  if (refusal !== null) throw new Error(refusal);
  const out =
    opts.outDir === undefined
      ? null
      : OutputDir.create(opts.outDir, { force: opts.force ?? false, flag: "--out" });
  try {
    return await runParallel(sc, opts, out);
  } finally {
    out?.close();
  }
}

async function runParallel(
  sc: Scenario,
  opts: ParallelRunOptions,
  out: OutputDir | null,
): Promise<ParallelRunResult> {
  const started = performance.now();
  const partitioning = partitionTopology(sc.topology, opts.workers);
  const memory = createExchangeMemory(partitioning.parts);
  const of = [...partitioning.of];
  const workers = Array.from({ length: partitioning.parts }, (_, self) => {
    const job: PartitionJob = {
      sc,
      self,
      of,
      lookaheadNs: partitioning.lookaheadNs,
      memory,
      keepEvents: out !== null,
    };
    return new Worker(entryPath("main/sim-worker.js"), { workerData: job });
  });
  const clocks = new Float64Array(memory.clocks);
  const progress =
    opts.onProgress === undefined
      ? null
      : setInterval(() => opts.onProgress!(Math.min(...clocks), sc), opts.progressMs ?? 250);
  try {
    const settled = await Promise.allSettled(workers.map((w) => reply<{ result: PartitionResult }>(w)));
    const failed = settled.flatMap((r) =>
      r.status === "rejected" ? [r.reason as Error & { aborted?: boolean }] : [],
    );
    // The worker that failed says why; the others only that they stopped for it.
    if (failed.length > 0) throw failed.find((e) => e.aborted !== true) ?? failed[0]!;
    const parts = settled.map((r) => (r as PromiseFulfilledResult<{ result: PartitionResult }>).value.result);
    const records = new Map<string, NicDetail["flows"]>();
    const stats = new Map<string, AnyDeviceStats>();
    for (const p of parts) {
      for (const [name, s] of p.stats) stats.set(name, s);
      for (const [name, r] of p.records) records.set(name, r);
    }
    // In the single-threaded order: switches, then hosts, each in topology order.
    const nodes = sc.topology.nodes;
    const ordered = [
      ...nodes.filter((n) => n.kind === NodeKind.Switch),
      ...nodes.filter((n) => n.kind !== NodeKind.Switch),
    ];
    const hostRecords = ordered
      .filter((n) => records.has(n.name))
      .map((n) => [n.name, records.get(n.name)!] as const);
    workers[0]!.postMessage({ records: hostRecords });
    const { flows } = await reply<{ flows: FlowReport[] }>(workers[0]!);
    const report = assembleReport(
      sc,
      ordered.map((n) => stats.get(n.name)!),
      flows,
      { runtime: "sim", wallClockMs: performance.now() - started },
    );
    if (out) {
      const order = new Map(nodes.map((n, i) => [n.name, i]));
      const recorder = new SeriesRecorder();
      recorder.all.forEach((series, i) => {
        series.append(
          mergeRows(
            parts.map((p) => p.series[i]!),
            order,
          ),
        );
      });
      writeReport(out, report, recorder.all, mergeEvents(parts));
    }
    return {
      report,
      partitioning,
      workers: parts.map(({ events, windows, framesSent, buildMs, simulateMs, exchangeMs }) => ({
        events,
        windows,
        framesSent,
        buildMs,
        simulateMs,
        exchangeMs,
      })),
    };
  } finally {
    if (progress) clearInterval(progress);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** The next message of `worker`: its payload, or its error. */
function reply<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: { ok: boolean; error?: string; aborted?: boolean }): void => {
      worker.off("error", onError);
      if (msg.ok) resolve(msg as T);
      else reject(Object.assign(new Error(msg.error), { aborted: msg.aborted === true }));
    };
    const onError = (e: Error): void => {
      worker.off("message", onMessage);
      reject(e);
    };
    worker.once("message", onMessage);
    worker.once("error", onError);
  });
}

/**
 * The event log in the single-threaded order: by time, then by emit key (Simulator.emitKey), then in each
 * worker's own order. Two workers never emit under one key (one key is one device's event, or one device
 * call of an action); if they did, their order would be unknown, and the run says so rather than guess.
 */
export function mergeEvents(parts: readonly PartitionResult[]): string[] {
  const all: { t: number; k: number; w: number; i: number }[] = [];
  parts.forEach((p, w) => {
    for (let i = 0; i < p.eventLines.length; i++) all.push({ t: p.eventTimes[i]!, k: p.eventKeys[i]!, w, i });
  });
  all.sort((a, b) => a.t - b.t || a.k - b.k || a.w - b.w || a.i - b.i);
  for (let j = 1; j < all.length; j++) {
    const a = all[j - 1]!;
    const b = all[j]!;
    if (a.t === b.t && a.k === b.k && a.w !== b.w)
      throw new Error(
        `workers ${a.w} and ${b.w} both emitted events at ${a.t} ns under key ${a.k}: order unknown`,
      );
  }
  return all.map((e) => parts[e.w]!.eventLines[e.i]!);
}

/**
 * A series' rows in the single-threaded order: by time, then by device (topology order), then in the
 * worker's own order (one device's rows all come from its worker). A row is "t,device,...".
 */
export function mergeRows(
  rows: readonly (readonly string[])[],
  order: ReadonlyMap<string, number>,
): string[] {
  const all: { t: number; d: number; w: number; i: number }[] = [];
  rows.forEach((list, w) => {
    list.forEach((row, i) => {
      const c1 = row.indexOf(",");
      const c2 = row.indexOf(",", c1 + 1);
      all.push({ t: Number(row.slice(0, c1)), d: order.get(row.slice(c1 + 1, c2)) ?? -1, w, i });
    });
  });
  all.sort((a, b) => a.t - b.t || a.d - b.d || a.w - b.w || a.i - b.i);
  return all.map((e) => rows[e.w]![e.i]!);
}
