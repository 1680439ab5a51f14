// What a scenario run in the simulator sets up before it runs: the fabric, the flow driver, the controllers,
// the event listeners, the timeline's actions and the samples, in this order (the order decides which of
// the actions of one nanosecond runs first). The single-threaded run (run-sim.ts) and every partition of a
// parallel run (sim-partition-run.ts) build the same, so both carry out the same actions at the same
// times: a partition differs only in which devices it simulates (`owns`) and in how it logs events.

import { AI_ECN_CONTROL_DELAY_NS, AiEcnAnalyser } from "../control/ai-ecn-analyser.js";
import { PathNavMode } from "../control/path-nav/plan.js";
import { SimPathNavigator } from "../control/path-nav/sim-navigator.js";
import { type CaptureEndpoint, SimCapture } from "../lab/capture.js";
import { FlowDriver, type FlowRuntime, feedFlowEvent } from "../lab/flow-driver.js";
import { SimActions } from "../lab/sim/sim-actions.js";
import { SimFabric } from "../lab/sim/sim-fabric.js";
import { simDeviceMetrics } from "../lab/sim/sim-metrics.js";
import { runTimeline } from "../lab/timeline.js";
import type { OpenMetricsRecorder } from "../metrics/openmetrics.js";
import { Nic } from "../nic/nic.js";
import type { FlowSpec } from "../nic/workloads.js";
import { SeriesRecorder } from "../report/series-recorder.js";
import { SeriesSampler } from "../report/series-sampler.js";
import type { FrameTap, SimEvent, Simulator } from "../runtime/sim/simulator.js";
import { planAddresses } from "../scenario/address-plan.js";
import { fabricBaseRtt } from "../scenario/fabric-rtt.js";
import { buildNicConfig } from "../scenario/nic-config.js";
import { roceV1Of } from "../scenario/rocev1.js";
import type { Scenario } from "../scenario/scenario.js";
import { SettingsLayers } from "../scenario/settings-layers.js";
import { bringUpNs, TimeZeroBaselines } from "./bring-up.js";

/** Default interval at which the path-navigation controller reads the LLDP tables. */
const PATH_NAV_INTERVAL_NS = 20_000;
/** LLDP as the controller needs it: every 100 µs of emulated time (the 802.1AB default is 30 s). */
const PATH_NAV_LLDP = { switches: [{ lldp: { enabled: true, txInterval: 100_000 } }], nodes: {}, hosts: [] };

