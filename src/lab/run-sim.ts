// Runs a scenario in the virtual-time runtime: the whole fabric in this process, deterministic for its
// seed, producing the same report and time series as a live run.

import type { DeviceStats } from "../device/contract.js";
import { createRandom } from "../device/prng.js";
import { Histogram } from "../nic/histogram.js";
import { Nic, type NicDetail } from "../nic/nic.js";
import { generateFlows } from "../nic/workloads.js";
import type { SimEvent } from "../runtime/sim/simulator.js";
import type { SwitchTunables } from "../switch/config.js";
import { FlowDriver } from "./flow-driver.js";
import { buildNicConfig, mergeNicSettings, resolveDcqcn } from "./nic-config.js";
import {
  deviceReport,
  type FlowReport,
  percentiles,
  type Report,
  Series,
  summarise,
  writeReport,
} from "./report.js";
import type { Scenario } from "./scenario.js";
import type { NicSettings, SwitchSettings } from "./schema.js";
import { SimFabric } from "./sim-fabric.js";
import { resolveTunables } from "./switch-config.js";

export interface SimRunOptions {
  /** Write report.json, the CSV series and events.jsonl here. */
  readonly outDir?: string;
  /** Called every `progressEveryNs` of emulated time with the emulated clock. */
  readonly onProgress?: (now: number, sc: Scenario) => void;
  readonly progressEveryNs?: number;
  /** Sees every telemetry event as it happens. */
  readonly onEvent?: (e: SimEvent) => void;
}

export interface SimRunResult {
  readonly report: Report;
  readonly fabric: SimFabric;
}

export const SERIES_FILES = {
  queueDepth: "queue-depth.csv",
  pauseState: "pause-state.csv",
  buffer: "buffer.csv",
  qpRate: "qp-rate.csv",
  flowRate: "flow-rate.csv",
} as const;

/** Runs a scenario to its end. */
export function runScenarioSim(sc: Scenario, opts: SimRunOptions = {}): SimRunResult {
  const started = performance.now();
  const topo = sc.topology;
  const hostLayers: NicSettings[] = [...sc.overrides.hosts];
  const switchLayers = new Map<string, SwitchSettings[]>();
  for (const n of topo.nodes) {
    if (n.kind === "switch")
      switchLayers.set(n.name, [...sc.overrides.switches, ...(sc.overrides.nodes[n.name] ?? [])]);
  }
  const fabric = new SimFabric(
    topo,
    (host, address, link, env) =>
      new Nic(buildNicConfig({ host, address, link, mtu: topo.mtu }, hostLayers, { answerArp: true }), env),
    { seed: sc.seed, switchSettings: sc.overrides.switches, nodeSettings: sc.overrides.nodes },
  );
  const sim = fabric.sim;
  const nics = fabric.hosts as Map<string, Nic>;
  const driver = new FlowDriver(fabric.plan, {
    command: (host, cmd) => {
      const reply = nics.get(host)!.command(cmd, sim.now);
      if (!reply.ok) throw new Error(`${host}: ${reply.error}`);
    },
    schedule: (at, fn) => sim.at(at, fn),
  });

  const events: string[] = [];
  sim.onEvent((e) => {
    events.push(JSON.stringify(e));
    opts.onEvent?.(e);
    if (e.kind === "flow-done" && e.detail !== undefined) driver.onFlowDone(Number(e.detail), e.t);
  });

  for (const step of sc.timeline) {
    sim.at(step.atNs, (now) => {
      switch (step.kind) {
        case "start": {
          const random = createRandom(sc.seed, `workload:${step.workload.name}`);
          driver.add(generateFlows(step.workload, now, random, driver.newId));
          break;
        }
        case "set":
          for (const [name, sw] of fabric.switches) {
            const layers = switchLayers.get(name)!;
            layers.push(...step.change.switches, ...(step.change.nodes[name] ?? []));
            const tunables: Partial<SwitchTunables> = resolveTunables(topo, name, layers);
            sw.command({ type: "configure", tunables }, now);
          }
          if (step.change.hosts.length > 0) {
            hostLayers.push(...step.change.hosts);
            const merged = mergeNicSettings(hostLayers);
            for (const nic of nics.values()) {
              nic.command(
                {
                  type: "configure",
                  dcqcn: resolveDcqcn(merged),
                  ...(merged.ackReqEvery !== undefined ? { ackReqEvery: merged.ackReqEvery } : {}),
                  ...(merged.rto !== undefined ? { rtoNs: merged.rto } : {}),
                  ...(merged.ackDscp !== undefined ? { ackDscp: merged.ackDscp } : {}),
                },
                now,
              );
            }
          }
          break;
        case "link":
          fabric.setLinkUp(fabric.linkId(step.node, step.port), step.up);
          break;
        case "stop":
          driver.stop(step.workloads);
          break;
      }
    });
  }

  const series = {
    queueDepth: new Series(SERIES_FILES.queueDepth, ["t_ns", "device", "port", "queue", "bytes"]),
    pauseState: new Series(SERIES_FILES.pauseState, ["t_ns", "device", "port", "priority", "paused"]),
    buffer: new Series(SERIES_FILES.buffer, ["t_ns", "device", "kind", "bytes"]),
    qpRate: new Series(SERIES_FILES.qpRate, ["t_ns", "host", "qpn", "metric", "value"]),
    flowRate: new Series(SERIES_FILES.flowRate, ["t_ns", "host", "qpn", "goodput_bps"]),
  };
  const lastAcked = new Map<string, number>();
  let lastSampleAt = 0;
  const sample = (now: number): void => {
    for (const [name, sw] of fabric.switches) recordSwitch(series, now, sw.stats(now), name);
    const dt = now - lastSampleAt;
    for (const [name, nic] of nics) {
      const detail = nic.stats(now).detail as NicDetail;
      for (const qp of detail.qps) {
        series.qpRate.record(now, [name, qp.qpn, "rate_bps"], Math.round(qp.rateBps));
        series.qpRate.record(now, [name, qp.qpn, "alpha"], qp.alpha);
        const key = `${name}/${qp.qpn}`;
        const acked = qp.bytesAcked + qp.readBytesReceived;
        if (dt > 0)
          series.flowRate.record(
            now,
            [name, qp.qpn],
            Math.round(((acked - (lastAcked.get(key) ?? 0)) * 8e9) / dt),
          );
        lastAcked.set(key, acked);
      }
    }
    lastSampleAt = now;
  };
  for (let t = 0; t <= sc.durationNs; t += sc.sampleNs) sim.at(t, sample);

  const every = opts.progressEveryNs ?? Math.max(sc.sampleNs, Math.round(sc.durationNs / 50));
  for (let t = every; t < sc.durationNs; t += every) {
    sim.run(t);
    opts.onProgress?.(t, sc);
  }
  sim.run(sc.durationNs);

  const report = buildReport(sc, fabric, driver, nics, "sim", performance.now() - started);
  if (opts.outDir) writeReport(opts.outDir, report, Object.values(series), events);
  return { report, fabric };
}

