// Runs a scenario in the live lab: brings up a lab of its own for the scenario's topology, applies the
// overrides, plays the timeline against the lab's emulated clock, samples every device, and writes the
// same report and time series as the simulator (times relative to the scenario's start). The lab is taken
// down at the end, also on failure or Ctrl-C.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { AiEcnAnalyser } from "../control/ai-ecn-analyser.js";
import { LiveNavigator } from "../control/path-nav/live-navigator.js";
import type { CaptureEndpoint } from "../lab/capture.js";
import type { FlowReport } from "../lab/flow-report.js";
import type { LabEvent } from "../lab/lab.js";
import { describeLiveCapture, type LiveCapture, startLiveCapture } from "../lab/live/capture.js";
import type { ClockMode } from "../lab/live/clock-plan.js";
import { scenarioIntBytes } from "../lab/live/device-inits.js";
import { AHEAD_REAL_MS } from "../lab/live/fleet-traffic.js";
import { downLab, LiveLab, upLab } from "../lab/live/live-lab.js";
import type { MetricsSettings } from "../lab/live/metrics-endpoint.js";
import { type LabStatus, LIVE_REACTION_MS } from "../lab/live/supervisor.js";
import { type ApplyStep, runTimeline, workloadStream } from "../lab/timeline.js";
import { lateFramesDuring } from "../report/live-timing.js";
import { assembleReport, liveTiming, type Report, writeReport } from "../report/report.js";
import { SeriesRecorder } from "../report/series-recorder.js";
import { OutputDir, writeNewFile } from "../runtime/realtime/safe-files.js";
import { describeAction } from "../scenario/action.js";
import { planAddresses } from "../scenario/address-plan.js";
import type { Scenario } from "../scenario/scenario.js";
import type { SettingsChange } from "../scenario/settings-layers.js";
import { NodeKind } from "../scenario/topology.js";
import { armBaselines, sinceTimeZero } from "./live-baseline.js";
import { clockPaceNote, syncSum } from "./live-health.js";
import { LiveSeries } from "./live-series.js";

export interface LiveRunOptions {
  /** Write the report here (a new or empty directory: safe-files.ts). */
  readonly outDir?: string;
  /** --force: write into `outDir` even if it holds files. */
  readonly force?: boolean;
  readonly dilation: number;
  /** `--dilation auto`: `dilation` is where it starts (and the floor it comes back to). */
  readonly autoDilation?: boolean;
  /** How the devices' clocks run (default: synced). */
  readonly clock?: ClockMode;
  /** Lab name (default: a fresh "run<number>"). */
  readonly lab?: string;
  readonly onProgress?: (line: string) => void;
  /** Ports to capture with tcpdump for the run: one pcap per port in `outDir` (lab/capture.ts). */
  readonly captures?: readonly CaptureEndpoint[];
  /** Serve Prometheus /metrics on 127.0.0.1 while the run lasts (null or absent: none). */
  readonly metrics?: MetricsSettings | null;
  /** The scenario's emulated time, at every sample while the timeline plays. */
  readonly onTime?: (nowNs: number) => void;
  /**
   * Actions on the running lab at scenario times, beside the timeline: failure injection a scenario has
   * no step for (live-chaos.ts kills and restarts device processes). Awaited in order.
   */
  readonly actions?: readonly LiveAction[];
}

export interface LiveAction {
  readonly atNs: number;
  run(lab: LiveLab): Promise<void>;
}

/** Real time between two samples: the scenario's interval, but not more often than the lab can answer. */
const MIN_SAMPLE_REAL_MS = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}

/** Sleeps `ms`, waking early (within 100 ms) when `stop` turns true. */
async function sleepUnless(ms: number, stop: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!stop() && Date.now() < until) await sleep(Math.min(100, until - Date.now()));
}

/** The settings changes of a scenario's timeline, in order. */
function settingsChanges(sc: Scenario): SettingsChange[] {
  return sc.timeline.flatMap((s) => (s.action.kind === "set" ? [s.action.change] : []));
}