/** What a run's set-up takes from its caller's options (run-sim.ts SimRunOptions). */
export interface SimSetupOptions {
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

/** A partition of a parallel run: the devices it simulates, and where its events go. */
export interface PartitionSetup {
  readonly owns: (device: string) => boolean;
  readonly log: (e: SimEvent) => void;
}

export interface SimRunParts {
  readonly fabric: SimFabric;
  readonly sim: Simulator;
  readonly nics: Map<string, Nic>;
  readonly driver: FlowDriver;
  readonly recorder: SeriesRecorder;
  readonly navigator: SimPathNavigator | null;
  readonly capture: SimCapture | null;
  /** The event log, as JSON lines (kept when `keepEvents`; a partition logs through its `log`). */
  readonly events: string[];
  /** Every device's tables at time 0, after the bring-up (bring-up.ts): a report counts from them. */
  readonly baselines: TimeZeroBaselines;
}

/** Sets a run up, to its first event; `part` makes it one partition of a parallel run. */
export function buildSimRun(
  sc: Scenario,
  opts: SimSetupOptions,
  keepEvents: boolean,
  part?: PartitionSetup,
): SimRunParts {
  const topo = sc.topology;
  // One address plan for every NIC's RoCEv1 settings (not one per NIC: it walks every link).
  const plan = planAddresses(topo);
  const navMode = sc.controller?.pathNavigation;
  // The controller learns the fabric from LLDP: it runs on every switch, under the scenario's overrides.
  const settings =
    navMode === undefined
      ? new SettingsLayers(topo, sc.overrides)
      : new SettingsLayers(topo, PATH_NAV_LLDP, sc.overrides);
  const fabricRttNs = fabricBaseRtt(topo);
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
            fabricRttNs,
          },
          settings.hostSettings(),
          { answerArp: true },
        ),
        env,
      ),
    {
      seed: sc.seed,
      settings,
      startNs: -bringUpNs(topo),
      // A partition builds only its own devices; the others stand in (ghost-device.ts).
      ...(part === undefined ? {} : { owns: part.owns }),
    },
  );
  const sim = fabric.sim;
  // Time 0's first action: every device's tables as the run starts, after the bring-up.
  const baselines = new TimeZeroBaselines();
  const owned = <D>(m: ReadonlyMap<string, D>) => [...m].filter(([n]) => part === undefined || part.owns(n));
  sim.at(0, (now) => {
    baselines.take(owned(fabric.switches), now);
    baselines.take(owned(fabric.hosts), now);
  });
  const capture = opts.captures?.length ? new SimCapture(sim, opts.captures) : null;
  if (opts.onFrame) sim.onFrame(opts.onFrame);
  const nics = fabric.hosts as Map<string, Nic>;
  const runtime: FlowRuntime = {
    command: (host, cmd) => {
      const reply = nics.get(host)!.command(cmd, sim.now);
      // A ghost's reply (a device of another partition) says nothing: its partition checks the real one.
      if (!reply.ok && (part === undefined || part.owns(host))) throw new Error(`${host}: ${reply.error}`);
    },
    schedule: (at, fn) => sim.at(at, fn),
  };
  const driver =
    part === undefined ? new FlowDriver(fabric.plan, runtime) : new PartitionFlowDriver(fabric.plan, runtime);

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

  const events: string[] = [];
  // AI ECN's central analyser: its thresholds reach the switch one control-loop delay after the features.
  const analyser = new AiEcnAnalyser((device, cmd) => {
    if (part !== undefined) throw new Error(PARTITION_REFUSALS.aiEcn);
    sim.at(sim.now + AI_ECN_CONTROL_DELAY_NS, () => fabric.switches.get(device)?.command(cmd, sim.now));
  });
  sim.onEvent((e) => {
    if (e.t < 0) return; // the bring-up's (bring-up.ts)
    if (part !== undefined) part.log(e);
    else if (keepEvents) events.push(JSON.stringify(e));
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
  const sampler =
    part === undefined
      ? new SeriesSampler(recorder, fabric.switches, nics)
      : new SeriesSampler(recorder, new OwnedMap(fabric.switches, part.owns), new OwnedMap(nics, part.owns));
  const sample = (now: number): void => sampler.sample(now);
  for (let t = 0; t <= sc.durationNs; t += sc.sampleNs) sim.at(t, sample);
  const metrics = opts.metrics;
  if (metrics !== undefined) {
    const every = opts.metricsEveryNs ?? Math.max(sc.sampleNs, Math.ceil(sc.durationNs / 200));
    for (let t = 0; t <= sc.durationNs; t += every)
      sim.at(t, (now) => metrics.sample(now, simDeviceMetrics(fabric, nics, now)));
  }
  return { fabric, sim, nics, driver, recorder, navigator, capture, events, baselines };
}

/** Why a run cannot be split over workers (the features that need every device within one nanosecond). */
export const PARTITION_REFUSALS = {
  aiEcn: "AI ECN's central analyser acts on every switch's reports as they happen: run it with --workers 1",
  dependent:
    "a workload with dependent flows (ring all-reduce steps, `after`) posts a flow the nanosecond another " +
    "completes, on any host: run it with --workers 1",
  reconnect: "`onError: reconnect` posts again the nanosecond a flow fails: run it with --workers 1",
} as const;

/**
 * The driver of a partition: every partition posts every flow (to its ghosts too), and reacts to no
 * completion, as it sees only its own hosts' completions. So it refuses the flows whose posting depends on
 * a completion.
 */
class PartitionFlowDriver extends FlowDriver {
  override add(flows: readonly FlowSpec[]): void {
    for (const f of flows) {
      if (f.after.length > 0) throw new Error(PARTITION_REFUSALS.dependent);
      if (f.reconnect === true) throw new Error(PARTITION_REFUSALS.reconnect);
    }
    super.add(flows);
  }
}

/** The entries of a device map that a partition owns; `get` reads through (a restart replaces an entry). */
class OwnedMap<V> extends Map<string, V> {
  constructor(
    private readonly all: ReadonlyMap<string, V>,
    private readonly owns: (name: string) => boolean,
  ) {
    super([...all].filter(([name]) => owns(name)));
  }

  override get(name: string): V | undefined {
    return this.owns(name) ? this.all.get(name) : undefined;
  }
}
