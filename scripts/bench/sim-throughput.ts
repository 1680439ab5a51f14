// Benchmark: how fast the virtual-time runtime moves packets. Two NICs back to back (Simulator + Nic, as the
// NIC tests build them) move one RDMA WRITE of 100 MB, with and without payload verification; then, when
// the file is there, the 16-to-1 incast scenario docs/experiments/incast-pfc.yaml as `rocelab run` runs it
// (without writing the report), and what its time series cost: the scenario with its own `sample` against
// the same with one sample per run, report written, alternating. Prints packets per real second and how
// emulated time compares with real time. No privileges needed.
//
//   node dist/tools/bench/sim-throughput.js [--mb 100] [--runs 5] [--scenario FILE | --no-scenario]
//   (--runs: runs per variant, and pairs of the sampling comparison)

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { emulatedProgress } from "../../src/cli/progress.js";
import { distPath } from "../../src/lab/live/paths.js";
import { Nic } from "../../src/nic/nic.js";
import { nicConfig } from "../../src/nic/resolve-config.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { Simulator } from "../../src/runtime/sim/simulator.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { parseIp } from "../../src/wire/bytes.js";
import { describeMachine, fmt, fmtInt, formatTable, isMain, median, runAsScript } from "./common.js";

const MAC_A = 0x02_00_00_00_0a_01;
const MAC_B = 0x02_00_00_00_0b_01;
const IP_A = parseIp("10.0.0.1")!;
const IP_B = parseIp("10.0.0.2")!;
const RATE_BPS = 100e9;
const DELAY_NS = 1000;
/** Emulated time the simulation advances per step while waiting for the completion. */
const STEP_NS = 1_000_000;

const DEFAULTS = {
  mb: 100,
  runs: 5,
  scenario: "docs/experiments/incast-pfc.yaml",
} as const;

/** What one simulated transfer cost. */
export interface SimRun {
  readonly wallMs: number;
  readonly emulatedNs: number;
  /** Frames put on the link, both directions (data and ACKs). */
  readonly frames: number;
  readonly events: number;
  readonly payloadMismatches: number;
}

/** One WRITE of `bytes` from A to B over a 100 Gb/s, 1 µs link; returns once B has acknowledged all of it. */
export function simulateWrite(bytes: number, verifyPayload: boolean): SimRun {
  const sim = new Simulator({ seed: 1 });
  const nic = (name: string, mac: number, ip: number, peerMac: number): Nic =>
    sim.addDevice(
      name,
      (env) =>
        new Nic(
          nicConfig({
            name,
            port: { mac, ip, rateBps: RATE_BPS, delayNs: DELAY_NS },
            gatewayMac: peerMac,
            settings: { transport: { verifyPayload } },
          }),
          env,
        ),
    );
  const a = nic("a", MAC_A, IP_A, MAC_B);
  const b = nic("b", MAC_B, IP_B, MAC_A);
  const link = sim.connect({ a: { device: "a", port: 1 }, b: { device: "b", port: 1 }, delayNs: DELAY_NS });
  const must = (n: Nic, cmd: Parameters<Nic["command"]>[0]): void => {
    const r = n.command(cmd, sim.now);
    if (!r.ok) throw new Error(`${n.name}: ${cmd.type} refused: ${r.error}`);
  };
  must(a, { type: "create-qp", qpn: 1, remoteQpn: 1001, remoteIp: IP_B });
  must(b, { type: "create-qp", qpn: 1001, remoteQpn: 1, remoteIp: IP_A });
  const started = performance.now();
  must(a, { type: "post", qpn: 1, op: "write", bytes, flowId: "bench" });
  // A generous limit (100 MB take 8.4 ms at 100 Gb/s): a transfer that stalls must not spin forever.
  const limitNs = Math.max(1e9, ((bytes * 8) / RATE_BPS) * 1e9 * 100);
  while (a.completions.length === 0 && sim.now < limitNs) sim.run(sim.now + STEP_NS);
  const wallMs = performance.now() - started;
  const done = a.completions[0];
  if (!done) throw new Error("the WRITE did not complete");
  return {
    wallMs,
    emulatedNs: done.completedAt,
    frames: link.frames[0] + link.frames[1],
    events: sim.eventsProcessed,
    payloadMismatches: Number(b.stats(sim.now).counters.payload_mismatch ?? 0),
  };
}

/** The incast scenario as `rocelab run` runs it in the simulator, timed (report assembled, not written). */
export function simulateScenario(file: string): SimRun & { readonly name: string } {
  const sc = loadScenario(file);
  const bar = emulatedProgress(`bench ${sc.name}`, sc.durationNs);
  const started = performance.now();
  const { fabric } = runScenarioSim(sc, { onProgress: (now) => bar.at(now) });
  const wallMs = performance.now() - started;
  bar.stop();
  let frames = 0;
  for (const l of sc.topology.links) {
    const link = fabric.sim.linkAt(l.a.node, l.a.port);
    if (link) frames += link.frames[0] + link.frames[1];
  }
  return {
    name: sc.name,
    wallMs,
    emulatedNs: sc.durationNs,
    frames,
    events: fabric.sim.eventsProcessed,
    payloadMismatches: 0,
  };
}

function row(label: string, r: SimRun): string[] {
  const s = r.wallMs / 1000;
  return [
    label,
    fmt(r.wallMs, 0),
    fmt(r.emulatedNs / 1e6, 2),
    fmtInt(r.frames),
    fmtInt(r.frames / s),
    fmtInt(r.events / s),
    fmt(r.wallMs / 1e3 / (r.emulatedNs / 1e9), 0),
  ];
}

