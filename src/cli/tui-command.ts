// `rocelab tui [TOPOLOGY]` (what `sudo npm run testbed` runs): brings up a lab with a progress display,
// opens the dashboard, and tears the lab down however the session ends — q, Ctrl-C, SIGTERM, SIGHUP, a
// crash of the UI, or the lab's supervisor dying. `--runtime sim` runs the fabric in virtual time in this
// process instead, paced for watching, without root.

import type { Command } from "commander";
import { formatDuration } from "../device/units.js";
import type { Lab } from "../lab/lab.js";
import { DEFAULT_CLOCK_MODE, DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { loadEndpoints } from "../lab/live/endpoints-file.js";
import {
  attachLab,
  downLab,
  LabError,
  LiveLab,
  labHasLeftovers,
  labIsRunning,
  upLab,
} from "../lab/live/live-lab.js";
import { DEFAULT_LAB, labNameProblem } from "../lab/live/names.js";
import { readState } from "../lab/live/state.js";
import { SimLab } from "../lab/sim/sim-lab.js";
import { NodeKind, type Topology } from "../scenario/topology.js";
import type { SimPacing } from "../tui/run-effect.js";
import type { DashboardStore } from "../tui/store.js";
import { action, clockOption, dilationOption, UsageError } from "./errors.js";
import { addMetricsOptions, type MetricsOptions, metricsSettings } from "./metrics-options.js";
import { loadTopologyArg } from "./topology-command.js";

/** Default pacing of a simulated run: one emulated millisecond lasts ten real seconds. */
export const DEFAULT_SIM_DILATION = 10_000;

/** How often the live dashboard checks that the lab's supervisor is still there (real ms). */
const WATCHDOG_MS = 2000;
/** How often a run without a terminal prints a summary line (real ms). */
const SUMMARY_MS = 5000;

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type HandledSignal = keyof typeof SIGNAL_EXIT;

interface TuiOptions extends MetricsOptions {
  runtime: string;
  /** An endpoints file: watch devices rocelab did not start (docs/attach.md). */
  attach?: string;
  name?: string;
  dilation?: string;
  seed: string;
  clock: string;
}

/** Writes a line for the user; a terminal that went away (SIGHUP) must not stop the teardown. */
function say(text: string): void {
  try {
    process.stdout.write(`${text}\n`);
  } catch {
    // The terminal is gone; the teardown goes on without it.
  }
}

/** The pacing keys of a simulated run. */
function simPacing(lab: SimLab): SimPacing {
  return {
    dilation: () => lab.dilation,
    paused: () => lab.paused,
    pause: () => lab.pause(),
    resume: () => lab.resume(),
    setDilation: (dilation) => lab.setDilation(dilation),
  };
}

/**
 * One testbed session: what has to be undone when it ends, and the one way it ends. Every exit (quit,
 * signal, crash, a lost supervisor) calls end(), which runs once: restore the terminal, release the lab,
 * report, exit.
 */
class Session {
  private closers: (() => void)[] = [];
  private ending: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly release: () => Promise<void>) {}

  /** Runs `close` first thing when the session ends (take the UI off the screen). */
  onEnd(close: () => void): void {
    this.closers.push(close);
  }

  every(ms: number, fn: () => void): void {
    this.timers.push(setInterval(fn, ms));
  }

  /** Handles signals and crashes: each ends the session (and with it the lab). */
  install(): void {
    for (const sig of Object.keys(SIGNAL_EXIT) as HandledSignal[]) {
      process.on(sig, () => void this.end(`received ${sig}`, SIGNAL_EXIT[sig]));
    }
    process.on("uncaughtException", (e) => void this.end(`crashed: ${e.stack ?? e.message}`, 1));
    process.on(
      "unhandledRejection",
      (e) => void this.end(`crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, 1),
    );
  }

  end(reason: string, code: number): Promise<void> {
    this.ending ??= (async () => {
      for (const t of this.timers) clearInterval(t);
      for (const close of this.closers.reverse()) {
        try {
          close();
        } catch {
          // Closing one part of the UI must not keep the lab alive.
        }
      }
      if (reason) say(reason);
      try {
        await this.release();
      } catch (e) {
        say(`rocelab: ${(e as Error).message}`);
        code = code || 1;
      }
      process.exit(code);
    })();
    return this.ending;
  }
}

/** The dashboard while the terminal is interactive, else a summary line every few seconds. */
async function watch(
  session: Session,
  lab: Lab,
  store: DashboardStore,
  pacing: SimPacing | null,
  interactive: boolean,
  colour: boolean,
): Promise<void> {
  if (!interactive) {
    const { summaryLine } = await import("../tui/summary.js");
    say(
      `no terminal: printing a summary every ${SUMMARY_MS / 1000} s; SIGTERM or Ctrl-C stops (and tears down)`,
    );
    session.every(SUMMARY_MS, () => say(summaryLine(store.getState())));
    return new Promise<void>(() => {});
  }
  const { openDashboard } = await import("../tui/screen.js");
  const dashboard = openDashboard({ lab, store, pacing, colour });
  session.onEnd(() => dashboard.close());
  try {
    await dashboard.quit;
  } catch (e) {
    await session.end(`the dashboard crashed: ${(e as Error).stack ?? String(e)}`, 1);
  }
}

async function runLive(topology: string | undefined, topo: Topology, opts: TuiOptions): Promise<void> {
  const name = opts.name ?? DEFAULT_LAB;
  const problem = labNameProblem(name);
  if (problem) throw new UsageError(problem);
  const { dilation, auto } = dilationOption(opts.dilation ?? String(DEFAULT_DILATION), DEFAULT_DILATION);
  const clock = clockOption(opts.clock);
  const metrics = metricsSettings(opts);
  if (process.getuid?.() !== 0) {
    throw new UsageError(
      "rocelab tui needs root for a live lab (network namespaces, veth, raw sockets): run it with sudo, or watch a simulated fabric without root: rocelab tui --runtime sim",
      1,
    );
  }
  if (labIsRunning(name)) {
    throw new UsageError(
      `a lab "${name}" is already running. The testbed brings up its own lab and tears it down when you quit, so it leaves that one alone: stop it with \`rocelab down --name ${name}\`, or choose another --name`,
      1,
    );
  }
  const { interactive, colour } = await terminal();
  const session = new Session(async () => {
    say(`tearing down lab ${name}...`);
    await downLab(name, (step) => say(`  ${step}`));
    // The supervisor removes what it made; downLab's own counts are what it had to clean up after it.
    if (labHasLeftovers(name)) {
      say(`lab ${name}: something is left behind; \`rocelab down --name ${name}\` removes it`);
      throw new LabError(`lab ${name} was not removed completely`);
    }
    say(`lab ${name} is down: its namespaces, links and processes are gone`);
  });
  session.install();

  const title = `rocelab testbed: lab "${name}" (live, ${topo.name}: ${topo.nodes.length} devices, ${topo.links.length} links, dilation ${dilation}${auto ? " (auto)" : ""})`;
  const progress = interactive ? (await import("../tui/screen.js")).openBringUp(title, colour) : null;
  if (progress) session.onEnd(() => progress.close());
  else say(title);
  const step = (text: string) => (progress ? progress.step(text) : say(`  ${text}`));
  const started = Date.now();
  try {
    await upLab({
      lab: name,
      topology: topology ?? "default",
      dilation,
      ...(auto ? { autoDilation: true } : {}),
      seed: Number(opts.seed),
      clock,
      metrics,
      onProgress: step,
    });
    step(`connecting the dashboard (up in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    await watchLive(session, name, progress, interactive, colour);
  } catch (e) {
    const message =
      e instanceof LabError || e instanceof UsageError ? e.message : ((e as Error).stack ?? String(e));
    progress?.fail(message);
    await session.end(progress ? "" : `rocelab: ${message}`, 1);
  }
}

/** Connects the dashboard to a running lab (brought up or attached) and watches it until the session ends. */
async function watchLive(
  session: Session,
  name: string,
  progress: { done(): void; close(): void } | null,
  interactive: boolean,
  colour: boolean,
): Promise<void> {
  const lab = await LiveLab.connect(name);
  const { DashboardStore } = await import("../tui/store.js");
  const store = new DashboardStore({ lab: name, runtime: "live", topology: lab.topology });
  store.connect(lab);
  store.ingestEvents(await lab.subscribe());
  store.ingestSnapshot(await lab.snapshot());
  progress?.done();
  progress?.close();
  // The supervisor owns the lab: if it dies (or someone runs `rocelab down`), there is nothing to watch.
  // The control connection dropping says so at once; the pid check catches a supervisor that hangs.
  const gone = (why: string) => void session.end(`${why}; removing what is left`, 1);
  lab.onClose(gone);
  session.every(WATCHDOG_MS, () => {
    if (!labIsRunning(name)) gone("the lab's supervisor is gone (crashed, or stopped from elsewhere)");
  });
  await watch(session, lab, store, null, interactive, colour);
  await session.end("", 0);
}

/** `rocelab tui --attach FILE`: the dashboard on devices rocelab did not start; quitting leaves them running. */
async function runAttached(file: string, opts: TuiOptions): Promise<void> {
  const endpoints = loadEndpoints(file);
  const name = opts.name ?? endpoints.lab ?? DEFAULT_LAB;
  const problem = labNameProblem(name);
  if (problem) throw new UsageError(problem);
  // An attachment of the same file that runs already is watched as it is, and left running.
  const running = labIsRunning(name);
  if (running && readState(name)?.attached !== endpoints.file)
    throw new UsageError(`a lab "${name}" is already running: choose another --name for the attachment`, 1);
  const { interactive, colour } = await terminal();
  const session = new Session(async () => {
    if (running) return;
    await downLab(name);
    say(`detached from ${endpoints.devices.length} devices (they run on)`);
  });
  session.install();
  const title = `rocelab testbed: attached to ${endpoints.topology.name} (${endpoints.devices.length} devices, dilation ${endpoints.dilation})`;
  const progress = interactive ? (await import("../tui/screen.js")).openBringUp(title, colour) : null;
  if (progress) session.onEnd(() => progress.close());
  else say(title);
  const step = (text: string) => (progress ? progress.step(text) : say(`  ${text}`));
  try {
    if (!running)
      await attachLab({ lab: name, endpoints: file, metrics: metricsSettings(opts), onProgress: step });
    step("connecting the dashboard");
    await watchLive(session, name, progress, interactive, colour);
  } catch (e) {
    const message =
      e instanceof LabError || e instanceof UsageError ? e.message : ((e as Error).stack ?? String(e));
    progress?.fail(message);
    await session.end(progress ? "" : `rocelab: ${message}`, 1);
  }
}

async function runSim(topo: Topology, opts: TuiOptions): Promise<void> {
  const dilation = parseDilation(opts.dilation, DEFAULT_SIM_DILATION);
  const { interactive, colour } = await terminal();
  let lab: SimLab | null = null;
  const session = new Session(async () => {
    if (!lab) return;
    const now = lab.snapshotNow().now;
    await lab.close();
    say(`simulation ${lab.name} stopped at ${formatDuration(now)} emulated`);
  });
  session.install();
  const switches = topo.nodes.filter((n) => n.kind === NodeKind.Switch).length;
  const title = `rocelab testbed: simulated fabric (${topo.name}: ${switches} switches, ${topo.nodes.length - switches} hosts, ${topo.links.length} links)`;
  const progress = interactive ? (await import("../tui/screen.js")).openBringUp(title, colour) : null;
  if (progress) session.onEnd(() => progress.close());
  else say(title);
  const step = (text: string) => (progress ? progress.step(text) : say(`  ${text}`));
  step("building switches, NICs and host stacks in this process");
  lab = new SimLab({
    topology: topo,
    dilation,
    seed: Number(opts.seed),
    ...(opts.name ? { name: opts.name } : {}),
  });
  step(`pacing virtual time at dilation ${dilation}: 1 emulated ms lasts ${dilation / 1000} real s`);
  const { DashboardStore } = await import("../tui/store.js");
  const store = new DashboardStore({ lab: lab.name, runtime: "sim", topology: lab.topology });
  store.connect(lab);
  lab.start();
  store.ingestSnapshot(lab.snapshotNow());
  progress?.done();
  progress?.close();
  await watch(session, lab, store, simPacing(lab), interactive, colour);
  await session.end("", 0);
}

function parseDilation(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const d = Number(text);
  if (!(d >= 1)) throw new UsageError(`--dilation must be a number >= 1, not "${text}"`);
  return d;
}

/** Is there a person at a terminal (keys in, screen out), and does it take colour? */
async function terminal(): Promise<{ interactive: boolean; colour: boolean }> {
  const interactive = Boolean(process.stdout.isTTY && process.stdin.isTTY);
  if (interactive) {
    // Ink draws only its final frame when it believes it runs in CI (is-in-ci reads these variables when
    // Ink is first imported, which is below). A terminal with keys is a person watching, CI or not.
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
  }
  // React's development build checks every render and costs the dashboard twice the CPU, on a machine
  // the lab's processes share; it is chosen when React is first imported, which is below.
  process.env.NODE_ENV ??= "production";
  const { colourEnabled } = await import("../tui/theme.js");
  return { interactive, colour: colourEnabled(process.env, process.stdout) };
}

/** Registers `rocelab tui`. */
export function registerTuiCommand(program: Command): void {
  const tui = program.command("tui");
  addMetricsOptions(tui);
  tui
    .argument("[topology]", "topology YAML (default: the built-in 2-spine, 2-leaf, 8-host fabric)")
    .description(
      "the testbed: bring up a lab and watch it in a live dashboard (queues, pauses, rates; keys to break things); quitting tears it down",
    )
    .option(
      "--runtime <runtime>",
      "live (namespaces and processes, needs root) or sim (virtual time, no root)",
      "live",
    )
    .option("--name <name>", `lab name (live default: ${DEFAULT_LAB})`)
    .option(
      "--attach <endpoints>",
      "watch devices rocelab did not start (an endpoints file, docs/attach.md); quitting leaves them running",
    )
    .option(
      "--dilation <n>",
      `emulated time runs N times slower than real time (default: live ${DEFAULT_DILATION}, sim ${DEFAULT_SIM_DILATION}); live: auto[:N] raises it while the machine cannot keep up`,
    )
    .option("--seed <n>", "seed of the devices' random choices", "1")
    .option(
      "--clock <mode>",
      "live: synced (devices wait for their neighbours: a busy machine slows the lab instead of changing it) or free",
      DEFAULT_CLOCK_MODE,
    )
    .action(
      action(async (topology: string | undefined, opts: TuiOptions) => {
        if (opts.runtime !== "live" && opts.runtime !== "sim")
          throw new UsageError(`--runtime must be live or sim, not "${opts.runtime}"`);
        if (opts.attach !== undefined) {
          if (topology !== undefined)
            throw new UsageError("--attach takes the topology from the endpoints file");
          await runAttached(opts.attach, opts);
          return;
        }
        // Validate the topology before anything is created.
        const topo = loadTopologyArg(topology);
        if (opts.runtime === "sim") await runSim(topo, opts);
        else await runLive(topology, topo, opts);
      }),
    );
}
