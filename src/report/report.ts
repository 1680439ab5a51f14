// Scenario reports: the same JSON and CSV files from either runtime, so runs can be compared (fidelity,
// threshold tables, regressions). report.json is the summary, the flows and every device's counters;
// the CSV files are time series in long format (one row per sample per key that changed), ready for
// plotting tools.

import { basename, isAbsolute, relative } from "node:path";
import { type CounterDef, readCounter } from "../device/counters.js";
import { PfcCounter } from "../device/l2/pfc-counters.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { FlowError, FlowReport } from "../lab/flow-report.js";
import { NicCounter } from "../nic/counters.js";
import { Histogram } from "../nic/histogram.js";
import type { OutputDir } from "../runtime/realtime/safe-files.js";
import type { Scenario } from "../scenario/scenario.js";
import type { LldpNeighbour } from "../switch/control/lldp.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import { lagSummary } from "../switch/features/lag-state.js";
import { ipToString } from "../wire/bytes.js";
import { PRIORITIES } from "../wire/pfc.js";
import { orderEvents } from "./event-order.js";
import {
  deliveredBytes,
  dueFlows,
  type FctPercentiles,
  fctPercentiles,
  goodputSpanNs,
} from "./flow-stats.js";
import { type LinkLoad, type LoadBalance, linkLoads, loadBalance } from "./links.js";
import type { LiveTiming } from "./live-timing.js";
import { SERIES_FILES, type Series } from "./series-recorder.js";

export { type LiveTiming, liveTiming, type SyncExactness } from "./live-timing.js";

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
}

export interface Summary {
  /**
   * Payload bytes the receivers accepted (`deliveredBytes`, finished messages or not) over the span from the
   * first start to the last completion, or to the end of the run when a flow did not complete.
   */
  readonly goodputBps: number;
  readonly deliveredBytes: number;
  /**
   * FCT percentiles over every flow due within the run: an unfinished flow counts as at least the time from its start to the
   * end of the run, and a percentile that reaches one is marked as a lower bound (`atLeast`). Null: no flow.
   */
  readonly fctNs: FctPercentiles | null;
  /** One-way delay of data packets, sending NIC to receiving NIC. */
  readonly latencyNs: Percentiles;
  /** PFC XOFF frames sent by all devices (refreshes included). */
  readonly pauseFramesTx: number;
  /** Time egress queues spent paused by a received PFC, summed over every port and priority. */
  readonly pauseTimeNs: number;
  readonly ecnMarked: number;
  readonly cnpSent: number;
  readonly cnpHandled: number;
  readonly drops: { readonly lossless: number; readonly lossy: number };
  readonly flowsCompleted: number;
  /**
   * Flows due that had neither completed nor failed when the run ended. Derivable (due − completed − failed)
   * but kept in report.json: readers of the file see it without knowing the rule, and the goldens pin it.
   */
  readonly flowsUnfinished: number;
  /** Flows whose start lay after the end of the run (a workload cut short): in no statistic. */
  readonly flowsNotDue: number;
  /** Flows whose work completion carried an error, and how many of each (flow-report.ts FlowError). */
  readonly flowsFailed: number;
  readonly flowsFailedBy: Readonly<Partial<Record<FlowError, number>>>;
  readonly flowsTotal: number;
  /** Packets the NICs sent again, over all flows (completed or not). */
  readonly retransmits: number;
  /** Largest egress queue seen on any switch port, bytes. */
  readonly queuePeakBytes: number;
  /** CNPs per second of run time. */
  readonly cnpPerSecond: number;
}

export interface DeviceReport {
  readonly kind: "switch" | "nic";
  readonly counters: Record<string, number>;
  readonly ports: Record<
    string,
    Record<string, number> & { queues?: Record<string, Record<string, number>> }
  >;
  /** A switch running LLDP: its neighbour table ("eth1" -> "spine1:eth3 10.0.0.1"). */
  readonly lldp?: Record<string, string>;
  /** A switch's link aggregation groups ("po1" -> "lacp hash: eth1 active, eth2 down"). */
  readonly lag?: Record<string, string>;
}