export async function runScenarioLive(sc: Scenario, opts: LiveRunOptions): Promise<Report> {
  const started = performance.now();
  // Checked before the lab comes up: a refused output directory must not cost a run first.
  const out =
    opts.outDir === undefined
      ? null
      : OutputDir.create(opts.outDir, { force: opts.force ?? false, flag: "--out" });
  try {
    return await runIn(sc, opts, out, started);
  } finally {
    out?.close();
  }
}

async function runIn(
  sc: Scenario,
  opts: LiveRunOptions,
  out: OutputDir | null,
  started: number,
): Promise<Report> {
  const lab = opts.lab ?? `run${process.pid % 100_000}`;
  const progress = opts.onProgress ?? (() => {});
  let topologyArg: string;
  let tmp: string | null = null;
  if (typeof sc.topologySource === "string") topologyArg = sc.topologySource;
  else {
    // A topology written inline in the scenario: the supervisor loads topologies from files.
    tmp = mkdtempSync(join(tmpdir(), "rocelab-"));
    topologyArg = join(tmp, `${sc.topology.name}.yaml`);
    writeNewFile(topologyArg, stringify(sc.topologySource));
  }
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
  };
  // `on`, not `once`: execa's signal-exit hook re-raises a signal when it sees no other listener left, which
  // would kill this process mid-run and leave the lab behind.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    progress(`bringing up lab ${lab} (dilation ${opts.dilation})`);
    await upLab({
      lab,
      topology: topologyArg,
      dilation: opts.dilation,
      ...(opts.autoDilation ? { autoDilation: true } : {}),
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
      seed: sc.seed,
      intRoomBytes: scenarioIntBytes(sc.topology, sc.overrides, settingsChanges(sc)),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      onProgress: (s) => progress(`  ${s}`),
    });
    const client = await LiveLab.connect(lab);
    let capture: LiveCapture | null = null;
    // The scenario's time 0 on the lab's clock and the dilation, once play() has set them.
    const clock = { t0: 0, dilation: 0 };
    try {
      if (opts.captures?.length && out) {
        capture = await startLiveCapture(lab, client, opts.captures, out, {
          origin: () => clock.t0,
          dilation: () => clock.dilation,
        });
      }
      return await play(sc, client, opts, out, started, () => interrupted, progress, clock);
    } finally {
      if (capture) for (const c of await capture.stop()) progress(`  ${describeLiveCapture(c)}`);
      await client.close();
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress(`taking lab ${lab} down`);
    await downLab(lab);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Carries out a timeline step's action on a running lab; `origin` is the lab's emulated time at the
 * scenario's start. A workload start is handed over ahead of its time (the timeline's clock below) and
 * carries its start time, so its flows start at the step's time on the NICs' own clocks.
 */
function liveStep(
  lab: LiveLab,
  progress: (line: string) => void,
  origin: () => number,
): ApplyStep<Promise<void>> {
  return async (action, atNs) => {
    await lab.apply(
      action.kind === "start"
        ? { ...action, stream: action.stream ?? workloadStream(action.workload.name), at: origin() + atNs }
        : action,
    );
    progress(`  ${(atNs / 1e3).toFixed(0)} µs: ${describeAction(action)}`);
  };
}

/** LLDP every 1 ms of emulated time on a live lab (a second of real time at dilation 1000). */
const LIVE_LLDP_INTERVAL_NS = 1_000_000;

/** The scenario's path-navigation controller, with LLDP on and the tables heard; null when it has none. */
async function startNavigator(
  sc: Scenario,
  lab: LiveLab,
  progress: (line: string) => void,
): Promise<LiveNavigator | null> {
  const mode = sc.controller?.pathNavigation;
  if (mode === undefined) return null;
  const switches = sc.topology.nodes.filter((n) => n.kind === NodeKind.Switch).map((n) => n.name);
  const nav = new LiveNavigator(lab, mode, planAddresses(sc.topology), switches);
  await nav.enableLldp(LIVE_LLDP_INTERVAL_NS);
  progress(`  path navigation: LLDP heard ${await nav.waitForTables(60_000)} switch links`);
  return nav;
}

