// Benchmark: how many frames a second one live switch process forwards, what it costs in CPU and event-loop
// lag against offered load, beside the kernel's own IPv4 forwarding between the very same veths, measured in
// the same run. Run as root:
//
//   node dist/bench/switch-forwarding.js [--seconds S] [--loads 10k,25k,...,max] [--frame-bytes N]
//                                        [--dilation D] [--rate 400G] [--phases baseline,switch,kernel]
//
// Set-up (names carry the lab's marks, so `rocelab down --all` finds leftovers):
//
//   rl-bench-gen  eth1 ──veth── eth1  rl-bench-sw  eth2 ──veth── eth1  rl-bench-sink
//   frame-generator                   switch process                   kernel counters only
//                                     (or kernel forwarding)
//
// Three phases over the same loads:
//   baseline  nothing forwards: the generator's frames die in rl-bench-sw's IP layer (forwarding off, no
//             addresses — the same path they also take in the switch phase, where the kernel sees every
//             frame beside the capture). What the generator and the veth cost, to subtract below.
//   switch    the live switch process (dist/runtime/live/device-main.js, started as the lab starts it).
//   kernel    the switch process stopped, addresses on sw eth1/eth2, ip_forward=1, static neighbours.
// The sink counts frames in the kernel's interface counters and drops them at once: its MAC is changed after
// the switch has learned it, so every frame arrives "for another host" and dies in ip_rcv before any routing
// (this kernel has no tc actions and no nftables to drop them otherwise). The sink costs the same little in
// both forwarding phases.
//
// CPU: per process from /proc/PID/stat, system-wide from /proc/stat. On veth the receiving kernel's work runs
// in softirq inside the sender's send call, and this kernel's tick-based accounting charges it to the sending
// process: the kernel's forwarding shows up as generator CPU, the delivery to the sink as switch CPU. The
// honest cost of forwarding a frame is therefore everything the set-up used (generator + switch + ksoftirqd)
// above the baseline phase at the same load, per forwarded frame; counting these processes rather than the
// whole machine keeps other people's work on a shared machine out of it. The whole machine's busy time is
// printed beside it.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { planAddresses } from "../lab/address-plan.js";
import { DeviceProcess } from "../lab/live/device-process.js";
import { labDir, nsName } from "../lab/live/names.js";
import { distPath } from "../lab/live/paths.js";
import { findLabProcesses, interfaceMtu, listNamespaces, teardown } from "../lab/live/provision.js";
import { computeRoutes } from "../lab/routing.js";
import { topologyFile } from "../lab/schema.js";
import { resolveTunables } from "../lab/settings-layers.js";
import { buildSwitchConfig, maxFrameBytes } from "../lab/switch-config.js";
import { DEFAULT_MTU, resolveTopology } from "../lab/topology.js";
import { formatRate, parseRate } from "../lab/units.js";
import type { Health, InitMessage } from "../runtime/live/protocol.js";
import { type Ipv4Address, ipToString, type MacAddress, macToString } from "../wire/bytes.js";
import { EtherType, serializeEthernet } from "../wire/ethernet.js";
import { Ecn, IpProtocol, serializeIpv4 } from "../wire/ipv4.js";
import { ROCEV2_UDP_PORT, serializeUdp } from "../wire/udp.js";
import {
  describeMachine,
  findProcessesByName,
  fmt,
  fmtInt,
  formatTable,
  isMain,
  median,
  parseRates,
  readProcessCpu,
  readProcessRss,
  readSystemCpu,
  runAsScript,
  type SystemCpuDelta,
  systemCpuDelta,
} from "./common.js";
import type { FromGenerator, ToGenerator } from "./frame-generator.js";

/** The benchmark's lab name: namespaces rl-bench-*, processes rocelab-bench-*. */
export const BENCH_LAB = "bench";

