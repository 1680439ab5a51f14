// Starting, finding and talking to live labs: `up` (a detached supervisor), `down`, and a Lab
// over the supervisor's control socket for the CLI's inject commands and the TUI.

import { spawn } from "node:child_process";
import { existsSync, openSync } from "node:fs";
import { resolve } from "node:path";
import type { ActionResult, LabAction } from "../../scenario/action.js";
import type { Lab, LabEvent, LabSnapshot, TopologyView } from "../lab.js";
import { Listeners } from "../listeners.js";
import { type ClockMode, DEFAULT_CLOCK_MODE } from "./clock-plan.js";
import { ControlClient } from "./control.js";
import { supervisorNodeArgs } from "./device-process.js";
import { type MetricsSettings, metricsArgs } from "./metrics-endpoint.js";
import {
  controlSocketPath,
  keptLogDir,
  keptLogPath,
  labDir,
  labOfNamespace,
  logPath,
  makeLabDir,
  RUN_DIR,
} from "./names.js";
import { entryPath } from "./paths.js";
import { findLabProcesses, keepLogs, listNamespaces, purgeKeptLogs, teardown } from "./provision.js";
import { alive, readState } from "./state.js";

const SUPERVISOR_MAIN = entryPath("main/supervisor-main.js");
const ATTACH_MAIN = entryPath("main/attach-main.js");

export class LabError extends Error {}

/**
 * The environment lab processes start with: ours, minus Node options meant for this process (a test
 * runner's TypeScript loader and coverage hooks would otherwise follow the lab into every device).
 */
export function cleanNodeEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_V8_COVERAGE;
  return env;
}

export interface UpOptions {
  readonly lab: string;
  /** A topology file, or "default". */
  readonly topology: string;
  readonly dilation: number;
  /** `--dilation auto`: start at `dilation` and let the supervisor raise it when the machine is short. */
  readonly autoDilation?: boolean;
  readonly seed?: number;
  readonly convergenceNs?: number;
  /** How the devices' clocks run (default DEFAULT_CLOCK_MODE: synchronised). */
  readonly clock?: ClockMode;
  /** Serve Prometheus /metrics on 127.0.0.1 (null or absent: no endpoint). */
  readonly metrics?: MetricsSettings | null;
  /** Bytes of INT per data packet the ports must take (device-inits.ts scenarioIntBytes). */
  readonly intRoomBytes?: number;
  /** Progress lines as the lab comes up. */
  readonly onProgress?: (step: string) => void;
  readonly timeoutMs?: number;
}

/** Is a lab of this name running (its supervisor alive)? */
export function labIsRunning(lab: string): boolean {
  const state = readState(lab);
  return (
    state !== null &&
    alive(state.supervisorPid) &&
    findLabProcesses(lab).some((p) => p.pid === state.supervisorPid)
  );
}

/** Leftovers of a lab that is not running: a state directory or processes from a crash. */
export function labHasLeftovers(lab: string): boolean {
  return existsSync(labDir(lab)) || findLabProcesses(lab).length > 0;
}

/**
 * Starts a lab's supervisor detached (it outlives this process) and waits until every device runs.
 * The caller has validated the topology; a lab of that name must not be running.
 */
export async function upLab(opts: UpOptions): Promise<void> {
  await claimLab(opts.lab, opts.onProgress);
  const topology = opts.topology === "default" ? "default" : resolve(opts.topology);
  const child = spawnDetached(
    opts.lab,
    "supervisor",
    SUPERVISOR_MAIN,
    [
      "--topology",
      topology,
      "--dilation",
      String(opts.dilation),
      "--seed",
      String(opts.seed ?? 1),
      "--convergence",
      String(opts.convergenceNs ?? 0),
      "--clock",
      opts.clock ?? DEFAULT_CLOCK_MODE,
      ...(opts.autoDilation ? ["--auto-dilation"] : []),
      ...(opts.intRoomBytes ? ["--int-room", String(opts.intRoomBytes)] : []),
      ...metricsArgs(opts.metrics),
    ],
    supervisorNodeArgs(),
  );
  await waitUntilRunning(opts.lab, child, opts.timeoutMs ?? 60_000, opts.onProgress);
}

/** Refuses a lab name that is running; removes what a crashed lab of that name left; makes its directory. */
async function claimLab(lab: string, onProgress: ((step: string) => void) | undefined): Promise<void> {
  if (labIsRunning(lab)) {
    throw new LabError(
      `lab "${lab}" is already running; stop it with \`rocelab down --name ${lab}\` or choose another --name`,
    );
  }
  if (labHasLeftovers(lab)) {
    onProgress?.(`cleaning up leftovers of an earlier "${lab}" lab`);
    await teardown(lab);
  }
  // The logs an abnormal end of this lab kept are kept until now.
  purgeKeptLogs(lab);
  makeLabDir(lab);
}