export interface Report {
  readonly scenario: string;
  readonly description: string;
  readonly runtime: "sim" | "live";
  readonly seed: number;
  readonly durationNs: number;
  readonly sampleNs: number;
  readonly dilation?: number;
  readonly topology: { readonly name: string; readonly source: string };
  readonly summary: Summary;
  readonly flows: readonly FlowReport[];
  readonly devices: Readonly<Record<string, DeviceReport>>;
  /** Bytes and utilisation of each direction of each link, over the job's span (links.ts). */
  readonly links?: readonly LinkLoad[];
  /** Max / mean utilisation of the switch-to-switch links that carried traffic. */
  readonly loadBalance?: LoadBalance;
  readonly files: Readonly<Record<string, string>>;
  /** Real time the run took, ms. */
  readonly wallClockMs: number;
  /** Live runs: what the machine did to the run's timing. */
  readonly live?: LiveTiming;
}

/** Nearest-rank percentile of unsorted values (0 when empty). */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function percentiles(values: readonly number[]): Percentiles {
  return { p50: percentile(values, 0.5), p99: percentile(values, 0.99), p999: percentile(values, 0.999) };
}

/** A per-(port, priority) counter both devices keep, summed over every device, port and priority. */
function sumPerPriority(stats: readonly AnyDeviceStats[], def: CounterDef): number {
  let total = 0;
  for (const s of stats) {
    for (const p of s.ports)
      for (let priority = 0; priority < PRIORITIES; priority++)
        total += readCounter(p.counters, def, { priority });
  }
  return total;
}

/** A device-wide counter summed over `stats`. */
function sumCounters(stats: readonly AnyDeviceStats[], def: CounterDef): number {
  let total = 0;
  for (const s of stats) total += readCounter(s.counters, def);
  return total;
}

export interface SummaryInputs {
  readonly stats: readonly AnyDeviceStats[];
  readonly flows: readonly FlowReport[];
  readonly latency: Percentiles;
  readonly durationNs: number;
}

export function summarise({ stats, flows, latency, durationNs }: SummaryInputs): Summary {
  const switches = stats.filter((s) => s.kind === "switch");
  const nics = stats.filter((s) => s.kind === "nic");
  const done = flows.filter((f) => f.outcome === "completed");
  const failed = flows.filter((f) => f.outcome === "failed");
  const failedBy: Partial<Record<FlowError, number>> = {};
  for (const f of flows) if (f.error !== null) failedBy[f.error] = (failedBy[f.error] ?? 0) + 1;
  const due = dueFlows(flows, durationNs);
  const delivered = deliveredBytes(stats);
  const span = goodputSpanNs(due, durationNs);
  let queuePeak = 0;
  let ecn = 0;
  for (const s of switches) {
    for (const p of s.ports) {
      for (const q of p.queues ?? []) {
        queuePeak = Math.max(queuePeak, readCounter(q.counters, SwitchCounter.watermark));
        ecn += readCounter(q.counters, SwitchCounter.ecnMarked);
      }
    }
  }
  const cnpSent = sumCounters(nics, NicCounter.npCnpSent);
  return {
    goodputBps: span > 0 ? (delivered * 8e9) / span : 0,
    deliveredBytes: delivered,
    fctNs: fctPercentiles(due, durationNs),
    latencyNs: latency,
    pauseFramesTx: sumPerPriority(stats, PfcCounter.txPause),
    pauseTimeNs: sumPerPriority(stats, PfcCounter.rxPauseDuration),
    ecnMarked: ecn,
    cnpSent,
    cnpHandled: sumCounters(nics, NicCounter.rpCnpHandled),
    drops: {
      lossless: sumCounters(switches, SwitchCounter.droppedLossless),
      lossy: sumCounters(switches, SwitchCounter.droppedLossy),
    },
    flowsCompleted: done.length,
    flowsUnfinished: due.length - done.length - failed.length,
    flowsNotDue: flows.length - due.length,
    flowsFailed: failed.length,
    flowsFailedBy: failedBy,
    flowsTotal: flows.length,
    // Every packet the NICs sent again, also for flows that never completed (they have no record).
    retransmits: sumCounters(nics, NicCounter.retransmittedPackets),
    queuePeakBytes: queuePeak,
    cnpPerSecond: durationNs > 0 ? (cnpSent * 1e9) / durationNs : 0,
  };
}

