// Runs a scenario in the virtual-time runtime: the whole fabric in this process, deterministic for its
// seed, producing the same report and time series as a live run.

import { AI_ECN_CONTROL_DELAY_NS, AiEcnAnalyser } from "../control/ai-ecn-analyser.js";
import { PathNavMode } from "../control/path-nav/plan.js";
import { type PathNavReport, SimPathNavigator } from "../control/path-nav/sim-navigator.js";
import { type CaptureEndpoint, SimCapture } from "../lab/capture.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import { FlowDriver, feedFlowEvent } from "../lab/flow-driver.js";
import { SimActions } from "../lab/sim/sim-actions.js";
import { SimFabric } from "../lab/sim/sim-fabric.js";
import { simDeviceMetrics } from "../lab/sim/sim-metrics.js";
import { runTimeline } from "../lab/timeline.js";
import type { OpenMetricsRecorder } from "../metrics/openmetrics.js";
import { Nic } from "../nic/nic.js";
import type { NicDetail } from "../nic/stats-types.js";
import { assembleReport, type Report, writeReport } from "../report/report.js";
import { SeriesRecorder } from "../report/series-recorder.js";
import { SeriesSampler } from "../report/series-sampler.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import type { FrameTap, SimEvent } from "../runtime/sim/simulator.js";
import { planAddresses } from "../scenario/address-plan.js";
import { fabricBaseRtt } from "../scenario/fabric-rtt.js";
import { buildNicConfig } from "../scenario/nic-config.js";
import { roceV1Of } from "../scenario/rocev1.js";
import type { Scenario } from "../scenario/scenario.js";
import { SettingsLayers } from "../scenario/settings-layers.js";

export interface SimRunOptions {
  /** Write report.json, the CSV series and events.jsonl here (a new or empty directory: safe-files.ts). */
  readonly outDir?: string;
  /** --force: write into `outDir` even if it holds files. */
  readonly force?: boolean;
  /** Called every `progressEveryNs` of emulated time with the emulated clock. */
  readonly onProgress?: (now: number, sc: Scenario) => void;
  readonly progressEveryNs?: number;
  /** Sees every telemetry event as it happens. */
  readonly onEvent?: (e: SimEvent) => void;
  /** Ports to capture: one pcap per port in `outDir` (capture.ts). */
  readonly captures?: readonly CaptureEndpoint[];
  /** Sees every frame put on a link (tests check which links a flow's packets crossed). */
  readonly onFrame?: FrameTap;
  /** Records every device's metrics as a time series (`--openmetrics`), every `metricsEveryNs`. */
  readonly metrics?: OpenMetricsRecorder;
  /** Default: the scenario's sample interval, but at most 200 points over the run. */
  readonly metricsEveryNs?: number;
}

export interface SimRunResult {
  readonly report: Report;
  readonly fabric: SimFabric;
  /** The capture files written, with their frame counts. */
  readonly captures: readonly { file: string; frames: number }[];
  /** What the path-navigation controller planned (when the scenario runs it). */
  readonly pathNavigation?: PathNavReport;
}

/** Default interval at which the path-navigation controller reads the LLDP tables. */
const PATH_NAV_INTERVAL_NS = 20_000;
/** LLDP as the controller needs it: every 100 µs of emulated time (the 802.1AB default is 30 s). */
const PATH_NAV_LLDP = { switches: [{ lldp: { enabled: true, txInterval: 100_000 } }], nodes: {}, hosts: [] };

/** Runs a scenario to its end. */
export function runScenarioSim(sc: Scenario, opts: SimRunOptions = {}): SimRunResult {
  // Checked before the run: an output directory that will be refused must not cost the whole run first.
  const out =
    opts.outDir === undefined
      ? null
      : OutputDir.create(opts.outDir, { force: opts.force ?? false, flag: "--out" });
  try {
    return runTo(sc, opts, out);
  } finally {
    out?.close();
  }
}