async function play(
  sc: Scenario,
  lab: LiveLab,
  opts: LiveRunOptions,
  out: OutputDir | null,
  started: number,
  interrupted: () => boolean,
  progress: (line: string) => void,
  clock: { t0: number; dilation: number },
): Promise<Report> {
  let t0 = 0;
  const baseStep = liveStep(lab, progress, () => t0);
  const navigator = await startNavigator(sc, lab, progress);
  // With path navigation, a workload's QPs are planned as soon as they exist.
  const step: ApplyStep<Promise<void>> = async (action, atNs) => {
    await baseStep(action, atNs);
    if (navigator === null || action.kind !== "start") return;
    const plan = await navigator.replan();
    progress(
      `  path navigation (${plan.mode}): ${plan.flows.length} QPs planned, most-loaded link ${plan.maxLoad}`,
    );
  };
  // Overrides before any traffic, as the simulator applies them at construction.
  await lab.apply({ kind: "set", change: sc.overrides });

  const events: string[] = [];
  const status = await lab.request<LabStatus>("status");
  // The scenario's time 0, a little ahead of every device's clock (none is past the dilated real clock,
  // the lab's now plus how far it is behind): its first steps can then be handed over ahead of their time
  // (a workload's flows start at their emulated times on every NIC, as in the simulator).
  // Whole nanoseconds, as every time in the simulator: a fractional origin would start flows between two.
  t0 = Math.ceil(status.now + status.behindNs + (AHEAD_REAL_MS * 1e6) / status.dilation);
  const behind0 = status.behindNs;
  // Synced clocks wait at each timeline step until it is handed over (clock-table.ts, the gate): a step
  // reaches its devices before its time however late the machine runs the supervisor or this process.
  let stepIndex = 0;
  const holdAtStep = (): Promise<unknown> => {
    const next = sc.timeline[stepIndex];
    return lab.request("hold", { at: next === undefined ? null : t0 + next.atNs });
  };
  // Counters count from time 0: every device reads them there (live-baseline.ts).
  await armBaselines(lab, t0, progress).catch((e: Error) =>
    progress(`  counters not read at time 0 (${e.message}): the report's counters include the bring-up`),
  );
  // And the time series on the simulator's grid (live-series.ts); else sampled when asked, as before.
  const grid = new LiveSeries(lab, sc, t0);
  const onGrid = await grid.arm();
  if (!onGrid) progress("  time series sampled when the supervisor asks, not on the scenario's grid");
  await holdAtStep();
  const startDilation = status.dilation;
  let dilation = startDilation;
  clock.t0 = t0;
  clock.dilation = dilation;
  // AI ECN's central analyser: feature reports in, `ecn-thresholds` commands out, over the control socket.
  const analyser = new AiEcnAnalyser((node, command) => {
    void lab.request("command", { node, command }).catch(() => {});
  });
  lab.onEvents((list: readonly LabEvent[]) => {
    for (const e of list) {
      if (e.t >= t0) events.push(JSON.stringify({ ...e, t: e.t - t0 }));
      analyser.onEvent(e);
    }
  });
  await lab.subscribe();
  // Scenario time: emulated ns since t0 on the lab's clock. With synced clocks the lab runs slower than
  // real time / dilation when the machine is busy, so the supervisor is asked (its now is the slowest
  // device's clock); between questions the wait is what real time alone would need.
  let labNow = 0;
  const refreshNow = async (): Promise<number> => {
    const s = await lab.request<LabStatus>("status");
    labNow = s.now - t0;
    dilation = s.dilation;
    clock.dilation = dilation;
    return labNow;
  };
  /** Waits until the lab's clock reaches scenario time `at` (or `stop` turns true). */
  const waitFor = async (at: number, stop: () => boolean): Promise<void> => {
    while (!stop() && (await refreshNow()) < at) {
      await sleepUnless(Math.min(200, ((at - labNow) * dilation) / 1e6), stop);
    }
  };

  const recorder = new SeriesRecorder();
  const sampleReal = Math.max(MIN_SAMPLE_REAL_MS, (sc.sampleNs * dilation) / 1e6);
  let sampling = true;
  const sampler = (async () => {
    await waitFor(0, () => !sampling || interrupted());
    while (sampling) {
      if (onGrid) {
        await grid.collect();
        if (opts.onTime) opts.onTime(await refreshNow());
      } else {
        const snap = await lab.snapshot();
        recorder.sample(snap.now - t0, Object.values(snap.stats));
        opts.onTime?.(snap.now - t0);
      }
      await sleep(sampleReal);
    }
  })();

  progress(
    `playing ${sc.timeline.length} steps over ${sc.durationNs / 1e6} ms emulated (${((sc.durationNs * dilation) / 1e9).toFixed(1)} s real at full pace; ${clockPaceNote(opts.clock)})`,
  );
  const actions = (async () => {
    for (const a of [...(opts.actions ?? [])].sort((x, y) => x.atNs - y.atNs)) {
      await waitFor(a.atNs, interrupted);
      if (interrupted()) return;
      await a.run(lab);
    }
  })();
  // Awaited after the timeline; a failure before then must not go unhandled meanwhile.
  actions.catch(() => {});
  // Real time: wait for the lab's clock to reach each step's emulated time, then await it.
  try {
    await runTimeline(sc.timeline, step, {
      at: async (atNs: number, run: () => Promise<void>, ahead: boolean) => {
        await waitFor(ahead ? atNs - (AHEAD_REAL_MS * 1e6) / dilation : atNs, interrupted);
        if (interrupted()) return false;
        await run();
        stepIndex++;
        await holdAtStep();
        return true;
      },
    });
  } finally {
    // Interrupted or failed: never leave the lab's clocks held (a lab `run --lab` shares stays up).
    if (stepIndex < sc.timeline.length) await lab.request("hold", { at: null }).catch(() => {});
  }
  let watching = navigator !== null;
  const watcher = (async () => {
    const everyMs = Math.max(200, ((sc.controller?.interval ?? 20_000) * dilation) / 1e6);
    while (watching && navigator !== null) {
      await sleep(everyMs);
      if (watching && (await navigator.poll()) !== null)
        progress("  path navigation: the fabric changed, re-planned");
    }
  })();
  await actions;
  await waitFor(sc.durationNs, interrupted);
  sampling = false;
  watching = false;
  await sampler;
  await watcher;
  // Interrupted (Ctrl-C, SIGTERM): report what ran, over the time it ran.
  const ran = interrupted() ? Math.max(0, Math.min(sc.durationNs, await refreshNow())) : sc.durationNs;
  if (ran < sc.durationNs)
    progress(`interrupted at ${(ran / 1e3).toFixed(0)} µs emulated: reporting what ran so far`);

  const final = await lab.snapshot();
  const { stats, without } = await sinceTimeZero(lab, Object.values(final.stats));
  if (without.length > 0) progress(`  counters since their start, not time 0: ${without.join(", ")}`);
  const flows = (await lab.request<FlowReport[]>("flows")).map((f) => ({
    ...f,
    startNs: f.startNs - t0,
    endNs: f.endNs === null ? null : f.endNs - t0,
  }));
  const end = await lab.request<LabStatus>("status");
  const timerLate = Math.max(0, ...end.devices.map((d) => d.health?.timerLateMaxNs ?? 0));
  const live = liveTiming(
    end.clock,
    ran,
    Math.max(0, end.behindNs - behind0),
    stats,
    timerLate,
    (LIVE_REACTION_MS * 1e6) / startDilation,
    {
      graceExceeded: syncSum(end, "graceExceeded") - syncSum(status, "graceExceeded"),
      unstamped: syncSum(end, "unstamped") - syncSum(status, "unstamped"),
      ...lateFramesDuring(status.devices, end.devices),
    },
  );
  if (onGrid) {
    // The last grid time is read once every device is there (a read waits for its device's timer).
    await grid.collectUntil(Math.floor(ran / sc.sampleNs) * sc.sampleNs, 5000);
    grid.record(recorder, flows, ran);
  }
  const report = assembleReport({ ...sc, durationNs: ran }, stats, flows, {
    runtime: "live",
    wallClockMs: performance.now() - started,
    dilation,
    live,
  });
  if (out) writeReport(out, report, recorder.all, events);
  return report;
}