export function deviceReport(s: AnyDeviceStats): DeviceReport {
  const ports: DeviceReport["ports"] = {};
  for (const p of s.ports) {
    const entry: Record<string, number> & { queues?: Record<string, Record<string, number>> } = {
      ...p.counters,
    };
    if (p.queues) {
      entry.queues = {};
      for (const q of p.queues) {
        // Idle queues add nothing but noise.
        if (Object.values(q.counters).some((v) => v !== 0)) entry.queues[String(q.queue)] = { ...q.counters };
      }
    }
    ports[p.name] = entry;
  }
  const detail = s.kind === "switch" ? s.detail : undefined;
  const lags =
    detail?.lag === undefined
      ? {}
      : { lag: Object.fromEntries(detail.lag.map((g) => [g.name, lagSummary(g)])) };
  const lldp = detail?.lldp;
  if (lldp === undefined) return { kind: s.kind, counters: { ...s.counters }, ports, ...lags };
  const neighbours: Record<string, string> = {};
  for (const n of lldp.neighbours) neighbours[n.portName] = lldpNeighbourText(n);
  return { kind: s.kind, counters: { ...s.counters }, ports, lldp: neighbours, ...lags };
}

/** "spine1:eth3 10.0.0.1": who an LLDP neighbour is, as `rocelab stats` and reports show it. */
export function lldpNeighbourText(n: LldpNeighbour): string {
  const ip = n.managementIp === null ? "" : ` ${ipToString(n.managementIp)}`;
  return `${n.systemName ?? n.chassisId}:${n.portId}${ip}`;
}

/** The report of a finished run, from the final stats of every device and the flow list. */
/**
 * Where the topology came from, as a report may carry it: relative to the working directory when the file
 * is below it (a committed report must not name the machine's directories), "built-in" and the like as is.
 */
export function portableSource(source: string): string {
  if (!isAbsolute(source)) return source;
  const rel = relative(process.cwd(), source);
  return rel.startsWith("..") || isAbsolute(rel) ? basename(source) : rel;
}

export function assembleReport(
  sc: Scenario,
  stats: readonly AnyDeviceStats[],
  flows: readonly FlowReport[],
  run: {
    readonly runtime: "sim" | "live";
    readonly wallClockMs: number;
    readonly dilation?: number;
    readonly live?: LiveTiming;
  },
): Report {
  // One-way latency: the NICs' histograms, merged (they travel as snapshots with their buckets).
  const latency = new Histogram();
  for (const s of stats) {
    const detail = s.kind === "nic" ? s.detail : undefined;
    if (detail) latency.merge(Histogram.fromSnapshot(detail.latency));
  }
  const started = flows.map((f) => f.startNs);
  const ended = flows.filter((f) => f.endNs !== null).map((f) => f.endNs!);
  const spanNs =
    started.length > 0 && ended.length === flows.length
      ? Math.max(...ended) - Math.min(...started)
      : sc.durationNs - (started.length > 0 ? Math.min(...started) : 0);
  const links = linkLoads(sc.topology, stats, spanNs);
  const lat =
    latency.count > 0
      ? { p50: latency.percentile(0.5), p99: latency.percentile(0.99), p999: latency.percentile(0.999) }
      : percentiles([]);
  return {
    scenario: sc.name,
    description: sc.description,
    runtime: run.runtime,
    seed: sc.seed,
    durationNs: sc.durationNs,
    sampleNs: sc.sampleNs,
    ...(run.dilation !== undefined ? { dilation: run.dilation } : {}),
    topology: { name: sc.topology.name, source: portableSource(sc.topology.source) },
    summary: summarise({ stats, flows, latency: lat, durationNs: sc.durationNs }),
    flows,
    devices: Object.fromEntries(stats.map((s) => [s.name, deviceReport(s)])),
    links,
    loadBalance: loadBalance(links),
    files: { ...SERIES_FILES, events: "events.jsonl" },
    wallClockMs: Math.round(run.wallClockMs),
    ...(run.live !== undefined ? { live: run.live } : {}),
  };
}

/** Writes the report, its series and events (event-order.ts) into `dir` (safe-files.ts: never through a planted link). */
export function writeReport(
  dir: OutputDir,
  report: Report,
  series: readonly Series[],
  events: readonly string[],
): void {
  for (const s of series) s.write(dir);
  dir.write("events.jsonl", events.length ? `${orderEvents(events).join("\n")}\n` : "");
  dir.write("report.json", `${JSON.stringify(report, null, 2)}\n`);
}
