// Benchmark: the simulator against HPCC's ns-3 RDMA simulator (github.com/alibaba-edu/High-Precision-
// Congestion-Control, ns-3.17, optimised C++) on the scenario its users know: an N-to-1 incast through one
// switch, 100 Gb/s hosts with 1 µs links, 1 MB per sender, DCQCN as HPCC's run.py sets it up (our
// "hpcc-ns3" profile), ECN 400 KB / 1600 KB / 20 % decided at dequeue, a 32 MB buffer, 1000-byte payloads
// (the 1024-byte path MTU here) and an ACK for every packet. 64:1 and 16:1, each run `--runs` times in
// this process; prints the median run's wall time, events, frames per second and the ratio against the
// ns-3 figures recorded on this machine kind. With `--ns3 DIR` (the simulation/ directory of a built HPCC
// ns-3) it runs HPCC's simulator on the same incast too, alternating with ours, and prints both side by
// side: CPU time and the outcome (when the last flow completed, the median FCT).
//
// With `--buffers` (MiB), `--cc` or `--fat-tree` it compares outcomes instead (ns3-fidelity.ts): the
// incasts over shared-buffer sizes with DCQCN on and off, and a k = 4 fat tree under the web-search mix,
// every metric's mean over `--seeds` in both simulators and their ratio, for each `--mmu` accounting.
//
//   node dist/tools/bench/sim-vs-ns3.js [--runs 3] [--senders 64,16] [--ns3 DIR]
//   node dist/tools/bench/sim-vs-ns3.js --buffers 2,4,8,16,32 --cc dcqcn,off,hpcc,timely,dctcp [--fat-tree 2] [--load 0.5]
//       [--arrivals 10] [--stop 60]      (fat tree: ms of Poisson arrivals, and when both runs stop)
//       [--mmu default,hpcc-ns3] [--seeds 1,2,3] [--senders 16,64] [--acks data|high] [--byte-scale]
//       [--same-packets]                 (incasts, DCQCN or off: our packet made HPCC's; ns3-cases.ts)
//       [--ns3 DIR] [--markdown] [--json FILE]
//       [--perturb-starts NS]            (instead of ns-3: rocelab with every other flow or sender NS late)
//       [--ecmp crc16|crc32|xor32|toeplitz] (fat tree: our switches' ECMP hash; default crc32)
//       [--core-queues]                  (fat tree, one --cc, --ns3: every core port's queue at its peak,
//                                         packet by packet, in both simulators: ns3-core-queues.ts)
//       [--pooled]                       (fat tree: also each bucket's quantiles over all seeds' flows pooled)
//       [--hpcc-window bdp|wire]         (HPCC's window: maxBdp payload bytes as ns-3's, or ns-3's wire time)
//   node dist/tools/bench/sim-vs-ns3.js --from FILE [--markdown] [--pooled] # print a --json run again

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { entryPath } from "../../src/lab/live/paths.js";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { writeNewFile } from "../../src/runtime/realtime/safe-files.js";
import { resolveScenario, type Scenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { describeMachine, fmt, fmtInt, formatTable, isMain, median, runAsScript } from "./common.js";
import { type Ns3Run, ns3Binary, runNs3Incast, timeProcess } from "./hpcc-ns3.js";
import { reprintFidelity } from "./ns3-fidelity.js";
import { fidelity } from "./sim-vs-ns3-outcomes.js";

/** HPCC's ns-3 on the 64:1 incast, measured on this machine kind (issue #16): wall seconds and events. */
export const NS3_RECORDED = { senders: 64, wallS: 0.43, events: 937_000 } as const;

/** The N-to-1 incast as a scenario: one switch, N + 1 hosts, every sender writes `bytes` to the last host. */
export function incastScenario(senders: number, bytes = 1_000_000): Scenario {
  return resolveScenario(
    scenarioFile.parse(incastScenarioInput(senders, bytes)),
    `sim-vs-ns3-${senders}`,
    null,
  );
}

/** The same incast as a scenario file's contents (what `rocelab run` reads). */
export function incastScenarioInput(senders: number, bytes = 1_000_000): Record<string, unknown> {
  const hosts = Array.from({ length: senders + 1 }, (_, i) => `h${i + 1}`);
  const nodes: Record<string, { kind: "host" } | { kind: "switch" }> = { sw: { kind: "switch" } };
  for (const h of hosts) nodes[h] = { kind: "host" };
  // Long enough for the whole transfer at line rate, twice over.
  const durationNs = Math.ceil(((2 * senders * bytes * 8) / 100e9) * 1e9) + 200_000;
  return {
    name: `incast-${senders}to1`,
    description: `${senders}-to-1 incast through one switch, HPCC ns-3 DCQCN settings`,
    seed: 1,
    duration: `${durationNs}ns`,
    sample: "1ms",
    topology: {
      name: `star-${senders + 1}`,
      defaults: {
        link: { rate: "100G", delay: "1us" },
        mtu: 1024,
        switch: {
          buffer: { size: "32MB" },
          ecn: { fast: true, queues: { "3": { kmin: "400KB", kmax: "1600KB", pmax: "20%" } } },
        },
      },
      nodes,
      links: hosts.map((h, i) => [`${h}:eth1`, `sw:eth${i + 1}`]),
    },
    overrides: { hosts: { dcqcn: "hpcc-ns3", transport: { ackReqEvery: 1 } } },
    timeline: [
      { at: "0ns", start: { type: "incast", to: hosts[senders], from: senders, size: `${bytes}B` } },
    ],
  };
}

export interface IncastRun {
  readonly wallMs: number;
  /** CPU time of this process during the run (user + system, every thread: GC helpers included). */
  readonly cpuMs: number;
  readonly events: number;
  readonly frames: number;
  readonly lastFctNs: number;
  readonly medianFctNs: number;
  readonly completed: number;
}

export function runIncast(sc: Scenario): IncastRun {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { report, fabric } = runScenarioSim(sc);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - started;
  let frames = 0;
  for (const l of fabric.sim.links) frames += l.frames[0] + l.frames[1];
  let last = 0;
  for (const f of report.flows) last = Math.max(last, f.endNs ?? Number.POSITIVE_INFINITY);
  const fcts = report.flows.flatMap((f) => (f.fctNs === null || f.fctNs === undefined ? [] : [f.fctNs]));
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    events: fabric.sim.eventsProcessed,
    frames,
    lastFctNs: last,
    medianFctNs: fcts.length === 0 ? 0 : median(fcts),
    completed: report.summary.flowsCompleted,
  };
}

