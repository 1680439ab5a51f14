// One live device process, as the supervisor sees it: started inside its namespace with an IPC channel,
// initialised, asked for stats and commands, watched for crashes.

import { EventEmitter } from "node:events";
import { closeSync, openSync } from "node:fs";
import { execa } from "execa";
import type {
  DeviceMetrics,
  FromDevice,
  Health,
  InitMessage,
  TimedEvent,
  ToDevice,
} from "../../runtime/live/protocol.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { logPath } from "./names.js";
import { distPath } from "./paths.js";

const DEVICE_MAIN = distPath("runtime/live/device-main.js");
const START_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Extra Node flags for every device process, from ROCELAB_DEVICE_NODE_ARGS (space-separated), e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a live lab: NODE_OPTIONS refuses those flags. Each must
 * start with "--"; they are passed as arguments, never through a shell.
 */
export function deviceNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const text = env.ROCELAB_DEVICE_NODE_ARGS?.trim();
  if (!text) return [];
  const args = text.split(/\s+/);
  for (const a of args)
    if (!a.startsWith("--"))
      throw new Error(`ROCELAB_DEVICE_NODE_ARGS: "${a}" is not a Node flag (each must start with --)`);
  return args;
}

function spawnDevice(lab: string, node: string, namespace: string) {
  const log = logPath(lab, node);
  // Created private (0600) before execa appends to it: a log is the lab's, not every user's.
  closeSync(openSync(log, "a", 0o600));
  return execa(
    "ip",
    [
      "netns",
      "exec",
      namespace,
      process.execPath,
      ...deviceNodeArgs(),
      DEVICE_MAIN,
      "--lab",
      lab,
      "--node",
      node,
    ],
    {
      ipc: true,
      stdin: "ignore",
      stdout: { file: log, append: true },
      stderr: { file: log, append: true },
      reject: false,
      cleanup: true,
    },
  );
}

export type DeviceStatus = "starting" | "running" | "crashed" | "killed" | "stopped";

export interface DeviceProcessEvents {
  events: [events: readonly TimedEvent[]];
  health: [now: number, health: Health];
  exit: [status: DeviceStatus, code: number | null, signal: string | null];
}

export class DeviceProcess extends EventEmitter<DeviceProcessEvents> {
  status: DeviceStatus = "stopped";
  pid: number | null = null;
  health: Health | null = null;
  /** Emulated time of the last health report. */
  lastNow = 0;
  restarts = 0;
  private child: ReturnType<typeof spawnDevice> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private stopping = false;

  constructor(
    readonly lab: string,
    readonly node: string,
    readonly kind: "switch" | "nic",
    readonly namespace: string,
    private readonly init: InitMessage,
  ) {
    super();
  }

  /** Spawns the process in its namespace and waits until it has opened its ports. */
  async start(): Promise<void> {
    this.stopping = false;
    this.status = "starting";
    const child = spawnDevice(this.lab, this.node, this.namespace);
    this.child = child;
    this.pid = child.pid ?? null;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.node} did not start within ${START_TIMEOUT_MS / 1000} s (see ${logPath(this.lab, this.node)})`,
            ),
          ),
        START_TIMEOUT_MS,
      );
      child.on("message", (raw) => {
        const m = raw as FromDevice;
        switch (m.type) {
          case "ready":
            clearTimeout(timer);
            this.status = "running";
            resolve();
            break;
          case "reply":
          case "stats":
          case "metrics": {
            const p = this.pending.get(m.id);
            if (p) {
              this.pending.delete(m.id);
              p.resolve(
                m.type === "reply"
                  ? m.result
                  : m.type === "metrics"
                    ? m.metrics
                    : { stats: m.stats, health: m.health },
              );
            }
            break;
          }
          case "events":
            this.emit("events", m.events);
            break;
          case "health":
            this.health = m.health;
            this.lastNow = m.now;
            this.emit("health", m.now, m.health);
            break;
          case "fatal":
            clearTimeout(timer);
            reject(new Error(`${this.node} failed: ${m.message.split("\n")[0]}`));
            break;
        }
      });
      void child.then((result) => {
        clearTimeout(timer);
        const signal = result.signal ?? null;
        const code = result.exitCode ?? null;
        const was = this.status;
        this.status = this.stopping
          ? signal === "SIGKILL" && was !== "stopped"
            ? "killed"
            : "stopped"
          : "crashed";
        this.pid = null;
        for (const p of this.pending.values()) p.reject(new Error(`${this.node} exited`));
        this.pending.clear();
        reject(
          new Error(
            `${this.node} exited during start (code ${code}, signal ${signal}); see ${logPath(this.lab, this.node)}`,
          ),
        );
        this.emit("exit", this.status, code, signal);
      });
    });
    this.send(this.init);
    await ready;
  }

  send(message: ToDevice): void {
    if (this.child?.connected) this.child.send(message);
  }

  request(message: { type: "command"; command: unknown }): Promise<unknown>;
  request(message: { type: "stats" }): Promise<{ stats: AnyDeviceStats; health: Health }>;
  request(message: { type: "metrics" }): Promise<DeviceMetrics>;
  request(
    message: { type: "command"; command: unknown } | { type: "stats" } | { type: "metrics" },
  ): Promise<unknown> {
    if (this.status !== "running" || !this.child?.connected) {
      return Promise.reject(new Error(`${this.node} is ${this.status}`));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.node} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send({ ...message, id } as ToDevice);
    });
  }

  /** SIGKILL, as a failure injection: the supervisor reports it and can restart it. */
  kill(): void {
    this.stopping = true;
    if (this.pid) this.child?.kill("SIGKILL");
  }

  /** Orderly stop. */
  async stop(): Promise<void> {
    if (!this.child || this.status === "crashed" || this.status === "killed") return;
    this.stopping = true;
    this.status = "stopped";
    this.send({ type: "shutdown" });
    const exited = this.child.then(() => undefined);
    const timeout = new Promise<void>((r) => setTimeout(r, 3000).unref());
    await Promise.race([exited, timeout]);
    if (this.pid) this.child.kill("SIGKILL");
    await exited;
  }
}
