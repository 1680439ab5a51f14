// Benchmark: how many frames a second one live switch process forwards, what it costs in CPU and event-loop
// lag against offered load, beside the kernel's own IPv4 forwarding between the very same veths, measured in
// the same run. Run as root:
//
//   node dist/tools/bench/switch-forwarding.js [--seconds S] [--loads 10k,25k,...,max] [--frame-bytes N]
//                                        [--dilation D] [--rate 400G] [--phases baseline,switch,kernel]
//                                        [--port-io pcap,ring] [--generator ring|pcap]
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
//   switch    the live switch process (dist/main/device-main.js, started as the lab starts it), once
//             per port I/O backend (--port-io: libpcap, the AF_PACKET ring), side by side.
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

import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { parseRate } from "../../src/device/units.js";
import { DeviceProcess } from "../../src/lab/live/device-process.js";
import { makeLabDir } from "../../src/lab/live/names.js";
import { findLabProcesses, interfaceMtu, listNamespaces, teardown } from "../../src/lab/live/provision.js";
import { type PortBackend, portBackend } from "../../src/runtime/realtime/port-io.js";
import type { Health, InitMessage } from "../../src/runtime/realtime/protocol.js";
import { writeNewFile } from "../../src/runtime/realtime/safe-files.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { resolveTunables } from "../../src/scenario/settings-layers.js";
import { buildSwitchConfig, maxFrameBytes } from "../../src/scenario/switch-config.js";
import { DEFAULT_MTU } from "../../src/scenario/topology.js";
import { ipToString, type MacAddress, macToString } from "../../src/wire/bytes.js";
import {
  describeMachine,
  findProcessesByName,
  fmt,
  fmtInt,
  isMain,
  median,
  parseRates,
  readProcessCpu,
  readProcessRss,
  readSystemCpu,
  runAsScript,
  systemCpuDelta,
} from "./common.js";
import { Generator } from "./switch-forwarding-generator.js";
import { type LevelResult, loadLabel, Phase, report, switchKey } from "./switch-forwarding-report.js";
import {
  BENCH_LAB,
  benchTopology,
  buildFrame,
  type Fabric,
  ipBatch,
  linkCounters,
  ns,
  provisionBench,
  sysctl,
  waitForQuiet,
} from "./switch-forwarding-setup.js";

export { BENCH_LAB } from "./switch-forwarding-setup.js";

/** After the generator stops: time for the last frames to cross before the counters are read, ms. */
const DRAIN_MS = 300;
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
  portIo: "pcap,ring",
  generator: "ring",
  quietWait: 60,
} as const;

const USAGE = `usage: node dist/tools/bench/switch-forwarding.js [options]   (as root)
  --seconds S         measured seconds per load level (default ${DEFAULTS.seconds})
  --warmup S          seconds of traffic before each phase's first level (default ${DEFAULTS.warmupSeconds})
  --loads LIST        offered frame rates, e.g. 10k,50k,max (default ${DEFAULTS.loads})
  --frame-bytes N     frame size without FCS (default ${DEFAULTS.frameBytes}, the lab's full-size RoCE frame)
  --dilation D        the switch's clock dilation (default ${DEFAULTS.dilation})
  --rate R            emulated port rate of the switch (default ${DEFAULTS.rate})
  --phases LIST       any of baseline,switch,kernel (default all three)
  --port-io LIST      the switch phase's port backends, run one after the other (default ${DEFAULTS.portIo})
  --generator IO      how the generator sends: ring (sendmmsg, default) or pcap (a send() per frame)
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
  readonly portIo: readonly PortBackend[];
  readonly generator: PortBackend;
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
      "port-io": { type: "string" },
      generator: { type: "string" },
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
    portIo: (values["port-io"] ?? DEFAULTS.portIo).split(",").map((b) => portBackend(b.trim())),
    generator: portBackend(values.generator ?? DEFAULTS.generator),
  };
}

// -------------------------------------------------------------------------------------------------------
// Measuring one load level

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

async function startSwitch(f: Fabric, opts: Options, portIo: PortBackend): Promise<DeviceProcess> {
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
    portIo,
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

/** A switch phase's second backend must learn the sink's MAC again: give the sink its own back first. */
async function restoreSink(f: Fabric): Promise<void> {
  await ipBatch([`link set eth1 address ${macToString(f.sink.mac)}`], ns("sink"));
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

/** What --save writes and --from reads. */
interface SavedRun {
  readonly machine: string;
  readonly date: string;
  readonly options: Options;
  readonly log: readonly string[];
  readonly results: Record<string, LevelResult[]>;
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
    report(saved.options, new Map(Object.entries(saved.results) as [string, LevelResult[]][]));
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

  const results = new Map<string, LevelResult[]>();
  let generator: Generator | null = null;
  let device: DeviceProcess | null = null;
  try {
    makeLabDir(BENCH_LAB);
    await provisionBench(f);
    const frame = buildFrame(opts.frameBytes, f.gen, f.swIn.mac, f.sink.ip);
    const softirqThreads = findProcessesByName("ksoftirqd/");
    generator = new Generator(frame, opts.generator);
    await generator.ready;
    logged(
      `set-up: ${ns("gen")} eth1 (${ipToString(f.gen.ip)}) -> ${ns("sw")} eth1..eth2 -> ${ns("sink")} eth1 ` +
        `(${ipToString(f.sink.ip)}), MTU ${interfaceMtu(f.topo.mtu)}, offloads off`,
    );
    for (const phase of opts.phases) {
      if (phase === Phase.Switch) {
        for (const backend of opts.portIo) {
          await restoreSink(f);
          device = await startSwitch(f, opts, backend);
          logged(`switch phase: port I/O ${backend}`);
          const levels = await runLevels(phase, opts, { generator, device, softirqThreads }, logged);
          results.set(switchKey(backend), levels);
          await device.stop();
          device = null;
        }
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
      // Replaced by rename if it exists (a benchmark's result is rewritten run after run), never written through.
      writeNewFile(opts.save, `${JSON.stringify(saved, null, 1)}\n`, { force: true, flag: "--save" });
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
