// HPCC's ns-3 RDMA simulator (github.com/alibaba-edu/High-Precision-Congestion-Control, simulation/, ns-3.17)
// run beside ours: this module writes a run in HPCC's input formats (the topology, flow and trace files and
// the config.txt its run.py writes for `--cc dcqcn --bw 100`, with the buffer size and ECN switch of the
// case), runs a build the user made (`scratch/third`), and reads its outputs (hpcc-ns3-output.ts: the FCT
// and PFC files, the packet trace). Nothing of HPCC's is part of rocelab: the user passes the
// `simulation/` directory of their own build (`--ns3 DIR`).
//
// Formats, from HPCC's simulation/scratch/third.cc: topology "nodes switches links", the switch ids, then
// "src dst rate delay error-rate"; flows "count", then "src dst priority dport bytes start-seconds"; the FCT
// output "sip dip sport dport bytes start-ns fct-ns standalone-fct-ns" per completed flow.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import {
  type Ns3FlowResult,
  type Ns3TraceSummary,
  parseNs3Fct,
  parseNs3Flows,
  parseNs3Pfc,
  readNs3TraceFile,
} from "./hpcc-ns3-output.js";

export { parseNs3Fct } from "./hpcc-ns3-output.js";

import { OutputDir } from "../../src/runtime/realtime/safe-files.js";
import { type CcMode, ns3CcConfig } from "./ns3-cc.js";

export interface Ns3Run {
  readonly wallMs: number;
  /** The simulator process's user + system CPU time (bash's `time`), ms. */
  readonly cpuMs: number;
  readonly flows: number;
  /** Latest start + FCT over the flows, ns. */
  readonly lastDoneNs: number;
  readonly medianFctNs: number;
  /** Lines of its PFC output file (one per pause or resume a switch or NIC sent). */
  readonly pfcEvents: number;
}

/** The binary of a built HPCC simulation directory, or an error naming what is missing. */
export function ns3Binary(simulationDir: string): string {
  const bin = join(simulationDir, "build", "scratch", "third");
  if (!existsSync(bin)) {
    throw new Error(
      `--ns3 ${simulationDir}: no ${bin}; pass the simulation/ directory of a built HPCC ns-3 ` +
        "(./waf configure -d optimized && ./waf build, with Python 2)",
    );
  }
  return bin;
}

/** A flow in HPCC's flow file: node ids, bytes and its start. */
export interface Ns3Flow {
  readonly src: number;
  readonly dst: number;
  readonly bytes: number;
  readonly startNs: number;
}

/** A run of HPCC's simulator: the topology (100 Gb/s, 1 µs links), the flows and the switch settings. */
export interface Ns3Input {
  readonly nodes: number;
  readonly switches: readonly number[];
  readonly links: readonly (readonly [number, number])[];
  /** In order of start. */
  readonly flows: readonly Ns3Flow[];
  /** BUFFER_SIZE: MiB (third.cc multiplies by 1024 × 1024). */
  readonly bufferMiB: number;
  /** run.py's `--cc` (ns3-cc.ts); "off": DCQCN with ENABLE_QCN 0 (no marks, so every QP at line rate). */
  readonly cc: CcMode;
  /** Nodes whose ports write every packet event to the trace (ENABLE_TRACE 1); none: no trace. */
  readonly trace: readonly number[];
  readonly stopS: number;
}

