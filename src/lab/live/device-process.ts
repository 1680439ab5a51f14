// One live device process, as the supervisor sees it: started inside its namespace with an IPC channel,
// initialised, watched for crashes; asked for stats and commands through DeviceConnection.

import { closeSync, openSync } from "node:fs";
import { execa } from "execa";
import { nativeAddonPath } from "../../runtime/realtime/native.js";
import type { FromDevice, InitMessage, ToDevice } from "../../runtime/realtime/protocol.js";
import { DEVICE_V8_FLAGS } from "../../runtime/realtime/v8-flags.js";
import { DeviceConnection, type DeviceLink, type DeviceStatus } from "./device-connection.js";
import { type DevicePrivileges, devicePrivileges } from "./device-privileges.js";
import { logPath } from "./names.js";
import { entryPath } from "./paths.js";

const DEVICE_MAIN = entryPath("main/device-main.js");
const START_TIMEOUT_MS = 15_000;

/**
 * The Node flags of every device process: DEVICE_V8_FLAGS, then any from ROCELAB_DEVICE_NODE_ARGS
 * (space-separated), e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a live lab: NODE_OPTIONS refuses
 * those flags. Each must start with "--"; they are passed as arguments, never through a shell. The user's
 * come last, so they win (V8 takes the last value of a flag given twice).
 */
export function deviceNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...DEVICE_V8_FLAGS, ...nodeArgsFrom("ROCELAB_DEVICE_NODE_ARGS", env)];
}

/** The same for the lab's supervisor: ROCELAB_SUPERVISOR_NODE_ARGS (e.g. "--heapsnapshot-signal=SIGUSR2"). */
export function supervisorNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return nodeArgsFrom("ROCELAB_SUPERVISOR_NODE_ARGS", env);
}

function nodeArgsFrom(variable: string, env: NodeJS.ProcessEnv): string[] {
  const text = env[variable]?.trim();
  if (!text) return [];
  const args = text.split(/\s+/);
  for (const a of args)
    if (!a.startsWith("--"))
      throw new Error(`${variable}: "${a}" is not a Node flag (each must start with --)`);
  return args;
}

/** How the lab's devices are started (device-privileges.ts), found out once per supervisor. */
let privileges: Promise<DevicePrivileges> | null = null;

export function labDevicePrivileges(): Promise<DevicePrivileges> {
  privileges ??= devicePrivileges([process.execPath, DEVICE_MAIN, nativeAddonPath()]);
  return privileges;
}

/**
 * The init a device gets with its shared tables as descriptors: the supervisor opens the lab's root-only
 * files and the device, which may run as an unprivileged user, maps the descriptors it inherits (3, 4).
 * Returns the init and the descriptors, in the order of the child's descriptors 3, 4.
 */
function withTableDescriptors(init: InitMessage): { init: InitMessage; fds: number[] } {
  const fds: number[] = [];
  const handOver = (path: string): string => {
    fds.push(openSync(path, "r+"));
    return `fd:${2 + fds.length}`;
  };
  const dilationTable = init.dilationTable && {
    ...init.dilationTable,
    table: handOver(init.dilationTable.table),
  };
  const sync = init.sync && { ...init.sync, table: handOver(init.sync.table) };
  return {
    init: { ...init, ...(dilationTable ? { dilationTable } : {}), ...(sync ? { sync } : {}) },
    fds,
  };
}

function spawnDevice(
  lab: string,
  node: string,
  namespace: string,
  prefix: readonly string[],
  fds: number[],
  entry: string,
) {
  const log = logPath(lab, node);
  // Created private (0600) before execa appends to it: a log is the lab's, not every user's.
  closeSync(openSync(log, "a", 0o600));
  return execa(
    "ip",
    [
      "netns",
      "exec",
      namespace,
      ...prefix,
      process.execPath,
      ...deviceNodeArgs(),
      entry,
      "--lab",
      lab,
      "--node",
      node,
    ],
    {
      ipc: true,
      // Not buffered for the result: execa would otherwise keep every IPC message (health reports,
      // events, replies) in result.ipcOutput for the device's lifetime — the supervisor's soak growth.
      buffer: false,
      stdio: [
        "ignore",
        { file: log, append: true },
        { file: log, append: true },
        ...fds.map((fd) => descriptor(fd)),
      ],
      reject: false,
      cleanup: true,
    },
  );
}

/** The IPC channel execa opened to a device process, as a DeviceLink. */
function ipcLink(child: ReturnType<typeof spawnDevice>): DeviceLink {
  let listener: (m: FromDevice) => void = () => {};
  child.on("message", (raw) => listener(raw as FromDevice));
  return {
    get connected() {
      return child.connected;
    },
    send: (m: ToDevice) => {
      if (child.connected) child.send(m);
    },
    onMessage: (l) => {
      listener = l;
    },
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

export class DeviceProcess extends DeviceConnection {
  private child: ReturnType<typeof spawnDevice> | null = null;
  private stopping = false;
  /** While starting: what `ready` and `fatal` settle. */
  private starting: { resolve: () => void; reject: (e: Error) => void } | null = null;

  constructor(
    lab: string,
    node: string,
    kind: "switch" | "nic",
    readonly namespace: string,
    private readonly init: InitMessage,
    /** The device program: this checkout's; a benchmark may start another build's to compare the two. */
    private readonly entry: string = DEVICE_MAIN,
  ) {
    super(lab, node, kind);
  }

  exitDetail(status: DeviceStatus, code: number | null, signal: string | null): string {
    return status === "killed"
      ? "process killed (failure injection)"
      : `process crashed (exit code ${code ?? "none"}, signal ${signal ?? "none"}); see the log in ${logPath(this.lab, this.node)}`;
  }

  protected onControl(m: FromDevice): void {
    if (m.type === "ready") {
      this.status = "running";
      this.starting?.resolve();
    } else if (m.type === "fatal") {
      this.starting?.reject(new Error(`${this.node} failed: ${m.message.split("\n")[0]}`));
    }
  }

  /** Spawns the process in its namespace and waits until it has opened its ports. */
  async start(): Promise<void> {
    this.stopping = false;
    this.status = "starting";
    const { prefix } = await labDevicePrivileges();
    const { init, fds } = withTableDescriptors(this.init);
    let child: ReturnType<typeof spawnDevice>;
    try {
      child = spawnDevice(this.lab, this.node, this.namespace, prefix, fds, this.entry);
    } finally {
      // The child has its own copies.
      for (const fd of fds) closeSync(fd);
    }
    this.child = child;
    this.pid = child.pid ?? null;
    this.adoptLink(ipcLink(child));
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
      this.starting = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
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
        this.failPending(`${this.node} exited`);
        reject(
          new Error(
            `${this.node} exited during start (code ${code}, signal ${signal}); see ${logPath(this.lab, this.node)}`,
          ),
        );
        this.emit("exit", this.status, code, signal);
      });
    });
    this.send(init);
    try {
      await ready;
    } finally {
      this.starting = null;
    }
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

/**
 * An open descriptor as execa's `stdout`: execa hands any descriptor number to the child unchanged (its
 * "native" stdio), though its types name only 3-9.
 */
export function descriptor(fd: number): 3 {
  return fd as 3;
}