/**
 * Starts `main --lab LAB ARGS` detached (it outlives this process), its output in the lab's `logName` log.
 * Through env(1): a parent's child_process hooks (a test runner's coverage) cannot re-add NODE_OPTIONS.
 */
function spawnDetached(
  lab: string,
  logName: string,
  main: string,
  args: readonly string[],
  nodeArgs: readonly string[] = [],
) {
  const log = openSync(logPath(lab, logName), "a", 0o600);
  const child = spawn(
    "env",
    [
      "-u",
      "NODE_OPTIONS",
      "-u",
      "NODE_V8_COVERAGE",
      process.execPath,
      ...nodeArgs,
      main,
      "--lab",
      lab,
      ...args,
    ],
    { detached: true, stdio: ["ignore", log, log], env: cleanNodeEnv() },
  );
  child.unref();
  return child;
}

export interface AttachOptions {
  readonly lab: string;
  /** The endpoints file (endpoints-file.ts), validated by the caller. */
  readonly endpoints: string;
  readonly metrics?: MetricsSettings | null;
  readonly onProgress?: (step: string) => void;
  readonly timeoutMs?: number;
}

/**
 * Starts an attachment detached (attach-main.ts): a lab of devices something else started, served on the
 * lab's control socket like any other. Resolves once every device is connected.
 */
export async function attachLab(opts: AttachOptions): Promise<void> {
  await claimLab(opts.lab, opts.onProgress);
  const child = spawnDetached(opts.lab, "attach", ATTACH_MAIN, [
    "--endpoints",
    resolve(opts.endpoints),
    ...metricsArgs(opts.metrics),
  ]);
  await waitUntilRunning(opts.lab, child, opts.timeoutMs ?? 120_000, opts.onProgress, "attach");
}