/** run.py's config for `--cc X --bw 100`, with our file names and buffer. */
function config(dir: string, input: Ns3Input): string {
  const f = (n: string) => join(dir, n);
  return [
    // CC_MODE, its parameters and the ECN thresholds (KB per link rate) as run.py writes them (ns3-cc.ts).
    ...ns3CcConfig(input.cc),
    "USE_DYNAMIC_PFC_THRESHOLD 1",
    "PACKET_PAYLOAD_SIZE 1000",
    `TOPOLOGY_FILE ${f("topology.txt")}`,
    `FLOW_FILE ${f("flow.txt")}`,
    `TRACE_FILE ${f("trace.txt")}`,
    `TRACE_OUTPUT_FILE ${f("mix.tr")}`,
    `FCT_OUTPUT_FILE ${f("fct.txt")}`,
    `PFC_OUTPUT_FILE ${f("pfc.txt")}`,
    `SIMULATOR_STOP_TIME ${input.stopS}`,
    "ALPHA_RESUME_INTERVAL 1",
    "RATE_DECREASE_INTERVAL 4",
    "CLAMP_TARGET_RATE 0",
    "RP_TIMER 300",
    "FAST_RECOVERY_TIMES 1",
    "MIN_RATE 1000Mb/s",
    "ERROR_RATE_PER_LINK 0.0000",
    "L2_CHUNK_SIZE 4000",
    "L2_ACK_INTERVAL 1",
    "L2_BACK_TO_ZERO 0",
    "GLOBAL_T 1",
    "U_TARGET 0.95",
    "MI_THRESH 0",
    "MULTI_RATE 0",
    "SAMPLE_FEEDBACK 0",
    "PINT_LOG_BASE 1.01",
    "PINT_PROB 1.0",
    "RATE_BOUND 1",
    "LINK_DOWN 0 0 0",
    `ENABLE_TRACE ${input.trace.length > 0 ? 1 : 0}`,
    `BUFFER_SIZE ${input.bufferMiB}`,
    `QLEN_MON_FILE ${f("qlen.txt")}`,
    // The queue monitor is scheduled past the stop time: it never runs.
    "QLEN_MON_START 2000000000",
    "QLEN_MON_END 3000000000",
    "",
  ].join("\n");
}

/** Writes a run in HPCC's formats into `dir` (never through a link); returns the config file's path. */
export function writeNs3Input(dir: string, input: Ns3Input): string {
  const out = OutputDir.existing(dir);
  try {
    const links = input.links.map(([a, b]) => `${a} ${b} 100Gbps 0.001ms 0`);
    const head = `${input.nodes} ${input.switches.length} ${links.length}\n${input.switches.join(" ")}`;
    out.write("topology.txt", `${head}\n${links.join("\n")}\n`);
    // Start times in seconds, to the nanosecond (a flow at 0 stays "0", as HPCC's own files write it).
    const at = (ns: number): string => (ns === 0 ? "0" : (ns / 1e9).toFixed(9));
    const flows = input.flows.map((f) => `${f.src} ${f.dst} 3 100 ${f.bytes} ${at(f.startNs)}`);
    out.write("flow.txt", `${flows.length}\n${flows.join("\n")}\n`);
    out.write("trace.txt", `${input.trace.length}\n${input.trace.join(" ")}\n`);
    return out.write("config.txt", config(dir, input));
  } finally {
    out.close();
  }
}

/** The N-to-1 incast: node 0 the switch, 1 the receiver, 2.. the senders, every flow at t = 0. */
export function ns3Incast(
  senders: number,
  bytes: number,
  opts: Partial<Pick<Ns3Input, "bufferMiB" | "cc" | "trace">> = {},
): Ns3Input {
  // Twice the transfer at line rate, as our scenario's duration; every flow is done long before.
  const stopS = Math.max(0.002, (2 * senders * bytes * 8) / 100e9 + 0.0002);
  return {
    nodes: senders + 2,
    switches: [0],
    links: Array.from({ length: senders + 1 }, (_, i) => [0, i + 1] as const),
    flows: Array.from({ length: senders }, (_, i) => ({ src: i + 2, dst: 1, bytes, startNs: 0 })),
    bufferMiB: opts.bufferMiB ?? 32,
    cc: opts.cc ?? "dcqcn",
    trace: opts.trace ?? [],
    stopS: Number(stopS.toFixed(6)),
  };
}

/** Writes the N-to-1 incast in HPCC's formats into `dir` (32 MiB, DCQCN, no trace). */
export function writeNs3Incast(dir: string, senders: number, bytes: number): string {
  return writeNs3Input(dir, ns3Incast(senders, bytes));
}

/**
 * Runs a command to its end and measures it as a whole process: wall time, and user + system CPU time
 * from bash's `time` keyword (the child's own rusage). Its output goes to `dir`/process.log; a non-zero
 * exit throws with that log's tail. The arguments are passed to bash as arguments, never parsed.
 */