export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: "string" },
      senders: { type: "string" },
      ns3: { type: "string" },
      buffers: { type: "string" },
      cc: { type: "string" },
      "fat-tree": { type: "string" },
      load: { type: "string" },
      arrivals: { type: "string" },
      stop: { type: "string" },
      mmu: { type: "string" },
      seeds: { type: "string" },
      acks: { type: "string" },
      "byte-scale": { type: "boolean" },
      "scale-flows": { type: "boolean" },
      "perturb-starts": { type: "string" },
      ecmp: { type: "string" },
      "core-queues": { type: "boolean" },
      "hpcc-window": { type: "string" },
      "same-packets": { type: "boolean" },
      pooled: { type: "boolean" },
      from: { type: "string" },
      markdown: { type: "boolean" },
      json: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: node dist/tools/bench/sim-vs-ns3.js [--runs 3] [--senders 64,16] [--ns3 HPCC_SIMULATION_DIR]\n" +
        "       node dist/tools/bench/sim-vs-ns3.js --buffers 2,4,8,16,32 --cc dcqcn,off,hpcc,timely,dctcp [--fat-tree MIB] [--load 0.5]\n" +
        "           [--arrivals 10] [--stop 60]   (fat tree: flows arrive for ARRIVALS ms, the run stops at STOP ms)\n" +
        "           [--mmu default,hpcc-ns3] [--seeds 1,2,3] [--senders 16,64] [--acks data|high] [--byte-scale]\n" +
        "           [--scale-flows] [--same-packets] [--ns3 DIR | --perturb-starts NS] [--markdown] [--json FILE]\n" +
        "           [--ecmp crc16|crc32|xor32|toeplitz]   (fat tree: our switches' ECMP hash)\n" +
        "           [--core-queues]   (one --fat-tree and --cc, --ns3: each core port's queue at its peak)\n" +
        "           [--pooled]   (fat tree: each bucket's p50/p99 over all seeds' flows, cluster bootstrap over seeds)\n" +
        "           [--hpcc-window bdp|wire]   (HPCC's window: maxBdp of payload as ns-3's, or in ns-3's wire time)\n" +
        "       node dist/tools/bench/sim-vs-ns3.js --from FILE [--markdown] [--pooled]\n",
    );
    return;
  }
  if (values.from !== undefined) {
    const print = (s = ""): void => {
      process.stdout.write(`${s}\n`);
    };
    reprintFidelity(readFileSync(values.from, "utf8"), values.from, {
      markdown: values.markdown === true,
      pooled: values.pooled === true,
      print,
    });
    return;
  }
  if (values.buffers !== undefined || values.cc !== undefined || values["fat-tree"] !== undefined) {
    await fidelity(values);
    return;
  }
  const runs = Number(values.runs ?? 3);
  const senders = (values.senders ?? "64,16").split(",").map(Number);
  if (!(runs >= 1) || senders.some((n) => !(Number.isInteger(n) && n >= 1 && n <= 1000))) {
    throw new Error("--runs must be >= 1 and --senders a list of integers 1..1000");
  }
  const print = (s = ""): void => {
    process.stdout.write(`${s}\n`);
  };
  if (values.ns3 !== undefined) {
    ns3Binary(values.ns3);
    await sideBySide(values.ns3, senders, runs, print);
    return;
  }
  print("== sim-vs-ns3: N-to-1 incast through one switch, against HPCC's ns-3 ==");
  print(describeMachine());
  print(
    `HPCC ns-3 (recorded, not run here): ${NS3_RECORDED.senders}:1 in ${NS3_RECORDED.wallS} s wall, ` +
      `${fmtInt(NS3_RECORDED.events)} events`,
  );
  const rows: string[][] = [];
  for (const n of senders) {
    const sc = incastScenario(n);
    const all: IncastRun[] = [];
    for (let i = 0; i < runs; i++) all.push(runIncast(sc));
    const wall = median(all.map((r) => r.wallMs));
    const r = all.find((x) => x.wallMs === wall) ?? all[0]!;
    const cpu = Math.min(...all.map((x) => x.cpuMs));
    const s = wall / 1e3;
    // ns-3's figure is for 64:1; a smaller incast is compared with it scaled by its bytes.
    const ns3S = (NS3_RECORDED.wallS * n) / NS3_RECORDED.senders;
    rows.push([
      `${n}:1`,
      fmt(wall, 0),
      all.map((x) => fmt(x.wallMs, 0)).join("/"),
      fmtInt(r.events),
      fmtInt(r.frames),
      fmtInt(r.frames / s),
      fmtInt(r.events / s),
      fmt(r.lastFctNs / 1e3, 1),
      `${r.completed}/${n}`,
      fmt(s / ns3S, 2),
      fmt(cpu, 0),
      fmt(cpu / 1e3 / ns3S, 2),
    ]);
  }
  print();
  print(
    formatTable(
      [
        "incast",
        "wall ms",
        "runs ms",
        "events",
        "frames",
        "frames/s",
        "events/s",
        "last done µs",
        "flows",
        "× ns-3",
        "min CPU ms",
        "CPU × ns-3",
      ],
      rows,
    ),
  );
  print(
    "× ns-3: our median wall time over ns-3's (recorded for 64:1; for other N scaled by N/64); " +
      "wall time includes building the fabric and assembling the report. On a shared machine read the " +
      "CPU columns (the least CPU time of the runs against ns-3's wall time, ns-3 being single-threaded)",
  );
}

