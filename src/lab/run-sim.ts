// Runs a scenario in the virtual-time runtime: the whole fabric in this process, deterministic for its
// seed, producing the same report and time series as a live run.

import { createRandom } from "../device/prng.js";
import { Nic } from "../nic/nic.js";
import type { NicDetail } from "../nic/stats-types.js";
import { generateFlows } from "../nic/workloads.js";
import type { SimEvent } from "../runtime/sim/simulator.js";
import { planAddresses } from "./address-plan.js";
import { type CaptureEndpoint, SimCapture } from "./capture.js";
import type { AnyDeviceStats } from "./device-stats.js";
import { FlowDriver } from "./flow-driver.js";
import { buildNicConfig } from "./nic-config.js";
import { assembleReport, type Report, writeReport } from "./report/report.js";
import { SeriesRecorder } from "./report/series-recorder.js";
import { roceV1Of } from "./rocev1.js";
import type { Scenario } from "./scenario.js";
import { SettingsLayers } from "./settings-layers.js";
import { SimFabric } from "./sim-fabric.js";
import { runTimeline, type TimelineLab } from "./timeline.js";

export interface SimRunOptions {
  /** Write report.json, the CSV series and events.jsonl here. */
  readonly outDir?: string;
  /** Called every `progressEveryNs` of emulated time with the emulated clock. */
  readonly onProgress?: (now: number, sc: Scenario) => void;
  readonly progressEveryNs?: number;
  /** Sees every telemetry event as it happens. */
  readonly onEvent?: (e: SimEvent) => void;
  /** Ports to capture: one pcap per port in `outDir` (capture.ts). */
  readonly captures?: readonly CaptureEndpoint[];
}

export interface SimRunResult {
  readonly report: Report;
  readonly fabric: SimFabric;
  /** The capture files written, with their frame counts. */
  readonly captures: readonly { file: string; frames: number }[];
}

/** Runs a scenario to its end. */
export function runScenarioSim(sc: Scenario, opts: SimRunOptions = {}): SimRunResult {
  const started = performance.now();
  const topo = sc.topology;
  const settings = new SettingsLayers(topo, sc.overrides);
  const fabric = new SimFabric(
    topo,
    (host, address, link, env) =>
      new Nic(
        buildNicConfig(
          { host, address, link, mtu: topo.mtu, l2: roceV1Of(topo, planAddresses(topo), host) },
          settings.hostSettings(),
          { answerArp: true },
        ),
        env,
      ),
    { seed: sc.seed, settings },
  );
  const sim = fabric.sim;
  const capture = opts.captures?.length ? new SimCapture(sim, opts.captures) : null;
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

  // Every step becomes a virtual-time event now, before the samples: at equal times a step runs first.
  const lab: TimelineLab<void> = {
    startWorkload: (atNs, spec, stream) =>
      driver.add(generateFlows(spec, atNs, createRandom(sc.seed, stream), driver.newId)),
    applySettings: (atNs, change) => {
      fabric.configureSwitches(change);
      if (change.hosts.length === 0) return;
      const configure = settings.hostConfigure(change.hosts);
      for (const nic of nics.values()) nic.command(configure, atNs);
    },
    setLink: (_atNs, node, port, up) => fabric.setLinkUp(fabric.linkId(node, port), up),
    stopWorkloads: (_atNs, workloads) => driver.stop(workloads),
  };
  runTimeline(sc.timeline, lab, { at: (atNs, run) => sim.at(atNs, run) });

  const recorder = new SeriesRecorder();
  const sample = (now: number): void => {
    const stats: AnyDeviceStats[] = [];
    for (const sw of fabric.switches.values()) stats.push(sw.stats(now));
    for (const nic of nics.values()) stats.push(nic.stats(now));
    recorder.sample(now, stats);
  };
  for (let t = 0; t <= sc.durationNs; t += sc.sampleNs) sim.at(t, sample);

  const every = opts.progressEveryNs ?? Math.max(sc.sampleNs, Math.round(sc.durationNs / 50));
  for (let t = every; t < sc.durationNs; t += every) {
    sim.run(t);
    opts.onProgress?.(t, sc);
  }
  sim.run(sc.durationNs);

  const now = sim.now;
  const stats: AnyDeviceStats[] = [];
  for (const sw of fabric.switches.values()) stats.push(sw.stats(now));
  const records = new Map<string, NicDetail["flows"]>();
  for (const [name, nic] of nics) {
    const s = nic.stats(now);
    stats.push(s);
    records.set(name, s.detail.flows);
  }
  const report = assembleReport(sc, stats, driver.report(records), {
    runtime: "sim",
    wallClockMs: performance.now() - started,
  });
  if (opts.outDir) writeReport(opts.outDir, report, recorder.all, events);
  const captures = opts.outDir && capture ? capture.write(opts.outDir) : [];
  return { report, fabric, captures };
}
