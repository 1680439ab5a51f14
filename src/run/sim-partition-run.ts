// One worker of a parallel simulator run (sim-parallel.ts, docs/parallel-sim.md): builds the whole run
// as the single-threaded one does (sim-run-setup.ts), simulates the devices of its partition, and moves
// time forward in windows no longer than the lookahead, exchanging the frames that cross to other
// partitions at each window's end (partition-exchange.ts). What it hands back is what the single-threaded
// run reads at its end, for its own devices: stats, flow records, event log lines and series rows, each
// with what the coordinator needs to put them in the single-threaded order.

import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { FlowReport } from "../lab/flow-report.js";
import type { NicDetail } from "../nic/stats-types.js";
import { Exchange, type ExchangeMemory } from "../runtime/sim/partition-exchange.js";
import type { Scenario } from "../scenario/scenario.js";
import { buildSimRun, type SimRunParts } from "./sim-run-setup.js";

export interface PartitionJob {
  readonly sc: Scenario;
  readonly self: number;
  /** Device name -> partition. */
  readonly of: readonly (readonly [string, number])[];
  readonly lookaheadNs: number;
  readonly memory: ExchangeMemory;
  /** Keep the event log (the run writes one). */
  readonly keepEvents: boolean;
}

export interface PartitionResult {
  /** Stats of this partition's devices, by name. */
  readonly stats: readonly (readonly [string, AnyDeviceStats])[];
  /** Completion records of this partition's hosts. */
  readonly records: readonly (readonly [string, NicDetail["flows"]])[];
  /** Event log: time, emit key (Simulator.emitKey) and JSON line of each event, in emission order. */
  readonly eventTimes: Float64Array;
  readonly eventKeys: Float64Array;
  readonly eventLines: readonly string[];
  /** Series rows (CSV lines without header), per series in SeriesRecorder.all order. */
  readonly series: readonly (readonly string[])[];
  readonly events: number;
  readonly windows: number;
  readonly framesSent: number;
  /** Real ms of this worker: building the run, simulating (its windows), and closing windows (barrier and exchange). */
  readonly buildMs: number;
  readonly simulateMs: number;
  readonly exchangeMs: number;
}

/** A partition's run, kept for the coordinator's second question (the flow report). */
export interface PartitionRun {
  readonly result: PartitionResult;
  readonly parts: SimRunParts;
}

/** Runs partition `job.self` to the end of the scenario. */
export function runPartition(job: PartitionJob): PartitionRun {
  const { sc, self } = job;
  const t0 = performance.now();
  const of = new Map(job.of);
  const owns = (device: string): boolean => of.get(device) === self;
  const times: number[] = [];
  const keys: number[] = [];
  const lines: string[] = [];
  let simRef: SimRunParts["sim"] | null = null;
  const parts = buildSimRun(sc, {}, false, {
    owns,
    log: (e) => {
      if (!job.keepEvents) return;
      times.push(e.t);
      keys.push(simRef!.emitKey);
      lines.push(JSON.stringify(e));
    },
  });
  const { sim, fabric, nics } = parts;
  simRef = sim;
  const exchange = new Exchange(job.memory, self);
  sim.partition(owns, (link, side, arrival, frame, verified) => {
    const peer = side === 0 ? link.spec.b.device : link.spec.a.device;
    exchange.send(of.get(peer)!, link.index, side, arrival, link.gen, frame, verified);
  });
  const incoming = sim.deliverRemote;
  const built = performance.now();
  let simulateMs = 0;
  let exchangeMs = 0;

  const end = sc.durationNs;
  const lookahead = job.lookaheadNs;
  // The start (before time 0: bring-up.ts): devices start (and may send) before the first window.
  sim.run(sim.now - 1);
  let next = exchange.closeWindow(sim.nextEventTime(), incoming);
  let windows = 0;
  while (next <= end) {
    // Every event before `until` + 1 is safe: no frame from another partition can arrive before
    // next + lookahead, as nothing anywhere happens before `next`.
    const until = Math.min(next + lookahead, end + 1) - 1;
    const a = performance.now();
    sim.run(until);
    const b = performance.now();
    exchange.clocks[self] = until;
    windows++;
    next = exchange.closeWindow(sim.nextEventTime(), incoming);
    simulateMs += b - a;
    exchangeMs += performance.now() - b;
  }
  sim.run(end);

  const now = sim.now;
  const stats: [string, AnyDeviceStats][] = [];
  for (const [name, sw] of fabric.switches)
    if (owns(name)) stats.push([name, parts.baselines.since(sw.stats(now), sw)]);
  const records: [string, NicDetail["flows"]][] = [];
  for (const [name, nic] of nics) {
    if (!owns(name)) continue;
    const s = nic.stats(now);
    stats.push([name, parts.baselines.since(s, nic)]);
    records.push([name, s.detail.flows]);
  }
  return {
    parts,
    result: {
      stats,
      records,
      eventTimes: Float64Array.from(times),
      eventKeys: Float64Array.from(keys),
      eventLines: lines,
      series: parts.recorder.all.map((s) => s.lines),
      events: sim.eventsProcessed,
      windows,
      framesSent: exchange.sent,
      buildMs: built - t0,
      simulateMs,
      exchangeMs,
    },
  };
}

/** The flow report, from this partition's driver (every partition's is the same) and every host's records. */
export function flowReport(
  run: PartitionRun,
  records: readonly (readonly [string, NicDetail["flows"]])[],
): FlowReport[] {
  return run.parts.driver.report(new Map(records));
}
