// The device file: everything one live device needs to run on its own — in a container, in a namespace
// the lab did not create — written by `rocelab device-config` and read by the device entrypoint
// (device-entry.ts). Its `config`, `ports`, `kind`, `dilation` and `seed` are what the supervisor hands a
// device process it spawns (device-inits.ts); `mtu`, the ports' MACs and `hostStack` are what provisioning
// (provision.ts) sets up around it in a local lab, which the entrypoint then sets up itself.

import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { MAX_DILATION, MIN_DILATION } from "../../runtime/realtime/dilation.js";
import type { OutputDir } from "../../runtime/realtime/safe-files.js";
import { hostAddress, planAddresses, portKey } from "../../scenario/address-plan.js";
import { ConfigError, SourceDocument } from "../../scenario/config-error.js";
import { computeRoutes } from "../../scenario/routing.js";
import { SettingsLayers, switchChange } from "../../scenario/settings-layers.js";
import { NodeKind, type Topology } from "../../scenario/topology.js";
import { ipToString, macToString, parseIp } from "../../wire/bytes.js";
import { deviceSetup, LIVE_REACTION_MS, labInterfaceMtu, liveSlack } from "./device-inits.js";
import { HOST_KERNEL_IF, HOST_NIC_IF, NIC_HOST_PORT } from "./names.js";

export const DEVICE_FILE_FORMAT = "rocelab-device/1";

const ifname = z
  .string()
  .regex(
    /^[A-Za-z0-9_.-]{1,15}$/,
    "an interface name: 1-15 letters, digits, '_', '.' or '-' (Linux IFNAMSIZ)",
  );
const mac = z
  .string()
  .regex(/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/, "a MAC address such as 02:00:00:01:01:00");
const ipv4 = z.string().refine((s) => parseIp(s) !== null, "an IPv4 address such as 10.1.0.1");
const prefix = z
  .string()
  .refine(
    (s) => /^[\d.]+\/(\d|[12]\d|3[0-2])$/.test(s) && parseIp(s.split("/")[0]!) !== null,
    "an IPv4 prefix such as 10.1.0.0/16",
  );

const port = z
  .object({
    port: z.number().int().min(1),
    ifname,
    /** One-way propagation delay to emulate on frames leaving the port, emulated ns. */
    delayNs: z.number().min(0),
    /** The address plan's MAC for the interface (absent: the NIC's side of its host stack). */
    mac: mac.optional(),
  })
  .strict();

const hostStack = z
  .object({
    /** The kernel's interface (its IP stack) and the NIC's side of that veth pair. */
    kernelIf: ifname,
    nicIf: ifname,
    mac,
    ip: ipv4,
    prefixLength: z.number().int().min(1).max(32),
    gateway: ipv4,
    /** Prefixes routed through the fabric (the topology's host and fabric pools). */
    routes: z.array(prefix),
  })
  .strict();

export const deviceFileSchema = z
  .object({
    format: z.literal(DEVICE_FILE_FORMAT),
    lab: z.string().regex(/^[a-z][a-z0-9]{0,15}$/, "a lab name: 1-16 lowercase letters and digits"),
    node: z.string().regex(/^[A-Za-z][\w-]*$/, "a node name of the topology"),
    kind: z.enum(["switch", "nic"]),
    /** Where the topology came from (for people reading the file). */
    topology: z.string().optional(),
    dilation: z.number().min(MIN_DILATION).max(MAX_DILATION),
    seed: z.number().int(),
    /** Real ms of PFC reaction the switches' headroom was sized for (device-inits.ts liveSlack). */
    reactionMs: z.number().positive().max(10_000),
    /** Wall-clock time (UNIX ns, decimal) at emulated time 0, shared by the fabric's devices. */
    epochUnixNs: z
      .string()
      .regex(/^\d{1,20}$/, "UNIX time in ns, as a decimal string")
      .optional(),
    portIo: z.enum(["ring", "pcap"]).optional(),
    /** Interface MTU of every port: the path MTU plus the RoCE headers. */
    mtu: z.number().int().min(68).max(65535),
    ports: z.array(port).min(1),
    hostStack: hostStack.optional(),
    /** The device's resolved configuration (SwitchConfig or NicConfig), as rocelab builds it. */
    config: z.record(z.string(), z.unknown()),
  })
  .strict()
  .superRefine((f, ctx) => {
    const problem = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: "custom", path, message });
    if (f.kind === "nic" && !f.hostStack)
      problem(["hostStack"], "a NIC needs its host stack (kernelIf, nicIf, ip, ...)");
    if (f.kind === "switch" && f.hostStack) problem(["hostStack"], "only a NIC has a host stack");
    const seen = new Set<string>();
    f.ports.forEach((p, i) => {
      for (const key of [`port ${p.port}`, `interface ${p.ifname}`]) {
        if (seen.has(key)) problem(["ports", i], `${key} is listed twice`);
        seen.add(key);
      }
    });
    if (f.config.name !== f.node)
      problem(["config", "name"], `the configuration is for "${String(f.config.name)}", not ${f.node}`);
    if (f.kind === "switch") {
      const cfgPorts = f.config.ports;
      if (!Array.isArray(cfgPorts) || cfgPorts.length !== f.ports.length)
        problem(
          ["config", "ports"],
          `a switch configuration with the ${f.ports.length} ports listed in ports`,
        );
    } else {
      if (typeof f.config.port !== "object")
        problem(["config", "port"], "a NIC configuration (port, gatewayMac, ...)");
      const wire = f.ports.find((p) => p.port === 1);
      const host = f.ports.find((p) => p.port === NIC_HOST_PORT);
      if (!wire) problem(["ports"], "a NIC's wire port 1");
      if (!host || host.ifname !== f.hostStack?.nicIf)
        problem(["ports"], `a NIC's host-stack port ${NIC_HOST_PORT} on hostStack.nicIf`);
    }
  });

