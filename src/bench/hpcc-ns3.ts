// HPCC's ns-3 RDMA simulator (github.com/alibaba-edu/High-Precision-Congestion-Control, simulation/, ns-3.17)
// run beside ours on the same N-to-1 incast: this module writes the scenario in HPCC's input formats (the
// topology, flow and trace files and the config.txt its run.py writes for `--cc dcqcn --bw 100`), runs a
// build the user made (`scratch/third`), and reads its FCT file. Nothing of HPCC's is part of rocelab: the
// user passes the `simulation/` directory of their own build (`--ns3 DIR`).
//
// Formats, from HPCC's simulation/scratch/third.cc: topology "nodes switches links", the switch ids, then
// "src dst rate delay error-rate"; flows "count", then "src dst priority dport bytes start-seconds"; the FCT
// output "sip dip sport dport bytes start-ns fct-ns standalone-fct-ns" per completed flow.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { OutputDir } from "../runtime/live/safe-files.js";
import { median } from "./common.js";

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

/** run.py's config for DCQCN at 100 Gb/s (its `--cc dcqcn --bw 100` branch), with our file names. */
function config(dir: string, stopS: number): string {
  const f = (n: string) => join(dir, n);
  return [
    "ENABLE_QCN 1",
    "USE_DYNAMIC_PFC_THRESHOLD 1",
    "PACKET_PAYLOAD_SIZE 1000",
    `TOPOLOGY_FILE ${f("topology.txt")}`,
    `FLOW_FILE ${f("flow.txt")}`,
    `TRACE_FILE ${f("trace.txt")}`,
    `TRACE_OUTPUT_FILE ${f("mix.tr")}`,
    `FCT_OUTPUT_FILE ${f("fct.txt")}`,
    `PFC_OUTPUT_FILE ${f("pfc.txt")}`,
    `SIMULATOR_STOP_TIME ${stopS}`,
    "CC_MODE 1",
    "ALPHA_RESUME_INTERVAL 1",
    "RATE_DECREASE_INTERVAL 4",
    "CLAMP_TARGET_RATE 0",
    "RP_TIMER 300",
    "EWMA_GAIN 0.00390625",
    "FAST_RECOVERY_TIMES 1",
    "RATE_AI 20Mb/s",
    "RATE_HAI 200Mb/s",
    "MIN_RATE 1000Mb/s",
    "DCTCP_RATE_AI 1000Mb/s",
    "ERROR_RATE_PER_LINK 0.0000",
    "L2_CHUNK_SIZE 4000",
    "L2_ACK_INTERVAL 1",
    "L2_BACK_TO_ZERO 0",
    "HAS_WIN 0",
    "GLOBAL_T 1",
    "VAR_WIN 0",
    "FAST_REACT 0",
    "U_TARGET 0.95",
    "MI_THRESH 0",
    "INT_MULTI 1",
    "MULTI_RATE 0",
    "SAMPLE_FEEDBACK 0",
    "PINT_LOG_BASE 1.01",
    "PINT_PROB 1.0",
    "RATE_BOUND 1",
    "ACK_HIGH_PRIO 1",
    "LINK_DOWN 0 0 0",
    "ENABLE_TRACE 0",
    // ECN thresholds in KB (1000 B) per link rate: 400 KB / 1600 KB / 20 % at 100 Gb/s.
    "KMAX_MAP 2 100000000000 1600 400000000000 6400",
    "KMIN_MAP 2 100000000000 400 400000000000 1600",
    "PMAX_MAP 2 100000000000 0.20 400000000000 0.20",
    "BUFFER_SIZE 32",
    `QLEN_MON_FILE ${f("qlen.txt")}`,
    // The queue monitor is scheduled past the stop time: it never runs.
    "QLEN_MON_START 2000000000",
    "QLEN_MON_END 3000000000",
    "",
  ].join("\n");
}

/** Writes the N-to-1 incast in HPCC's formats into `dir`: node 0 the switch, 1 the receiver, 2.. senders. */
export function writeNs3Incast(dir: string, senders: number, bytes: number): string {
  const out = OutputDir.existing(dir);
  try {
    const links = Array.from({ length: senders + 1 }, (_, i) => `0 ${i + 1} 100Gbps 0.001ms 0`);
    out.write("topology.txt", `${senders + 2} 1 ${senders + 1}\n0\n${links.join("\n")}\n`);
    const flows = Array.from({ length: senders }, (_, i) => `${i + 2} 1 3 100 ${bytes} 0`);
    out.write("flow.txt", `${senders}\n${flows.join("\n")}\n`);
    out.write("trace.txt", "1\n0\n");
    // Twice the transfer at line rate, as our scenario's duration; every flow is done long before.
    const stopS = Math.max(0.002, (2 * senders * bytes * 8) / 100e9 + 0.0002);
    return out.write("config.txt", config(dir, Number(stopS.toFixed(6))));
  } finally {
    out.close();
  }
}

/**
 * HPCC's FCT output: one line per completed flow, "sip dip sport dport bytes start-ns fct-ns standalone-ns",
 * the addresses in hex (0b000201).
 */
export function parseNs3Fct(text: string): Pick<Ns3Run, "flows" | "lastDoneNs" | "medianFctNs"> {
  const rows = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      const f = l.trim().split(/\s+/);
      const r = f.map((x, j) => (j < 2 ? Number.parseInt(x, 16) : Number(x)));
      if (r.length < 8 || r.some((x) => !Number.isFinite(x)))
        throw new Error(`HPCC FCT output line ${i + 1}: expected 2 hex addresses and 6 numbers, got "${l}"`);
      return r;
    });
  return {
    flows: rows.length,
    lastDoneNs: rows.reduce((m, r) => Math.max(m, r[5]! + r[6]!), 0),
    medianFctNs: rows.length === 0 ? 0 : median(rows.map((r) => r[6]!)),
  };
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
