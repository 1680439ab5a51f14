// The device entrypoint: runs ONE rocelab device (a switch or a NIC) on the interfaces of the namespace it
// is started in — a container's, under containerlab or Kubernetes, or any namespace — configured from a
// device file (device-file.ts), with its control channel on a TCP port or a Unix socket instead of a
// supervisor's IPC. `bin/device-entrypoint` (a container image's ENTRYPOINT) and `rocelab device` both
// come here; the device itself runs the live lab's code (runtime/realtime/device-runtime.ts).
//
// Settings, flag first, else environment:
//   --config FILE         ROCELAB_DEVICE_CONFIG=FILE, or ROCELAB_DEVICE_CONFIG_JSON=the file's text
//   --control ENDPOINT    ROCELAB_CONTROL (tcp://HOST:PORT or unix:PATH; default tcp://127.0.0.1:7700:
//                         loopback only — name the management address, or 0.0.0.0, to be reached from
//                         elsewhere; docs/reliability.md "Security model")
//   --token-file FILE     ROCELAB_CONTROL_TOKEN_FILE (required on TCP)
//   --epoch-unix-ns NS    ROCELAB_EPOCH_UNIX_NS (overrides the file's epochUnixNs)
//   --no-prepare          ROCELAB_DEVICE_PREPARE=0 (the engine set the interfaces up itself)
//   --wait-ports S        ROCELAB_WAIT_PORTS (seconds to wait for the ports to appear; default 60)

import { execa } from "execa";
import { readTokenFile } from "../../runtime/realtime/control-auth.js";
import type { ControlEndpoint } from "../../runtime/realtime/control-endpoint.js";
import { formatControlEndpoint, parseControlEndpoint } from "../../runtime/realtime/control-endpoint.js";
import { DeviceRuntime } from "../../runtime/realtime/device-runtime.js";
import type { InitMessage } from "../../runtime/realtime/protocol.js";
import { SocketChannel } from "../../runtime/realtime/socket-channel.js";
import { type DeviceFile, parseDeviceFile, readDeviceFile } from "./device-file.js";
import { prepareInterfaces } from "./device-prepare.js";

/** The default control port of a device container. */
export const DEVICE_CONTROL_PORT = 7700;
/**
 * Loopback unless told otherwise: a control port on every address of the machine is a port for every
 * network it is on. Exports name the management address (containerlab) or the pod's (clabernetes).
 */
export const DEFAULT_DEVICE_CONTROL = `tcp://127.0.0.1:${DEVICE_CONTROL_PORT}`;
const DEFAULT_WAIT_PORTS_S = 60;

export interface DeviceEntryFlags {
  readonly config?: string;
  readonly control?: string;
  readonly tokenFile?: string;
  readonly epochUnixNs?: string;
  /** false: --no-prepare. */
  readonly prepare?: boolean;
  readonly waitPorts?: string;
}

export interface DeviceEntryOptions {
  readonly file: DeviceFile;
  readonly control: ControlEndpoint;
  readonly tokenFile: string | null;
  /** The token the file holds (read and checked here, so that a bad file is a setting error). */
  readonly token: Buffer | null;
  readonly epochUnixNs: string | undefined;
  readonly prepare: boolean;
  readonly waitPortsMs: number;
}

/** A setting that cannot be used: exit status 2, the message says which and what is allowed. */
export class EntryError extends Error {}

/** The entrypoint's settings from its flags and environment (flags win); validates the device file. */
export function entryOptions(
  flags: DeviceEntryFlags,
  env: NodeJS.ProcessEnv = process.env,
): DeviceEntryOptions {
  const configPath = flags.config ?? env.ROCELAB_DEVICE_CONFIG;
  let file: DeviceFile;
  if (configPath) file = readDeviceFile(configPath);
  else if (env.ROCELAB_DEVICE_CONFIG_JSON)
    file = parseDeviceFile("$ROCELAB_DEVICE_CONFIG_JSON", env.ROCELAB_DEVICE_CONFIG_JSON);
  else
    throw new EntryError(
      "no device file: give --config FILE (or ROCELAB_DEVICE_CONFIG=FILE, or its text in ROCELAB_DEVICE_CONFIG_JSON); `rocelab device-config TOPOLOGY --out DIR` writes one per node",
    );
  const controlText = flags.control ?? env.ROCELAB_CONTROL ?? DEFAULT_DEVICE_CONTROL;
  const control = parseControlEndpoint(controlText);
  if (typeof control === "string") throw new EntryError(`--control: ${control}`);
  const tokenFile = flags.tokenFile ?? env.ROCELAB_CONTROL_TOKEN_FILE ?? null;
  if (control.kind === "tcp" && tokenFile === null)
    throw new EntryError(
      `--control ${formatControlEndpoint(control)} is a TCP port: give --token-file FILE (or ROCELAB_CONTROL_TOKEN_FILE) with the secret controllers must prove they know (docs/attach.md), or listen on a unix: socket`,
    );
  let token: Buffer | null = null;
  try {
    if (tokenFile !== null) token = readTokenFile(tokenFile);
  } catch (e) {
    throw new EntryError(`--token-file: ${(e as Error).message}`);
  }
  const epochUnixNs = flags.epochUnixNs ?? env.ROCELAB_EPOCH_UNIX_NS ?? file.epochUnixNs;
  if (epochUnixNs !== undefined && !/^\d{1,20}$/.test(epochUnixNs))
    throw new EntryError(`--epoch-unix-ns "${epochUnixNs}" is not UNIX time in ns (a decimal number)`);
  const waitText = flags.waitPorts ?? env.ROCELAB_WAIT_PORTS ?? String(DEFAULT_WAIT_PORTS_S);
  const wait = Number(waitText);
  if (!(wait >= 0)) throw new EntryError(`--wait-ports "${waitText}" is not a number of seconds >= 0`);
  return {
    file,
    control,
    tokenFile,
    token,
    epochUnixNs,
    prepare: flags.prepare !== false && env.ROCELAB_DEVICE_PREPARE !== "0",
    waitPortsMs: wait * 1000,
  };
}