/** CPU ms of this process (every thread: the collector's helpers included) while `f` runs. */
function cpuMsOf(f: () => void): number {
  const before = process.cpuUsage();
  f();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

/** What sampling costs: CPU ms of the scenario at its own sample interval and at one sample per run. */
export interface SamplingCost {
  readonly sampleNs: number;
  readonly sampled: number[];
  readonly unsampled: number[];
}

/**
 * Runs `file` at its own `sample` and at `sample` = its duration (one sample: none to speak of),
 * alternating, `pairs` times after one warm-up pair, each writing its report to a scratch directory.
 */
export function samplingCost(file: string, pairs: number): SamplingCost {
  const sc = loadScenario(file);
  const scratch = mkdtempSync(join(tmpdir(), "rocelab-sampling-"));
  const sampled: number[] = [];
  const unsampled: number[] = [];
  try {
    for (let i = 0; i <= pairs; i++) {
      for (const [sampleNs, into] of [
        [sc.sampleNs, sampled],
        [sc.durationNs, unsampled],
      ] as const) {
        const outDir = join(scratch, `run-${i}-${sampleNs}`);
        const ms = cpuMsOf(() => runScenarioSim({ ...sc, sampleNs }, { outDir }));
        rmSync(outDir, { recursive: true, force: true });
        if (i > 0) into.push(ms);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { sampleNs: sc.sampleNs, sampled, unsampled };
}

const HEADER = ["run", "wall ms", "emulated ms", "frames", "frames/s", "events/s", "real/emulated"] as const;

/** Runs the benchmark and prints its tables. */
export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      mb: { type: "string" },
      runs: { type: "string" },
      scenario: { type: "string" },
      "no-scenario": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: node dist/tools/bench/sim-throughput.js [--mb 100] [--runs 5] [--scenario FILE | --no-scenario]\n",
    );
    return;
  }
  const mb = Number(values.mb ?? DEFAULTS.mb);
  const runs = Number(values.runs ?? DEFAULTS.runs);
  if (!(mb > 0) || !(runs >= 1)) throw new Error("--mb must be > 0 and --runs >= 1");
  const print = (s = ""): void => {
    process.stdout.write(`${s}\n`);
  };
  print("== sim-throughput: the virtual-time runtime, two NICs back to back ==");
  print(describeMachine());
  const bytes = Math.round(mb * 1e6);
  // A short run first so that both measured variants meet a warmed-up JIT.
  simulateWrite(10e6, true);
  const rows: string[][] = [];
  const medians = new Map<boolean, SimRun>();
  for (const verify of [true, false]) {
    const all: SimRun[] = [];
    for (let i = 0; i < runs; i++) all.push(simulateWrite(bytes, verify));
    // The median run (the lower middle one for an even count), so that its frames and time belong together.
    const sorted = [...all].sort((x, y) => x.wallMs - y.wallMs);
    medians.set(verify, sorted[(sorted.length - 1) >> 1]!);
    for (const [i, r] of all.entries()) {
      if (r.payloadMismatches > 0) throw new Error(`payload mismatches in run ${i}: a transport bug`);
      rows.push(row(`WRITE ${mb} MB, verify ${verify ? "on" : "off"}, run ${i + 1}`, r));
    }
  }
  print();
  print(
    `one RDMA WRITE of ${mb} MB, 100 Gb/s link, 1 µs delay, 4096-byte MTU (real/emulated: real seconds per`,
  );
  print("emulated second)");
  print(formatTable(HEADER, rows));
  const on = medians.get(true)!;
  const off = medians.get(false)!;
  print(
    `payload verification costs ${fmt((on.wallMs / off.wallMs - 1) * 100, 0)} % of the run time ` +
      `(median ${fmt(on.wallMs, 0)} ms on, ${fmt(off.wallMs, 0)} ms off); ` +
      `${fmtInt(on.frames / (on.wallMs / 1e3))} frames/s with it, ${fmtInt(off.frames / (off.wallMs / 1e3))} without`,
  );

  if (values["no-scenario"]) return;
  const file = values.scenario ?? join(dirname(distPath("")), DEFAULTS.scenario);
  if (!existsSync(file)) {
    print(`scenario ${file} not found: skipped`);
    return;
  }
  const sc = simulateScenario(file);
  print();
  print(`scenario ${sc.name} (${file}) in the simulator, report assembled but not written`);
  print(formatTable(HEADER, [row(sc.name, sc)]));
  const cost = samplingCost(file, runs);
  const runsRow = (label: string, ms: readonly number[]): string[] => [
    label,
    ms.map((x) => fmt(x, 0)).join(" "),
    fmt(Math.min(...ms), 0),
    fmt(median(ms), 0),
  ];
  print();
  print(
    `time series: ${sc.name} at sample ${fmt(cost.sampleNs / 1e3, 1)} µs against one sample per run, ` +
      `report written, ${runs} alternating pairs after a warm-up pair (CPU ms of this process)`,
  );
  print(
    formatTable(
      ["sample", "CPU ms, each run", "least", "median"],
      [runsRow(`${fmt(cost.sampleNs / 1e3, 1)} µs`, cost.sampled), runsRow("one per run", cost.unsampled)],
    ),
  );
  const least = Math.min(...cost.sampled) / Math.min(...cost.unsampled);
  const byMedian = median(cost.sampled) / median(cost.unsampled);
  print(`sampling costs ${fmt(least, 2)}× by the least run, ${fmt(byMedian, 2)}× by the median`);
}

if (isMain(import.meta.url)) runAsScript(main);