function recordSwitch(
  series: { queueDepth: Series; pauseState: Series; buffer: Series },
  now: number,
  s: DeviceStats,
  name: string,
): void {
  for (const p of s.ports) {
    for (const q of p.queues ?? []) {
      series.queueDepth.record(now, [name, p.name, q.queue], q.depthBytes);
      series.pauseState.record(now, [name, p.name, q.queue], q.paused ? 1 : 0);
    }
  }
  series.buffer.record(now, [name, "shared"], s.counters.buffer_shared_used_bytes ?? 0);
  series.buffer.record(now, [name, "headroom"], s.counters.buffer_headroom_used_bytes ?? 0);
}

export function buildReport(
  sc: Scenario,
  fabric: SimFabric,
  driver: FlowDriver,
  nics: ReadonlyMap<string, Nic>,
  runtime: "sim" | "live",
  wallClockMs: number,
): Report {
  const now = fabric.sim.now;
  const stats: DeviceStats[] = [];
  for (const sw of fabric.switches.values()) stats.push(sw.stats(now));
  const records = new Map<string, NicDetail["flows"]>();
  const latency = new Histogram();
  for (const [name, nic] of nics) {
    const s = nic.stats(now);
    stats.push(s);
    const detail = s.detail as NicDetail;
    records.set(name, detail.flows);
    latency.merge(Histogram.fromSnapshot(detail.latency));
  }
  const flows: FlowReport[] = driver.report(records);
  const lat =
    latency.count > 0
      ? { p50: latency.percentile(0.5), p99: latency.percentile(0.99), p999: latency.percentile(0.999) }
      : percentiles([]);
  return {
    scenario: sc.name,
    description: sc.description,
    runtime,
    seed: sc.seed,
    durationNs: sc.durationNs,
    sampleNs: sc.sampleNs,
    topology: { name: sc.topology.name, source: sc.topology.source },
    summary: summarise({ stats, flows, latency: lat, durationNs: sc.durationNs }),
    flows,
    devices: Object.fromEntries(stats.map((s) => [s.name, deviceReport(s)])),
    files: { ...SERIES_FILES, events: "events.jsonl" },
    wallClockMs: Math.round(wallClockMs),
  };
}