export const Phase = {
  Baseline: "baseline",
  Switch: "switch",
  Kernel: "kernel",
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

/** Loss at or below this fraction counts as lossless (a stray frame in millions is not a drop pattern). */
const LOSSLESS_FRACTION = 1e-4;
/** The machine counts as quiet below this much busy time over a second, % of one core. */
const QUIET_BUSY_PCT = 15;
/** After the generator stops: time for the last frames to cross before the counters are read, ms. */
const DRAIN_MS = 300;
/** RoCE data DSCP, ECT(0): the frames take the switch's lossless, ECN-marking path, as RoCE data does. */
const DATA_DSCP = 26;
/** A locally administered MAC the sink takes after the switch has learned its real one (see the header). */
const SINK_DEAF_MAC: MacAddress = 0x02_00_00_ff_ff_01;

const DEFAULTS = {
  seconds: 5,
  warmupSeconds: 1,
  loads: "10k,25k,50k,75k,100k,125k,150k,200k,max",
  frameBytes: maxFrameBytes(DEFAULT_MTU),
  dilation: 1,
  rate: "400G",
  phases: "baseline,switch,kernel",
  quietWait: 60,
} as const;

const USAGE = `usage: node dist/bench/switch-forwarding.js [options]   (as root)
  --seconds S         measured seconds per load level (default ${DEFAULTS.seconds})
  --warmup S          seconds of traffic before each phase's first level (default ${DEFAULTS.warmupSeconds})
  --loads LIST        offered frame rates, e.g. 10k,50k,max (default ${DEFAULTS.loads})
  --frame-bytes N     frame size without FCS (default ${DEFAULTS.frameBytes}, the lab's full-size RoCE frame)
  --dilation D        the switch's clock dilation (default ${DEFAULTS.dilation})
  --rate R            emulated port rate of the switch (default ${DEFAULTS.rate})
  --phases LIST       any of baseline,switch,kernel (default all three)
  --quiet-wait S      before each level, wait up to S seconds for the machine to be quiet (default ${DEFAULTS.quietWait})
  --save FILE         also write the measurements as JSON
  --from FILE         print the report of a saved run (no measuring, no root)`;

interface Options {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly loads: readonly number[];
  readonly frameBytes: number;
  readonly dilation: number;
  readonly rateBps: number;
  readonly phases: readonly Phase[];
  readonly quietWaitSeconds: number;
  /** Write the measurements (JSON) here. */
  readonly save: string | undefined;
  /** Print the report of a saved run instead of measuring. */
  readonly from: string | undefined;
}

function parseOptions(argv: readonly string[]): Options | null {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seconds: { type: "string" },
      warmup: { type: "string" },
      loads: { type: "string" },
      "frame-bytes": { type: "string" },
      dilation: { type: "string" },
      rate: { type: "string" },
      phases: { type: "string" },
      "quiet-wait": { type: "string" },
      save: { type: "string" },
      from: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return null;
  const num = (text: string | undefined, fallback: number, what: string, min: number): number => {
    const v = text === undefined ? fallback : Number(text);
    if (!(v >= min)) throw new Error(`${what} must be a number >= ${min}, got ${text}`);
    return v;
  };
  const rateBps = parseRate(values.rate ?? DEFAULTS.rate);
  if (rateBps === null) throw new Error(`--rate ${values.rate} is not a rate (for example 400G)`);
  const phases = (values.phases ?? DEFAULTS.phases).split(",").map((p) => p.trim());
  const known: readonly string[] = Object.values(Phase);
  for (const p of phases) if (!known.includes(p)) throw new Error(`unknown phase ${p} (${known.join(", ")})`);
  const frameBytes = num(values["frame-bytes"], DEFAULTS.frameBytes, "--frame-bytes", 60);
  const maxBytes = 14 + interfaceMtu(DEFAULT_MTU);
  if (frameBytes > maxBytes) throw new Error(`--frame-bytes ${frameBytes} exceeds the lab's ${maxBytes}`);
  return {
    seconds: num(values.seconds, DEFAULTS.seconds, "--seconds", 0.1),
    warmupSeconds: num(values.warmup, DEFAULTS.warmupSeconds, "--warmup", 0),
    loads: parseRates(values.loads ?? DEFAULTS.loads),
    frameBytes: Math.round(frameBytes),
    dilation: num(values.dilation, DEFAULTS.dilation, "--dilation", 1),
    quietWaitSeconds: num(values["quiet-wait"], DEFAULTS.quietWait, "--quiet-wait", 0),
    save: values.save,
    from: values.from,
    rateBps,
    // Always in this order: the kernel phase leaves forwarding on, which the switch phase must not see.
    phases: Object.values(Phase).filter((p) => phases.includes(p)),
  };
}

// -------------------------------------------------------------------------------------------------------
// The little fabric: addresses from the lab's own address plan, switch config from the lab's own builder

function benchTopology(rateBps: number) {
  const file = topologyFile.parse({
    name: BENCH_LAB,
    description: "switch-forwarding benchmark: gen -> sw -> sink",
    // No propagation delay: the emulated link must add nothing to what is measured.
    defaults: { link: { rate: rateBps, delay: 0 }, mtu: DEFAULT_MTU },
    nodes: { gen: { kind: "host" }, sw: { kind: "switch" }, sink: { kind: "host" } },
    links: [
      ["gen:eth1", "sw:eth1"],
      ["sink:eth1", "sw:eth2"],
    ],
  });
  const topo = resolveTopology(file, "switch-forwarding benchmark", null);
  const plan = planAddresses(topo);
  const at = (node: string, port: number) => plan.ports.get(`${node}:${port}`)!;
  return { topo, plan, gen: at("gen", 1), swIn: at("sw", 1), swOut: at("sw", 2), sink: at("sink", 1) };
}

type Fabric = ReturnType<typeof benchTopology>;

/** One UDP/IPv4 frame from the generator to the sink, addressed to the switch's ingress port. */
export function buildFrame(
  bytes: number,
  from: { mac: MacAddress; ip: Ipv4Address },
  gatewayMac: MacAddress,
  to: Ipv4Address,
): Uint8Array {
  const frame = new Uint8Array(bytes);
  let off = serializeEthernet({ dst: gatewayMac, src: from.mac, etherType: EtherType.IPv4 }, frame);
  off = serializeIpv4(
    {
      src: from.ip,
      dst: to,
      protocol: IpProtocol.UDP,
      payloadLength: bytes - off - 20,
      dscp: DATA_DSCP,
      ecn: Ecn.Ect0,
    },
    frame,
    off,
  );
  serializeUdp({ srcPort: 0xc000, dstPort: ROCEV2_UDP_PORT, payloadLength: bytes - off - 8 }, frame, off);
  return frame;
}

// -------------------------------------------------------------------------------------------------------
// Provisioning (execa argument arrays and `ip -batch`, as the lab does)

const ns = (node: string): string => nsName(BENCH_LAB, node);

async function ipBatch(commands: readonly string[], namespace?: string): Promise<void> {
  const args = namespace ? ["-n", namespace, "-batch", "-"] : ["-batch", "-"];
  await execa("ip", args, { input: `${commands.join("\n")}\n` });
}

async function sysctl(namespace: string, settings: readonly string[]): Promise<void> {
  await execa("ip", ["netns", "exec", namespace, "sysctl", "-q", "-w", ...settings]);
}

async function provisionBench(f: Fabric): Promise<void> {
  const mtu = interfaceMtu(f.topo.mtu);
  await ipBatch([
    `netns add ${ns("gen")}`,
    `netns add ${ns("sw")}`,
    `netns add ${ns("sink")}`,
    `link add eth1 netns ${ns("gen")} type veth peer name eth1 netns ${ns("sw")}`,
    `link add eth1 netns ${ns("sink")} type veth peer name eth2 netns ${ns("sw")}`,
  ]);
  const port = (name: string, mac: MacAddress): string =>
    `link set ${name} address ${macToString(mac)} mtu ${mtu} up`;
  await ipBatch(
    ["link set lo up", port("eth1", f.gen.mac), `addr add ${ipToString(f.gen.ip)}/31 dev eth1`],
    ns("gen"),
  );
  await ipBatch(["link set lo up", port("eth1", f.swIn.mac), port("eth2", f.swOut.mac)], ns("sw"));
  await ipBatch(
    ["link set lo up", port("eth1", f.sink.mac), `addr add ${ipToString(f.sink.ip)}/31 dev eth1`],
    ns("sink"),
  );
  const noV6 = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"];
  for (const node of ["gen", "sw", "sink"]) await sysctl(ns(node), noV6);
  await sysctl(ns("sw"), ["net.ipv4.ip_forward=0"]);
  // Offloads off, as on every lab port: userspace must see the frames a wire would carry.
  const ports: [string, string][] = [
    [ns("gen"), "eth1"],
    [ns("sw"), "eth1"],
    [ns("sw"), "eth2"],
    [ns("sink"), "eth1"],
  ];
  for (const [namespace, iface] of ports) {
    await execa(
      "ip",
      [
        ...["netns", "exec", namespace, "ethtool", "-K", iface],
        ...["rx", "off", "tx", "off", "sg", "off", "tso", "off", "gso", "off", "gro", "off"],
      ],
      { reject: false },
    );
  }
}

/** Interface counters from the kernel (`ip -s -j link show`): costs the measured processes nothing. */
async function linkCounters(namespace: string, iface: string): Promise<{ rx: number; rxDropped: number }> {
  const { stdout } = await execa("ip", ["-n", namespace, "-s", "-j", "link", "show", iface]);
  const [entry] = JSON.parse(stdout) as { stats64: { rx: { packets: number; dropped: number } } }[];
  return { rx: entry!.stats64.rx.packets, rxDropped: entry!.stats64.rx.dropped };
}

// -------------------------------------------------------------------------------------------------------
// The generator process

class Generator {
  private readonly child;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (m: Extract<FromGenerator, { type: "done" }>) => void; reject: (e: Error) => void }
  >();
  readonly ready: Promise<number>;

  constructor(frame: Uint8Array) {
    this.child = execa(
      "ip",
      [
        ...["netns", "exec", ns("gen"), process.execPath, distPath("bench/frame-generator.js")],
        ...["--lab", BENCH_LAB, "--ifname", "eth1"],
      ],
      { ipc: true, stdin: "ignore", stdout: "inherit", stderr: "inherit", reject: false, cleanup: true },
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.on("message", (raw) => {
        const m = raw as FromGenerator;
        if (m.type === "ready") resolve(m.pid);
        else if (m.type === "done") {
          this.waiting.get(m.id)?.resolve(m);
          this.waiting.delete(m.id);
        } else if (m.type === "fatal") reject(new Error(`frame generator failed: ${m.message}`));
      });
      void this.child.then((r) => {
        const e = new Error(`frame generator exited (code ${r.exitCode}, signal ${r.signal})`);
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      });
    });
    this.send({ type: "init", frameHex: Buffer.from(frame).toString("hex") });
  }

  get pid(): number {
    return this.child.pid!;
  }

  private send(m: ToGenerator): void {
    if (this.child.connected) this.child.send(m);
  }

  /** Sends at `fps` (0: flat out) for `seconds`; resolves with what was sent. */
  run(fps: number, seconds: number): Promise<Extract<FromGenerator, { type: "done" }>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ type: "run", id, fps, seconds });
    });
  }

  async stop(): Promise<void> {
    this.send({ type: "exit" });
    await Promise.race([this.child, sleep(2000)]);
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

// -------------------------------------------------------------------------------------------------------
// Measuring one load level

/** Everything measured at one offered load in one phase. Rates are per real second; CPU in % of one core. */
export interface LevelResult {
  readonly phase: Phase;
  /** Asked-for frames/s (0: flat out). */
  readonly requestedFps: number;
  readonly offeredFps: number;
  /** Frames that reached the sink's interface, per second. */
  readonly forwardedFps: number;
  readonly lossPct: number;
  /** Frames the switch namespace's kernel took in from the generator's veth, per second. */
  readonly ingressFps: number;
  /** Frames the switch process received (switch phase), per second. */
  readonly switchInFps: number;
  readonly switchCpuPct: number;
  /** The generator process; on veth this includes the receiving kernel's softirq work run in its sends. */
  readonly generatorCpuPct: number;
  /** The ksoftirqd threads (softirq work the kernel deferred instead of running it in the sender). */
  readonly ksoftirqdCpuPct: number;
  /** Every CPU-second the measured set-up used: generator + switch + ksoftirqd. */
  readonly attributedCpuPct: number;
  readonly system: SystemCpuDelta;
  readonly seconds: number;
  /** Health reports the switch process sent per second (10 when its event loop turns freely). */
  readonly healthReportsPerS: number;
  /** Event-loop lag of the switch process, real ms: medians of the 100-ms windows, the worst window, the max. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagWorstP99Ms: number;
  readonly lagMaxMs: number;
  readonly switchRssBytes: number;
  readonly skipped: number;
  readonly sendErrors: number;
}

interface Running {
  readonly generator: Generator;
  /** The switch process in the switch phase. */
  readonly device: DeviceProcess | null;
  /** Pids of the ksoftirqd threads. */
  readonly softirqThreads: readonly number[];
}

type CpuReading = ReturnType<typeof readProcessCpu>;

/** CPU-seconds between two readings of the same processes (a process gone counts as nothing). */
function cpuSeconds(a: readonly CpuReading[], b: readonly CpuReading[]): number {
  let sum = 0;
  a.forEach((x, i) => {
    const y = b[i];
    if (x && y) sum += y.user + y.system - x.user - x.system;
  });
  return sum;
}

async function measureLevel(phase: Phase, fps: number, seconds: number, run: Running): Promise<LevelResult> {
  const { generator, device, softirqThreads } = run;
  const windows: Health[] = [];
  // The first report after the level ended also belongs to it: it covers the level's last moments, and when
  // cap kept the event loop blocked until the end, it is the one that holds the blocked time.
  let ended = false;
  let tail: Health | null = null;
  const onHealth = (_now: number, h: Health): void => {
    if (!ended) windows.push(h);
    else tail ??= h;
  };
  // The stats request resets the device's lag histogram: windows start clean at this level.
  const before = device ? await device.request({ type: "stats" }) : null;
  device?.on("health", onHealth);
  const sink0 = await linkCounters(ns("sink"), "eth1");
  const in0 = await linkCounters(ns("sw"), "eth1");
  const swPid = device?.pid ?? null;
  const read = (): {
    sys: ReturnType<typeof readSystemCpu>;
    gen: CpuReading;
    sw: CpuReading;
    soft: CpuReading[];
  } => ({
    sys: readSystemCpu(),
    gen: readProcessCpu(generator.pid),
    sw: swPid ? readProcessCpu(swPid) : null,
    soft: softirqThreads.map(readProcessCpu),
  });
  const c0 = read();
  const done = await generator.run(fps, seconds);
  const c1 = read();
  const reports = windows.length;
  ended = true;
  await sleep(DRAIN_MS);
  const sink1 = await linkCounters(ns("sink"), "eth1");
  const in1 = await linkCounters(ns("sw"), "eth1");
  const after = device ? await device.request({ type: "stats" }) : null;
  device?.off("health", onHealth);
  // No report since the level ended: the stats answer's health covers that time instead.
  const last = tail ?? after?.health;
  if (last) windows.push(last);
  const t = done.seconds;
  const pct = (cpu: number): number => (cpu / t) * 100;
  const gen = pct(cpuSeconds([c0.gen], [c1.gen]));
  const sw = swPid ? pct(cpuSeconds([c0.sw], [c1.sw])) : Number.NaN;
  const soft = pct(cpuSeconds(c0.soft, c1.soft));
  const delivered = sink1.rx - sink0.rx;
  const switchIn = before && after ? after.health.framesIn - before.health.framesIn : Number.NaN;
  return {
    phase,
    requestedFps: fps,
    offeredFps: done.sent / t,
    forwardedFps: phase === Phase.Baseline ? Number.NaN : delivered / t,
    lossPct: phase === Phase.Baseline ? Number.NaN : Math.max(0, (1 - delivered / done.sent) * 100),
    ingressFps: (in1.rx - in0.rx) / t,
    switchInFps: switchIn / t,
    switchCpuPct: sw,
    generatorCpuPct: gen,
    ksoftirqdCpuPct: soft,
    attributedCpuPct: gen + soft + (swPid ? sw : 0),
    system: systemCpuDelta(c0.sys, c1.sys),
    seconds: t,
    healthReportsPerS: device ? reports / t : Number.NaN,
    lagP50Ms: median(windows.map((w) => w.lagP50Ms)),
    lagP99Ms: median(windows.map((w) => w.lagP99Ms)),
    lagWorstP99Ms: windows.length > 0 ? Math.max(...windows.map((w) => w.lagP99Ms)) : Number.NaN,
    lagMaxMs: windows.length > 0 ? Math.max(...windows.map((w) => w.lagMaxMs)) : Number.NaN,
    switchRssBytes: swPid ? (readProcessRss(swPid) ?? Number.NaN) : Number.NaN,
    skipped: done.skipped,
    sendErrors: done.errors,
  };
}

// -------------------------------------------------------------------------------------------------------
// The phases

/**
 * Waits (at most `maxSeconds`) until the machine has been quiet for a second: on a shared 2-CPU machine
 * another person's test run would take a CPU from the measured processes. Returns the last second's busy %.
 */
async function waitForQuiet(maxSeconds: number, log: (line: string) => void): Promise<number> {
  const deadline = Date.now() + maxSeconds * 1000;
  let waited = false;
  for (;;) {
    const a = readSystemCpu();
    await sleep(1000);
    const busy = pctOfCore(systemCpuDelta(a, readSystemCpu()).busy, 1);
    if (busy <= QUIET_BUSY_PCT || Date.now() >= deadline) {
      if (waited) log(`  (waited for a quieter machine: ${fmt(busy)} % busy now)`);
      return busy;
    }
    waited = true;
  }
}

async function runLevels(
  phase: Phase,
  opts: Options,
  run: Running,
  log: (line: string) => void,
): Promise<LevelResult[]> {
  if (opts.warmupSeconds > 0) await run.generator.run(opts.loads[0] ?? 10_000, opts.warmupSeconds);
  const out: LevelResult[] = [];
  for (const fps of opts.loads) {
    if (opts.quietWaitSeconds > 0) await waitForQuiet(opts.quietWaitSeconds, log);
    const r = await measureLevel(phase, fps, opts.seconds, run);
    out.push(r);
    log(
      `  ${phase} ${loadLabel(fps)}: offered ${fmtInt(r.offeredFps)}/s, forwarded ${fmtInt(r.forwardedFps)}/s, ` +
        `loss ${fmt(r.lossPct, 2)} %, switch ${fmt(r.switchCpuPct)} %, generator ${fmt(r.generatorCpuPct)} %, ` +
        `lag p99 ${fmt(r.lagP99Ms, 2)} ms`,
    );
  }
  return out;
}

async function startSwitch(f: Fabric, opts: Options): Promise<DeviceProcess> {
  const routes = computeRoutes(f.topo, f.plan).get("sw") ?? [];
  const config = buildSwitchConfig(f.topo, f.plan, routes, "sw", resolveTunables(f.topo, "sw"));
  const init: InitMessage = {
    type: "init",
    lab: BENCH_LAB,
    node: "sw",
    kind: "switch",
    config,
    ports: [
      { port: 1, ifname: "eth1", delayNs: 0 },
      { port: 2, ifname: "eth2", delayNs: 0 },
    ],
    epoch: process.hrtime.bigint().toString(),
    dilation: opts.dilation,
    seed: 1,
  };
  const device = new DeviceProcess(BENCH_LAB, "sw", "switch", ns("sw"), init);
  await device.start();
  // The switch asks for both peers' MACs at start; wait until it has them, so no level pays for ARP.
  for (let i = 0; i < 50; i++) {
    const { stats } = await device.request({ type: "stats" });
    if ((stats.counters.arp_received ?? 0) >= 2) break;
    await sleep(100);
  }
  // Now that the switch has learned the sink's MAC, make the sink deaf to it (see the header).
  await ipBatch([`link set eth1 address ${macToString(SINK_DEAF_MAC)}`], ns("sink"));
  return device;
}

async function enableKernelForwarding(f: Fabric): Promise<void> {
  const neigh = (ip: number, mac: MacAddress, dev: string): string =>
    `neigh replace ${ipToString(ip)} lladdr ${macToString(mac)} dev ${dev} nud permanent`;
  await ipBatch(
    [
      `addr add ${ipToString(f.swIn.ip)}/31 dev eth1`,
      `addr add ${ipToString(f.swOut.ip)}/31 dev eth2`,
      // Static entries: no ARP in the measured path, and the sink is addressed by the MAC the switch
      // learned (the sink now answers to another one, so it drops the frames unrouted, as in the switch phase).
      neigh(f.sink.ip, f.sink.mac, "eth2"),
      neigh(f.gen.ip, f.gen.mac, "eth1"),
    ],
    ns("sw"),
  );
  // When the switch phase did not run, the sink still answers to its planned MAC.
  await ipBatch([`link set eth1 address ${macToString(SINK_DEAF_MAC)}`], ns("sink"));
  await sysctl(ns("sw"), [
    "net.ipv4.ip_forward=1",
    "net.ipv4.conf.all.send_redirects=0",
    "net.ipv4.conf.all.rp_filter=0",
    "net.ipv4.conf.eth1.rp_filter=0",
  ]);
}

// -------------------------------------------------------------------------------------------------------
// Reporting

function loadLabel(fps: number): string {
  return fps === 0 ? "max" : fmtInt(fps);
}

const pctOfCore = (cpuSeconds: number, seconds: number): number => (cpuSeconds / seconds) * 100;

/**
 * CPU per forwarded frame above the baseline phase at the same load, µs: what the set-up's processes and
 * ksoftirqd used, minus what the generator and the veth cost on their own (the baseline, scaled to this
 * level's offered rate). Counting processes rather than the whole machine keeps other people's work out.
 */
export function netCpuPerFrameUs(r: LevelResult, base: LevelResult | undefined): number {
  if (!base || !(r.forwardedFps > 0) || !(base.offeredFps > 0)) return Number.NaN;
  const baseline = base.attributedCpuPct * (r.offeredFps / base.offeredFps);
  return ((r.attributedCpuPct - baseline) / 100 / r.forwardedFps) * 1e6;
}

/**
 * CPU-seconds per frame, µs, as the slope of a least-squares line through (frames/s, attributed CPU) over
 * the given levels: the fixed per-second costs (timer ticks, health reports) fall into the intercept, and
 * one level's tick-counting noise weighs less than in a per-level ratio. NaN with fewer than two levels.
 */
export function fittedCpuPerFrameUs(rows: readonly LevelResult[], x: (r: LevelResult) => number): number {
  const pts = rows.filter((r) => Number.isFinite(x(r)) && Number.isFinite(r.attributedCpuPct));
  if (pts.length < 2) return Number.NaN;
  const mx = pts.reduce((a, r) => a + x(r), 0) / pts.length;
  const my = pts.reduce((a, r) => a + r.attributedCpuPct / 100, 0) / pts.length;
  let sxy = 0;
  let sxx = 0;
  for (const r of pts) {
    sxy += (x(r) - mx) * (r.attributedCpuPct / 100 - my);
    sxx += (x(r) - mx) ** 2;
  }
  return sxx > 0 ? (sxy / sxx) * 1e6 : Number.NaN;
}

const isLossless = (r: LevelResult | undefined): boolean =>
  r !== undefined && r.lossPct <= LOSSLESS_FRACTION * 100;

/**
 * The highest load up to which every level was lossless (levels run in increasing order). A lossless level
 * above a lossy one is luck, not capacity: one stall of the process at the wrong moment would have lost.
 */
function maxLossless(rows: readonly LevelResult[]): LevelResult | null {
  let best: LevelResult | null = null;
  for (const r of rows) {
    if (!isLossless(r)) break;
    best = r;
  }
  return best;
}

function report(opts: Options, results: Map<Phase, LevelResult[]>): void {
  const print = (s = ""): void => {
    process.stdout.write(`${s}\n`);
  };
  const base = results.get(Phase.Baseline) ?? [];
  const sw = results.get(Phase.Switch) ?? [];
  const kern = results.get(Phase.Kernel) ?? [];
  // Busy time of the whole machine that none of the measured processes used: other people's work (and this
  // script's own bookkeeping). Large values mean the level ran on a machine that was not quiet.
  const sysCols = (r: LevelResult): string[] => [
    fmt(pctOfCore(r.system.busy, r.seconds)),
    fmt(pctOfCore(r.system.softirq, r.seconds)),
    fmt(Math.max(0, pctOfCore(r.system.busy, r.seconds) - r.attributedCpuPct)),
  ];
  print();
  print(
    `frames: ${opts.frameBytes} bytes (UDP/IPv4, DSCP ${DATA_DSCP}, ECT(0)); ${opts.seconds} s per level; ` +
      `switch ports ${formatRate(opts.rateBps)} emulated at dilation ${opts.dilation}`,
  );
  print(
    "CPU in % of one core. system busy: the whole machine; softirq: its softirq share; " +
      "others: busy time none of the measured processes used (other people's work)",
  );
  if (base.length > 0) {
    print();
    print("baseline: no forwarder (frames die in rl-bench-sw's IP layer)");
    print(
      formatTable(
        [
          "load fps",
          "offered fps",
          "generator CPU %",
          "ksoftirqd %",
          "system busy %",
          "softirq %",
          "others %",
        ],
        base.map((r) => [
          loadLabel(r.requestedFps),
          fmtInt(r.offeredFps),
          fmt(r.generatorCpuPct),
          fmt(r.ksoftirqdCpuPct),
          ...sysCols(r),
        ]),
      ),
    );
  }
  if (sw.length > 0) {
    print();
    print("userspace: one switch process (dist/runtime/live/device-main.js)");
    print(
      formatTable(
        [
          "load fps",
          "offered fps",
          "forwarded fps",
          "loss %",
          "unread %",
          "switch CPU %",
          "µs/frame",
          "reports/s",
          "lag p50 ms",
          "p99",
          "worst p99",
          "max",
          "generator CPU %",
          "ksoftirqd %",
          "system busy %",
          "softirq %",
          "others %",
        ],
        sw.map((r) => [
          loadLabel(r.requestedFps),
          fmtInt(r.offeredFps),
          fmtInt(r.forwardedFps),
          fmt(r.lossPct, 2),
          fmt(Math.max(0, (1 - r.switchInFps / r.ingressFps) * 100), 2),
          fmt(r.switchCpuPct),
          fmt((r.switchCpuPct / 100 / r.forwardedFps) * 1e6, 2),
          fmt(r.healthReportsPerS, 1),
          fmt(r.lagP50Ms, 2),
          fmt(r.lagP99Ms, 2),
          fmt(r.lagWorstP99Ms, 1),
          fmt(r.lagMaxMs, 1),
          fmt(r.generatorCpuPct),
          fmt(r.ksoftirqdCpuPct),
          ...sysCols(r),
        ]),
      ),
    );
    print(
      "  unread %: frames the switch's namespace received that the process never read (capture ring full)",
    );
    print("  µs/frame: switch process CPU per forwarded frame");
    print(
      "  reports/s: health reports from the switch (10/s when its event loop turns; fewer: it was blocked)",
    );
    print("  lag: event-loop delay; p50, p99: medians over 100-ms windows; worst p99: the worst window");
  }
  if (kern.length > 0) {
    print();
    print("kernel: IPv4 forwarding in rl-bench-sw between the same veths");
    print(
      formatTable(
        [
          "load fps",
          "offered fps",
          "forwarded fps",
          "loss %",
          "generator CPU %",
          "ksoftirqd %",
          "system busy %",
          "softirq %",
          "others %",
        ],
        kern.map((r) => [
          loadLabel(r.requestedFps),
          fmtInt(r.offeredFps),
          fmtInt(r.forwardedFps),
          fmt(r.lossPct, 2),
          fmt(r.generatorCpuPct),
          fmt(r.ksoftirqdCpuPct),
          ...sysCols(r),
        ]),
      ),
    );
    print("  the kernel forwards in softirq, run inside the generator's sends: it shows in generator CPU");
  }
  if (sw.length === 0 || kern.length === 0) return;
  print();
  print(
    "side by side (net µs/frame: generator + switch + ksoftirqd CPU above the baseline at the same load, " +
      "per forwarded frame)",
  );
  print(
    formatTable(
      [
        "load fps",
        "switch fwd fps",
        "loss %",
        "net µs/frame",
        "kernel fwd fps",
        "loss %",
        "net µs/frame",
        "kernel/switch CPU",
      ],
      sw.map((s, i) => {
        const k = kern[i];
        const su = netCpuPerFrameUs(s, base[i]);
        const ku = k ? netCpuPerFrameUs(k, base[i]) : Number.NaN;
        return [
          loadLabel(s.requestedFps),
          fmtInt(s.forwardedFps),
          fmt(s.lossPct, 2),
          fmt(su, 2),
          fmtInt(k?.forwardedFps ?? Number.NaN),
          fmt(k?.lossPct ?? Number.NaN, 2),
          fmt(ku, 2),
          fmt(ku / su, 3),
        ];
      }),
    ),
  );
  print();
  const ls = maxLossless(sw);
  const lk = maxLossless(kern);
  const ceiling = Math.max(...kern.map((r) => r.offeredFps));
  if (ls && lk) {
    const bound = lk.offeredFps >= ceiling * 0.98 ? "≥ " : "";
    print(
      `max lossless rate (every level up to it lost ≤ ${LOSSLESS_FRACTION * 100} %): switch process ${fmtInt(ls.offeredFps)} fps, ` +
        `kernel ${bound}${fmtInt(lk.offeredFps)} fps; kernel/userspace = ${bound}${fmt(lk.offeredFps / ls.offeredFps, 1)}×`,
    );
    if (bound) print("  (the kernel was lossless at the highest rate the generator reached: a lower bound)");
  } else {
    print("max lossless rate: one of the phases had no lossless level (offer lower loads)");
  }
  // The headline CPU comparison: per-frame slopes over every lossless level, minus the baseline's slope.
  // Flat-out levels are left out: a generator that never sleeps pays no timer ticks, so its cost per frame
  // is not on the same line as the paced levels'.
  const paced = (r: LevelResult): boolean => r.requestedFps > 0;
  const fitBase = fittedCpuPerFrameUs(base.filter(paced), (r) => r.offeredFps);
  const fitSw = fittedCpuPerFrameUs(
    sw.filter((r) => paced(r) && isLossless(r)),
    (r) => r.forwardedFps,
  );
  const fitKern = fittedCpuPerFrameUs(
    kern.filter((r) => paced(r) && isLossless(r)),
    (r) => r.forwardedFps,
  );
  const netSw = fitSw - fitBase;
  const netKern = fitKern - fitBase;
  print(
    `CPU per forwarded frame, fitted over the paced lossless levels: generator alone (baseline) ${fmt(fitBase, 2)} µs; ` +
      `with the switch process ${fmt(fitSw, 2)} µs (forwarding: ${fmt(netSw, 2)} µs); with kernel forwarding ` +
      `${fmt(fitKern, 2)} µs (forwarding: ${fmt(netKern, 2)} µs); kernel/userspace = ${fmt(netKern / netSw, 3)} ` +
      `(userspace ${fmt(netSw / netKern, 0)}× more)`,
  );
  // And at one level: the highest load up to which both forwarded without loss.
  const cpuLine = (what: string, s: LevelResult, si: number, k: LevelResult, ki: number): void => {
    const su = netCpuPerFrameUs(s, base[si]);
    const ku = netCpuPerFrameUs(k, base[ki]);
    print(
      `CPU per forwarded frame ${what}: userspace ${fmt(su, 2)} µs at ${fmtInt(s.forwardedFps)} fps ` +
        `(switch process alone ${fmt((s.switchCpuPct / 100 / s.forwardedFps) * 1e6, 2)} µs), kernel ${fmt(ku, 2)} µs ` +
        `at ${fmtInt(k.forwardedFps)} fps; kernel/userspace = ${fmt(ku / su, 3)} (userspace ${fmt(su / ku, 1)}× more)`,
    );
  };
  let both = -1;
  while (both + 1 < sw.length && isLossless(sw[both + 1]) && isLossless(kern[both + 1])) both++;
  if (both >= 0)
    cpuLine("at the highest load lossless in both (and below)", sw[both]!, both, kern[both]!, both);
  const rss = sw.map((r) => r.switchRssBytes).filter(Number.isFinite);
  if (rss.length > 0) print(`switch process RSS: up to ${fmt(Math.max(...rss) / 2 ** 20, 0)} MiB`);
}

/** What --save writes and --from reads. */
interface SavedRun {
  readonly machine: string;
  readonly date: string;
  readonly options: Options;
  readonly log: readonly string[];
  readonly results: Partial<Record<Phase, LevelResult[]>>;
}

// -------------------------------------------------------------------------------------------------------
// Main

/** Runs the benchmark; see the header for what it measures. */
export async function main(argv: readonly string[]): Promise<void> {
  const opts = parseOptions(argv);
  if (opts === null) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const print = (s: string): void => {
    process.stdout.write(`${s}\n`);
  };
  print("== switch-forwarding: one live switch process against the kernel, same veths, same run ==");
  if (opts.from !== undefined) {
    // JSON has no NaN (what was not measured): it was written as null.
    const saved = JSON.parse(readFileSync(opts.from, "utf8"), (_k, v: unknown) =>
      v === null ? Number.NaN : v,
    ) as SavedRun;
    print(`${saved.machine} (saved run of ${saved.date})`);
    for (const line of saved.log) print(line);
    report(saved.options, new Map(Object.entries(saved.results) as [Phase, LevelResult[]][]));
    return;
  }
  const machine = describeMachine();
  print(machine);
  const log: string[] = [];
  const logged = (line: string): void => {
    log.push(line);
    print(line);
  };
  if (process.getuid?.() !== 0) {
    print("skipped: needs root (network namespaces, veth, packet capture)");
    return;
  }
  const f = benchTopology(opts.rateBps);
  if ((await listNamespaces(BENCH_LAB)).length > 0 || findLabProcesses(BENCH_LAB).length > 0) {
    print(`removing leftovers of an earlier run (lab ${BENCH_LAB})`);
    await teardown(BENCH_LAB);
  }

  let cleaning: Promise<unknown> | null = null;
  const cleanup = (): Promise<unknown> => {
    cleaning ??= teardown(BENCH_LAB);
    return cleaning;
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (cleaning) return;
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void cleanup().finally(() => process.exit(130));
  };
  // `on`, not `once`: execa's exit hook re-raises a signal that no other listener is left for, which would
  // kill us before the namespaces are gone.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const results = new Map<Phase, LevelResult[]>();
  let generator: Generator | null = null;
  let device: DeviceProcess | null = null;
  try {
    mkdirSync(labDir(BENCH_LAB), { recursive: true });
    await provisionBench(f);
    const frame = buildFrame(opts.frameBytes, f.gen, f.swIn.mac, f.sink.ip);
    const softirqThreads = findProcessesByName("ksoftirqd/");
    generator = new Generator(frame);
    await generator.ready;
    logged(
      `set-up: ${ns("gen")} eth1 (${ipToString(f.gen.ip)}) -> ${ns("sw")} eth1..eth2 -> ${ns("sink")} eth1 ` +
        `(${ipToString(f.sink.ip)}), MTU ${interfaceMtu(f.topo.mtu)}, offloads off`,
    );
    for (const phase of opts.phases) {
      if (phase === Phase.Switch) {
        device = await startSwitch(f, opts);
        results.set(phase, await runLevels(phase, opts, { generator, device, softirqThreads }, logged));
        await device.stop();
        device = null;
      } else if (phase === Phase.Kernel) {
        await enableKernelForwarding(f);
        results.set(phase, await runLevels(phase, opts, { generator, device: null, softirqThreads }, logged));
      } else {
        results.set(phase, await runLevels(phase, opts, { generator, device: null, softirqThreads }, logged));
      }
    }
    await generator.stop();
    generator = null;
    if (opts.save !== undefined) {
      const saved: SavedRun = {
        machine,
        date: new Date().toISOString(),
        options: opts,
        log,
        results: Object.fromEntries(results),
      };
      writeFileSync(opts.save, `${JSON.stringify(saved, null, 1)}\n`);
    }
    report(opts, results);
  } finally {
    if (device) device.kill();
    if (generator) await generator.stop().catch(() => {});
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

if (isMain(import.meta.url)) runAsScript(main);