/** Follows a lab's bring-up on its control socket until it runs (or fails, or `timeoutMs` passes). */
async function waitUntilRunning(
  lab: string,
  child: ReturnType<typeof spawn>,
  timeoutMs: number,
  onProgress: ((step: string) => void) | undefined,
  who = "supervisor",
): Promise<void> {
  const opts = { lab, onProgress };
  const deadline = Date.now() + timeoutMs;
  const socket = controlSocketPath(opts.lab);
  let exited: number | null = null;
  child.once("exit", (code) => {
    exited = code ?? 1;
  });
  while (!existsSync(socket)) {
    if (exited !== null) {
      // Moved by the supervisor's own teardown, unless it died before it: then here.
      keepLogs(lab);
      throw new LabError(
        `the lab ${who} exited (status ${exited}); its log is kept: ${keptLogPath(opts.lab, who)}`,
      );
    }
    if (Date.now() > deadline) throw new LabError(`the lab did not start; see ${logPath(opts.lab, who)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The socket's file appears when the supervisor binds it, a moment before it listens: a connection
  // in between is refused, which is not a failure of the lab.
  let client: ControlClient;
  for (;;) {
    try {
      client = await ControlClient.connect(socket);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== "ECONNREFUSED" && code !== "ENOENT") || exited !== null || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    await new Promise<void>((resolvePromise, reject) => {
      const check = setInterval(() => {
        if (exited !== null) {
          clearInterval(check);
          keepLogs(lab);
          reject(
            new LabError(
              `the lab ${who} exited (status ${exited}); its log is kept: ${keptLogPath(opts.lab, who)}`,
            ),
          );
        } else if (Date.now() > deadline) {
          clearInterval(check);
          reject(new LabError(`the lab did not come up in time; see ${logPath(opts.lab, who)}`));
        }
      }, 200);
      // Steps broadcast before this client subscribed come back in the answer, in order; steps pushed
      // before that answer is handled wait behind them.
      let early: string[] | null = [];
      const onStep = (step: string) => {
        if (step === "running") {
          clearInterval(check);
          resolvePromise();
        } else if (step.startsWith("failed")) {
          clearInterval(check);
          reject(
            new LabError(
              `the lab failed to start: ${step.slice(8)} (its log is kept: ${keptLogPath(opts.lab, who)})`,
            ),
          );
        } else opts.onProgress?.(step);
      };
      client.onPush((push, data) => {
        if (push !== "progress") return;
        if (early) early.push(String(data));
        else onStep(String(data));
      });
      void client.request<{ status: string; progress?: string[] }>("subscribe").then((s) => {
        const pending = [...(s.progress ?? []), ...(early ?? [])];
        early = null;
        for (const step of pending) onStep(step);
        if (s.status === "running") onStep("running");
      }, reject);
    });
  } finally {
    client.close();
  }
}

/**
 * Stops a lab: asks its supervisor first, then removes whatever is left. The counts are what the lab had
 * when `down` began (the supervisor removes most of it itself; `teardown` only what it left).
 */
export async function downLab(
  lab: string,
  onProgress?: (step: string) => void,
): Promise<{ killed: number; namespaces: number }> {
  const before = {
    killed: findLabProcesses(lab).length,
    namespaces: (await listNamespaces(lab)).filter((ns) => labOfNamespace(ns, [lab]) === lab).length,
  };
  const socket = controlSocketPath(lab);
  let orderly = false;
  if (labIsRunning(lab) && existsSync(socket)) {
    try {
      const client = await ControlClient.connect(socket, 2000);
      onProgress?.(
        readState(lab)?.attached !== undefined
          ? "asking the attachment to close its connections (the devices run on)"
          : "asking the supervisor to stop the devices",
      );
      const answered = await client.request("down", undefined, 5000).then(
        () => true,
        () => false,
      );
      client.close();
      const deadline = Date.now() + 15_000;
      const pid = readState(lab)?.supervisorPid ?? null;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      orderly = answered && !alive(pid);
    } catch {
      // Unresponsive supervisor: the teardown below kills it.
    }
  }
  // A lab that did not end in order (its supervisor crashed, or had to be killed) keeps its logs.
  const after = await teardown(lab, onProgress, { keepLogs: !orderly });
  return {
    killed: Math.max(before.killed, after.killed),
    namespaces: Math.max(before.namespaces, after.namespaces),
  };
}

/** A Lab over a running lab's control socket. */
export class LiveLab implements Lab {
  readonly runtime = "live" as const;
  private readonly snapshotListeners = new Listeners<LabSnapshot>();
  private readonly eventListeners = new Listeners<readonly LabEvent[]>();
  private readonly closeListeners = new Listeners<string>();
  private latest: LabSnapshot | null = null;
  private closing = false;

  private constructor(
    readonly name: string,
    readonly topology: TopologyView,
    private readonly client: ControlClient,
  ) {
    client.onPush((push, data) => {
      if (push === "snapshot") {
        this.latest = { ...(data as Omit<LabSnapshot, "runtime">), runtime: "live" };
        this.snapshotListeners.emit(this.latest);
      } else if (push === "events") {
        this.eventListeners.emit(data as LabEvent[]);
      } else if (push === "closed" && !this.closing) {
        // Whether the supervisor is still exiting or already gone, the lab is going away.
        const reason = `lab "${name}" went away: its supervisor closed the control connection (it crashed, or \`rocelab down\` was run elsewhere); after an abnormal end its logs are kept in ${keptLogDir(name)}/ (supervisor.log first) until the next \`rocelab up --name ${name}\` or \`rocelab down --purge\``;
        this.closeListeners.emit(reason);
      }
    });
  }

  static async connect(lab: string): Promise<LiveLab> {
    // Not "no lab is running": one may be, but its state and control socket are root's alone.
    if (process.getuid?.() !== 0)
      throw new LabError(
        `live labs are root's: their state (${RUN_DIR}, 0700) and control sockets can be read and driven by root only; run this with sudo`,
      );
    if (!labIsRunning(lab)) throw new LabError(`no lab "${lab}" is running (start one with \`rocelab up\`)`);
    const client = await ControlClient.connect(controlSocketPath(lab));
    const topology = await client.request<TopologyView>("topology");
    return new LiveLab(lab, topology, client);
  }

  /** Starts pushed snapshots and events (the TUI); the CLI's one-shot commands do not need them. */
  async subscribe(): Promise<readonly LabEvent[]> {
    const s = await this.client.request<{ events: LabEvent[] }>("subscribe");
    return s.events;
  }

  async snapshot(): Promise<LabSnapshot> {
    const s = await this.client.request<Omit<LabSnapshot, "runtime">>("snapshot");
    return { ...s, runtime: "live" };
  }

  onSnapshot(listener: (s: LabSnapshot) => void): () => void {
    return this.snapshotListeners.add(listener);
  }

  onEvents(listener: (e: readonly LabEvent[]) => void): () => void {
    return this.eventListeners.add(listener);
  }

  /** Called once if the control connection drops without `close()` (the lab went away). */
  onClose(listener: (reason: string) => void): () => void {
    return this.closeListeners.add(listener);
  }

  /** Any request the supervisor understands (`stats`, `events`, `status`, ...). */
  request<T>(op: string, args?: unknown, timeoutMs?: number): Promise<T> {
    return this.client.request<T>(op, args, timeoutMs);
  }

  /** Carries out an action in the lab (its supervisor's handlers: live-actions.ts). */
  apply(action: LabAction): Promise<ActionResult> {
    return this.client.request<ActionResult>("apply", { action });
  }

  /** Closes the connection (the lab keeps running; `downLab` stops it). */
  close(): Promise<void> {
    this.closing = true;
    this.client.close();
    return Promise.resolve();
  }
}