export type DeviceFile = z.infer<typeof deviceFileSchema>;

/** Reads and validates a device file; problems name the file, the path and what is allowed. */
export function readDeviceFile(file: string): DeviceFile {
  return SourceDocument.read(file).parse(deviceFileSchema);
}

/** Validates a device file given as text (`name` says where it came from, e.g. an environment variable). */
export function parseDeviceFile(name: string, text: string): DeviceFile {
  return new SourceDocument(name, text).parse(deviceFileSchema);
}

export interface DeviceFilesOptions {
  readonly lab: string;
  readonly dilation: number;
  readonly seed: number;
  /** Real ms a device may take to react to a pause (default LIVE_REACTION_MS; free clocks want more). */
  readonly reactionMs?: number;
  readonly epochUnixNs?: string;
}

/** The device file of every node of `topo`, as a local lab of the same settings would run them. */
export function deviceFiles(topo: Topology, opts: DeviceFilesOptions): DeviceFile[] {
  const plan = planAddresses(topo);
  const reactionMs = opts.reactionMs ?? LIVE_REACTION_MS;
  const layers = new SettingsLayers(topo, switchChange(liveSlack(opts.dilation, reactionMs)));
  const routes = computeRoutes(topo, plan);
  const mtu = labInterfaceMtu(topo, plan, layers);
  return topo.nodes.map((n) => {
    const setup = deviceSetup(topo, plan, layers, n.name, routes.get(n.name) ?? []);
    const ports = setup.ports.map((p) => {
      const addr = plan.ports.get(portKey(n.name, p.port));
      return { ...p, ...(addr && p.ifname !== HOST_NIC_IF ? { mac: macToString(addr.mac) } : {}) };
    });
    const file: DeviceFile = {
      format: DEVICE_FILE_FORMAT,
      lab: opts.lab,
      node: n.name,
      kind: setup.kind,
      topology: topo.source,
      dilation: opts.dilation,
      seed: opts.seed,
      reactionMs,
      ...(opts.epochUnixNs !== undefined ? { epochUnixNs: opts.epochUnixNs } : {}),
      mtu,
      ports,
      config: setup.config as Record<string, unknown>,
    };
    if (n.kind !== NodeKind.Host) return file;
    const a = hostAddress(plan, n.name);
    return {
      ...file,
      hostStack: {
        kernelIf: HOST_KERNEL_IF,
        nicIf: HOST_NIC_IF,
        mac: macToString(a.mac),
        ip: ipToString(a.ip),
        prefixLength: a.prefixLength,
        gateway: ipToString(a.peerIp),
        routes: [topo.hostPool, topo.fabricPool],
      },
    };
  });
}

/** Mode of device files: no secret in them, and a container runtime that is not root must read them. */
export const DEVICE_FILE_MODE = 0o644;

/** Writes `<node>.json` for every device file into `dir`; returns the paths. */
export function writeDeviceFiles(dir: OutputDir, files: readonly DeviceFile[]): string[] {
  return files.map((f) => {
    const text = `${JSON.stringify(f, null, 2)}\n`;
    // A configuration JSON cannot carry (Infinity, undefined in arrays) would reach the device changed.
    if (!isDeepStrictEqual(JSON.parse(text), f))
      throw new ConfigError(`${f.node}.json`, [
        {
          path: "config",
          message: "this device's configuration does not survive JSON (a value JSON cannot carry)",
        },
      ]);
    return dir.write(`${f.node}.json`, text, DEVICE_FILE_MODE);
  });
}