/** Ours and HPCC's ns-3 alternating on the same incasts: CPU time and outcome, side by side. */
async function sideBySide(
  dir: string,
  senders: readonly number[],
  runs: number,
  print: (s?: string) => void,
): Promise<void> {
  print(
    "== sim-vs-ns3: N-to-1 incast through one switch, rocelab's simulator and HPCC's ns-3 side by side ==",
  );
  print(describeMachine());
  print(`HPCC ns-3: ${dir}/build/scratch/third, run ${runs} times per incast, alternating with ours`);
  const rows: string[][] = [];
  for (const n of senders) {
    const sc = incastScenario(n);
    const ours: IncastRun[] = [];
    const theirs: Ns3Run[] = [];
    const whole: number[] = [];
    const scratch = mkdtempSync(join(tmpdir(), "rocelab-sim-once-"));
    try {
      // The same run as a process of its own, started cold and measured the way ns-3's is: the command a
      // user types, `rocelab run FILE --runtime sim` (the bundled CLI), reading the scenario from a file
      // and writing its report, as ns-3 reads its config files and writes its FCT file.
      const file = join(scratch, `incast-${n}to1.yaml`);
      writeNewFile(file, stringify(incastScenarioInput(n)));
      const out = join(scratch, "out");
      // --force: every run after the first writes over the previous run's report.
      const cli = [
        entryPath("main/cli.js"),
        "run",
        file,
        "--runtime",
        "sim",
        "--quiet",
        "--force",
        "--out",
        out,
      ];
      for (let i = 0; i < runs; i++) {
        ours.push(runIncast(sc));
        theirs.push(await runNs3Incast(dir, n));
        whole.push((await timeProcess(process.execPath, cli, scratch)).cpuMs);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const cpu = Math.min(...ours.map((r) => r.cpuMs));
    const ns3Cpu = Math.min(...theirs.map((r) => r.cpuMs));
    const o = ours[0]!;
    const t = theirs[0]!;
    rows.push([
      `${n}:1`,
      fmt(cpu, 0),
      fmt(ns3Cpu, 0),
      fmt(cpu / ns3Cpu, 2),
      fmt(Math.min(...whole), 0),
      fmt(Math.min(...whole) / ns3Cpu, 2),
      fmt(median(ours.map((r) => r.wallMs)), 0),
      fmt(median(theirs.map((r) => r.wallMs)), 0),
      `${o.completed}/${t.flows}`,
      `${fmt(o.lastFctNs / 1e3, 1)} / ${fmt(t.lastDoneNs / 1e3, 1)}`,
      `${fmt(o.medianFctNs / 1e3, 1)} / ${fmt(t.medianFctNs / 1e3, 1)}`,
      fmtInt(o.events),
    ]);
  }
  print();
  print(
    formatTable(
      [
        "incast",
        "our CPU ms",
        "ns-3 CPU ms",
        "CPU × ns-3",
        "our process CPU ms",
        "process × ns-3",
        "our wall ms",
        "ns-3 wall ms",
        "flows done",
        "last done µs (ours / ns-3)",
        "median FCT µs (ours / ns-3)",
        "our events",
      ],
      rows,
    ),
  );
  print(
    "CPU: the least of the runs. 'our CPU' is measured in this process, warm (building the fabric, the " +
      "run, the report); 'our process CPU' is the same run as a process of its own, cold (`rocelab run FILE " +
      "--runtime sim`: Node's start-up, loading the bundle, the JIT warming up, writing the report), measured as ns-3's is: its whole process by bash's `time`, " +
      "its start-up and input files included. Both run every flow to completion; ns-3 runs on to its stop time.",
  );
}

if (isMain(import.meta.url)) runAsScript(main);
