// Benchmark: how many frames a second one live switch process forwards, what it costs in CPU and event-loop
// lag against offered load, beside the kernel's own IPv4 forwarding between the very same veths, measured in
// the same run. Run as root:
//
//   node dist/tools/bench/switch-forwarding.js [--seconds S] [--loads 10k,25k,...,max] [--frame-bytes N]
//                                        [--dilation D] [--rate 400G] [--phases baseline,switch,port-io,kernel]
//                                        [--port-io pcap,ring] [--generator ring|pcap]
//
// Set-up (names carry the lab's marks, so `rocelab down --all` finds leftovers):
//
//   rl-bench-gen  eth1 ──veth── eth1  rl-bench-sw  eth2 ──veth── eth1  rl-bench-sink
//   frame-generator                   switch process                   kernel counters only
//                                     (or kernel forwarding)
//
// Four phases over the same loads:
//   baseline  nothing forwards: the generator's frames die in rl-bench-sw's IP layer (forwarding off, no
//             addresses — the same path they also take in the switch phase, where the kernel sees every
//             frame beside the capture). What the generator and the veth cost, to subtract below.
//   switch    the live switch process (dist/main/device-main.js, started as the lab starts it), once
//             per port I/O backend (--port-io: libpcap, the AF_PACKET ring), side by side.
//   port-io   the switch's port I/O alone (port-echo.ts): a Node process reading eth1's AF_PACKET ring and
//             sending every frame out eth2 unchanged, no device — the floor of a live switch process.
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

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DeviceProcess } from "../../src/lab/live/device-process.js";
import { makeLabDir } from "../../src/lab/live/names.js";
import { findLabProcesses, interfaceMtu, listNamespaces, teardown } from "../../src/lab/live/provision.js";
import type { PortBackend } from "../../src/runtime/realtime/port-io.js";
import type { InitMessage } from "../../src/runtime/realtime/protocol.js";
import { writeNewFile } from "../../src/runtime/realtime/safe-files.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { resolveTunables } from "../../src/scenario/settings-layers.js";
import { buildSwitchConfig } from "../../src/scenario/switch-config.js";
import { ipToString, type MacAddress, macToString } from "../../src/wire/bytes.js";
import { describeMachine, findProcessesByName, isMain, runAsScript } from "./common.js";
import { AB_BASE, AB_THIS, abReport } from "./switch-forwarding-ab.js";
import { ECHO_ENTRY, Echo } from "./switch-forwarding-echo.js";
import { Generator } from "./switch-forwarding-generator.js";
import { runLevels } from "./switch-forwarding-measure.js";
import { BASE_ENTRY, type Options, parseOptions, USAGE } from "./switch-forwarding-options.js";
import { type LevelResult, Phase, portIoKey, report, switchKey } from "./switch-forwarding-report.js";
import {
  BENCH_LAB,
  benchTopology,
  buildFrame,
  type Fabric,
  ipBatch,
  ns,
  provisionBench,
  sysctl,
} from "./switch-forwarding-setup.js";

export { BENCH_LAB } from "./switch-forwarding-setup.js";

/** A locally administered MAC the sink takes after the switch has learned its real one (see the header). */
const SINK_DEAF_MAC: MacAddress = 0x02_00_00_ff_ff_01;

/**
 * Starts the switch process (`entry`: this build's program, or --base's) and waits until it has learned
 * both peers' MACs.
 */
async function startSwitch(
  f: Fabric,
  opts: Options,
  portIo: PortBackend,
  entry?: string,
): Promise<DeviceProcess> {
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
  const device = new DeviceProcess(BENCH_LAB, "sw", "switch", ns("sw"), init, entry);
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

/**
 * Starts the port-io phase's echo and makes the sink deaf to its MAC, as for the switch (whose forwarded
 * frames carry the sink's MAC; the echo's carry the switch port's, which the sink drops alike).
 */
async function startEcho(opts: Options, entry?: string): Promise<Echo> {
  const echo = new Echo(opts.rateBps, opts.dilation, entry);
  await echo.ready;
  await ipBatch([`link set eth1 address ${macToString(SINK_DEAF_MAC)}`], ns("sink"));
  return echo;
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

/**
 * The switch phase's runs: each backend once, or with --base each backend in `rounds` rounds of this
 * build and the base build, the order swapped every round so that a machine getting busier or quieter
 * weighs on both alike.
 */
function switchRunPlan(
  opts: Options,
): { backend: PortBackend; build: string; round: number; entry: string | undefined }[] {
  if (opts.base === null)
    return opts.portIo.map((backend) => ({ backend, build: "", round: 0, entry: undefined }));
  const baseEntry = join(opts.base, BASE_ENTRY);
  const plan = [];
  for (let round = 1; round <= opts.rounds; round++) {
    for (const backend of opts.portIo) {
      const pair = [
        { backend, build: AB_THIS, round, entry: undefined },
        { backend, build: AB_BASE, round, entry: baseEntry },
      ];
      plan.push(...(round % 2 === 1 ? pair : pair.reverse()));
    }
  }
  return plan;
}

/**
 * The port-io phase's runs: this build's echo once, or with --base (when that build has one) `rounds`
 * rounds of both, the order swapped every round as for the switch.
 */
function echoRunPlan(
  opts: Options,
  log: (line: string) => void,
): { build: string; round: number; entry: string | undefined }[] {
  const baseEcho = opts.base === null ? null : join(opts.base, ECHO_ENTRY);
  if (baseEcho === null || !existsSync(baseEcho)) {
    if (baseEcho !== null) log(`port-io phase: --base has no ${ECHO_ENTRY}, this build's echo only`);
    return [{ build: "", round: 0, entry: undefined }];
  }
  const plan = [];
  for (let round = 1; round <= opts.rounds; round++) {
    const pair = [
      { build: AB_THIS, round, entry: undefined },
      { build: AB_BASE, round, entry: baseEcho },
    ];
    plan.push(...(round % 2 === 1 ? pair : pair.reverse()));
  }
  return plan;
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
    const savedResults = new Map(Object.entries(saved.results) as [string, LevelResult[]][]);
    report(saved.options, savedResults);
    abReport(saved.options, savedResults);
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
  let echo: Echo | null = null;
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
        for (const { backend, build, round, entry } of switchRunPlan(opts)) {
          await restoreSink(f);
          device = await startSwitch(f, opts, backend, entry);
          logged(`switch phase: port I/O ${backend}${build ? `, ${build} build, round ${round}` : ""}`);
          const levels = await runLevels(phase, opts, { generator, device, softirqThreads }, logged);
          results.set(switchKey(backend, build, round), levels);
          await device.stop();
          device = null;
        }
      } else if (phase === Phase.PortIo) {
        for (const { build, round, entry } of echoRunPlan(opts, logged)) {
          await restoreSink(f);
          echo = await startEcho(opts, entry);
          logged(
            `port-io phase: the switch's port I/O alone (ring), no device${build ? `, ${build} build, round ${round}` : ""}`,
          );
          const levels = await runLevels(
            phase,
            opts,
            { generator, device: null, echo, softirqThreads },
            logged,
          );
          results.set(portIoKey(build, round), levels);
          await echo.stop();
          echo = null;
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
    abReport(opts, results);
  } finally {
    if (device) device.kill();
    if (echo) await echo.stop().catch(() => {});
    if (generator) await generator.stop().catch(() => {});
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

if (isMain(import.meta.url)) runAsScript(main);