function runTo(sc: Scenario, opts: SimRunOptions, out: OutputDir | null): SimRunResult {
  const started = performance.now();
  const topo = sc.topology;
  // One address plan for every NIC's RoCEv1 settings (not one per NIC: it walks every link).
  const plan = planAddresses(topo);
  const navMode = sc.controller?.pathNavigation;
  // The controller learns the fabric from LLDP: it runs on every switch, under the scenario's overrides.
  const settings =
    navMode === undefined
      ? new SettingsLayers(topo, sc.overrides)
      : new SettingsLayers(topo, PATH_NAV_LLDP, sc.overrides);
  const fabric = new SimFabric(
    topo,
    (host, address, link, env) =>
      new Nic(
        buildNicConfig(
          {
            host,
            address,
            link,
            mtu: topo.mtu,
            l2: roceV1Of(topo, plan, host),
            fabricRttNs: fabricBaseRtt(topo),
          },
          settings.hostSettings(),
          { answerArp: true },
        ),
        env,
      ),
    { seed: sc.seed, settings },
  );
  const sim = fabric.sim;
  const capture = opts.captures?.length ? new SimCapture(sim, opts.captures) : null;
  if (opts.onFrame) sim.onFrame(opts.onFrame);
  const nics = fabric.hosts as Map<string, Nic>;
  const driver = new FlowDriver(fabric.plan, {
    command: (host, cmd) => {
      const reply = nics.get(host)!.command(cmd, sim.now);
      if (!reply.ok) throw new Error(`${host}: ${reply.error}`);
    },
    schedule: (at, fn) => sim.at(at, fn),
  });

  const navigator =
    navMode === undefined
      ? null
      : new SimPathNavigator(
          navMode === "host" ? PathNavMode.Host : PathNavMode.Network,
          sc.controller?.interval ?? PATH_NAV_INTERVAL_NS,
          fabric,
          nics,
          driver,
        );
  navigator?.schedule(sc.durationNs);

  // The event log is only kept when it will be written.
  const events: string[] = [];
  const keepEvents = out !== null;
  // AI ECN's central analyser: its thresholds reach the switch one control-loop delay after the features.
  const analyser = new AiEcnAnalyser((device, cmd) =>
    sim.at(sim.now + AI_ECN_CONTROL_DELAY_NS, () => fabric.switches.get(device)?.command(cmd, sim.now)),
  );
  sim.onEvent((e) => {
    if (keepEvents) events.push(JSON.stringify(e));
    opts.onEvent?.(e);
    analyser.onEvent(e);
    feedFlowEvent(driver, e);
  });

  // Every step becomes a virtual-time event now, before the samples: at equal times a step runs first.
  const actions = new SimActions({ fabric, nics, driver, seed: sc.seed });
  runTimeline(
    sc.timeline,
    (action, atNs) => {
      actions.apply(action, atNs);
      if (action.kind === "start") navigator?.workloadStarted(atNs);
    },
    { at: (atNs, run) => sim.at(atNs, run) },
  );

  const recorder = new SeriesRecorder();
  const sampler = new SeriesSampler(recorder, fabric.switches, nics);
  const sample = (now: number): void => sampler.sample(now);
  for (let t = 0; t <= sc.durationNs; t += sc.sampleNs) sim.at(t, sample);
  const metrics = opts.metrics;
  if (metrics !== undefined) {
    const every = opts.metricsEveryNs ?? Math.max(sc.sampleNs, Math.ceil(sc.durationNs / 200));
    for (let t = 0; t <= sc.durationNs; t += every)
      sim.at(t, (now) => metrics.sample(now, simDeviceMetrics(fabric, nics, now)));
  }

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
  if (out) writeReport(out, report, recorder.all, events);
  const captures = out && capture ? capture.write(out) : [];
  const pathNavigation = navigator?.report();
  if (out && pathNavigation)
    out.write("path-navigation.json", `${JSON.stringify(pathNavigation, null, 2)}\n`);
  return pathNavigation ? { report, fabric, captures, pathNavigation } : { report, fabric, captures };
}