export async function timeProcess(
  cmd: string,
  args: readonly string[],
  dir: string,
  env: Record<string, string> = {},
): Promise<{ wallMs: number; cpuMs: number }> {
  const timeFile = join(dir, "time.txt");
  const log = join(dir, "process.log");
  const started = performance.now();
  const run = await execa(
    "bash",
    [
      "-c",
      'TIMEFORMAT="%3U %3S"; t=$1; l=$2; shift 2; { time "$@" >"$l" 2>&1; } 2> "$t"',
      "timed",
      timeFile,
      log,
      cmd,
      ...args,
    ],
    { env, reject: false },
  );
  const wallMs = performance.now() - started;
  if (run.exitCode !== 0) {
    const tail = readFileSync(log, "utf8").trim().split("\n").slice(-5).join("\n");
    throw new Error(`${cmd} exited with status ${run.exitCode}:\n${tail}`);
  }
  const [user, sys] = readFileSync(timeFile, "utf8").trim().split(/\s+/).map(Number);
  return { wallMs, cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000 };
}

/** Runs HPCC's simulator once on the N-to-1 incast and reads its outputs. */
export async function runNs3Incast(
  simulationDir: string,
  senders: number,
  bytes = 1_000_000,
): Promise<Ns3Run> {
  const bin = ns3Binary(simulationDir);
  const dir = mkdtempSync(join(tmpdir(), "rocelab-ns3-"));
  try {
    const cfg = writeNs3Incast(dir, senders, bytes);
    const { wallMs, cpuMs } = await timeProcess(bin, [cfg], dir, {
      LD_LIBRARY_PATH: join(simulationDir, "build"),
    });
    const pfc = existsSync(join(dir, "pfc.txt"))
      ? readFileSync(join(dir, "pfc.txt"), "utf8")
          .split("\n")
          .filter((l) => l.trim() !== "").length
      : 0;
    return {
      wallMs,
      cpuMs,
      ...parseNs3Fct(readFileSync(join(dir, "fct.txt"), "utf8")),
      pfcEvents: pfc,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What one run of HPCC's simulator gave: every completed flow, the pauses, and what its trace shows. */
export interface Ns3Outcome {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly flows: readonly Ns3FlowResult[];
  /** PFC pause frames received anywhere (each XOFF a switch asserted, once: HPCC never refreshes). */
  readonly pauses: number;
  readonly resumes: number;
  /** Pauses of at least 20, 40 and 80 µs, each until its resume (hpcc-ns3-output.ts LONG_PAUSE_NS). */
  readonly longPauses?: readonly number[];
  /** Packets its switches dropped (a "Drop:" line each on its standard output: only a full headroom). */
  readonly drops: number;
  /** From the trace of `input.trace`'s switches; null without a trace. */
  readonly trace: Ns3TraceSummary | null;
}

/**
 * Runs HPCC's simulator on `input` with RNG run `seed` (ns-3's `RngRun` global value, through the
 * NS_GLOBAL_VALUE environment variable: the ECN marking draws change with it) and reads its outputs.
 */
export async function runNs3(simulationDir: string, input: Ns3Input, seed = 1): Promise<Ns3Outcome> {
  const bin = ns3Binary(simulationDir);
  const dir = mkdtempSync(join(tmpdir(), "rocelab-ns3-"));
  try {
    const cfg = writeNs3Input(dir, input);
    const { wallMs, cpuMs } = await timeProcess(bin, [cfg], dir, {
      LD_LIBRARY_PATH: join(simulationDir, "build"),
      NS_GLOBAL_VALUE: `RngRun=${seed}`,
    });
    const read = (n: string): string => (existsSync(join(dir, n)) ? readFileSync(join(dir, n), "utf8") : "");
    return {
      wallMs,
      cpuMs,
      flows: parseNs3Flows(read("fct.txt")),
      ...parseNs3Pfc(read("pfc.txt")),
      drops: read("process.log")
        .split("\n")
        .filter((l) => l.includes(" Drop: ")).length,
      trace: input.trace.length > 0 ? readNs3TraceFile(join(dir, "mix.tr")) : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