/**
 * process.hrtime.bigint() at emulated time 0: `epochUnixNs` (wall clock, which the fabric's hosts keep
 * in step with NTP or PTP) turned into this process's monotonic clock, else now.
 */
export function hrtimeEpoch(epochUnixNs: string | undefined, log: (line: string) => void): bigint {
  const hrNow = process.hrtime.bigint();
  if (epochUnixNs === undefined) return hrNow;
  const wallNow = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  const since = wallNow - BigInt(epochUnixNs);
  if (since < 0n) {
    log(
      `the epoch ${epochUnixNs} is ${Number(-since) / 1e9} s in the future (clock skew?): counting from now`,
    );
    return hrNow;
  }
  return hrNow - since;
}

/** The init message the supervisor would send this device, from its file. */
export function initFromFile(f: DeviceFile, epoch: bigint): InitMessage {
  return {
    type: "init",
    lab: f.lab,
    node: f.node,
    kind: f.kind,
    config: f.config,
    ports: f.ports.map((p) => ({ port: p.port, ifname: p.ifname, delayNs: p.delayNs })),
    epoch: epoch.toString(),
    dilation: f.dilation,
    seed: f.seed,
    reactionMs: f.reactionMs,
    ...(f.portIo !== undefined ? { portIo: f.portIo } : {}),
  };
}

/** Runs the device until SIGTERM (or a controller's `shutdown`). */
export async function runDeviceEntry(opts: DeviceEntryOptions): Promise<void> {
  const f = opts.file;
  const log = (line: string): void => {
    process.stderr.write(`rocelab device ${f.node}: ${line}\n`);
  };
  // Not `rocelab-<lab>-<node>`: `rocelab down` stops what carries its lab's mark, and these devices belong
  // to the engine that started them.
  process.title = `rocelab-dev:${f.lab}:${f.node}`;
  const token = opts.token;
  if (opts.prepare) await prepareInterfaces(f, opts.waitPortsMs, log);
  let runtime: DeviceRuntime | null = null;
  const channel = await SocketChannel.listen({
    endpoint: opts.control,
    token,
    identity: () => runtime?.identity() ?? null,
    log,
  });
  runtime = new DeviceRuntime(channel);
  const stop = (): void => runtime!.shutdown(0);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  runtime.start(initFromFile(f, hrtimeEpoch(opts.epochUnixNs, log)));
  if (f.hostStack) void resolveGateway(f.hostStack.gateway, Math.max(opts.waitPortsMs, 10_000), log);
  log(
    `running: ${f.kind} of lab ${f.lab}, ports ${f.ports.map((p) => `${p.port}=${p.ifname}`).join(" ")}, dilation ${f.dilation}; control on ${channel.address}${token ? " (token)" : ""}`,
  );
}

/**
 * A real fabric has its neighbours resolved long before traffic: the host's kernel pings its leaf, and the
 * leaf learns the host from that ARP (provision.ts resolveNeighbours does it for a local lab). The leaf
 * may come up after this NIC, so it is tried once a second until it answers.
 */
async function resolveGateway(gateway: string, forMs: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + forMs;
  while (Date.now() < deadline) {
    const r = await execa("ping", ["-c", "1", "-W", "1", gateway], { reject: false });
    if (r.exitCode === 0) {
      log(`the leaf ${gateway} answers (its ARP entry for this host is in place)`);
      return;
    }
    await new Promise((done) => setTimeout(done, 1000));
  }
  log(`the leaf ${gateway} did not answer a ping within ${forMs / 1000} s`);
}
