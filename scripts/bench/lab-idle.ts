// What an idle lab costs the machine: CPU and memory of every process of a freshly brought-up lab.
//
//   npm run bench -- lab-idle [--topology FILE] [--settle S] [--seconds S] [--clock synced|free]
//
// Brings a lab up (`rocelab up`, its own name), waits --settle seconds, then measures over --seconds:
// CPU from /proc/PID/stat (utime + stime, as a share of one core), and memory from /proc/PID/smaps_rollup.
// Memory is reported two ways: RSS, which counts the pages every process shares (Node's own code, the
// libraries) once per process, and PSS (proportional set size), which divides each shared page among the
// processes that map it, so the sum over the lab is what the lab really occupies. The lab is taken down
// afterwards, also when the measurement fails.

import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { entryPath } from "../../src/lab/live/paths.js";
import { findLabProcesses } from "../../src/lab/live/provision.js";
import {
  type BenchMain,
  describeMachine,
  fmt,
  formatTable,
  isMain,
  readProcessCpu,
  runAsScript,
} from "./common.js";

const LAB = "idleb";

interface Memory {
  readonly rssKiB: number;
  readonly pssKiB: number;
  readonly privateKiB: number;
}

/** RSS, PSS and private (clean + dirty) memory of a process, KiB (null once it is gone). */
export function readProcessMemory(pid: number): Memory | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  } catch {
    return null;
  }
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? 0);
  return {
    rssKiB: field("Rss"),
    pssKiB: field("Pss"),
    privateKiB: field("Private_Clean") + field("Private_Dirty"),
  };
}

/** The process's name as the lab sets it (`rocelab-LAB-NODE`). */
function processTitle(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? String(pid);
  } catch {
    return String(pid);
  }
}

async function rocelab(args: readonly string[]): Promise<void> {
  await execa(process.execPath, [entryPath("main/cli.js"), ...args], { stdio: "inherit" });
}

export const main: BenchMain = async (argv) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      topology: { type: "string" },
      settle: { type: "string", default: "5" },
      seconds: { type: "string", default: "20" },
      clock: { type: "string", default: "synced" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: npm run bench -- lab-idle [--topology FILE] [--settle S] [--seconds S] [--clock synced|free]\n" +
        "Brings up a lab (root), lets it settle, and prints each process's idle CPU and memory (RSS and PSS).\n",
    );
    return;
  }
  const settle = Number(values.settle);
  const seconds = Number(values.seconds);
  if (!(settle >= 0) || !(seconds > 0)) throw new Error("--settle takes seconds >= 0 and --seconds > 0");
  const upArgs = ["up", "--name", LAB, "--clock", values.clock];
  if (values.topology) upArgs.push(values.topology);
  await rocelab(upArgs);
  try {
    await sleep(settle * 1000);
    const pids = findLabProcesses(LAB).map((p) => p.pid);
    const before = new Map(pids.map((pid) => [pid, readProcessCpu(pid)]));
    await sleep(seconds * 1000);
    const rows: string[][] = [];
    let cpuSum = 0;
    let rssSum = 0;
    let pssSum = 0;
    for (const pid of pids) {
      const a = before.get(pid);
      const b = readProcessCpu(pid);
      const mem = readProcessMemory(pid);
      if (!a || !b || !mem) continue;
      const cpu = (b.user + b.system - a.user - a.system) / seconds;
      cpuSum += cpu;
      rssSum += mem.rssKiB;
      pssSum += mem.pssKiB;
      rows.push([
        processTitle(pid),
        `${fmt(cpu * 100, 2)} %`,
        fmt(mem.rssKiB / 1024, 0),
        fmt(mem.pssKiB / 1024, 0),
        fmt(mem.privateKiB / 1024, 0),
      ]);
    }
    rows.push(["all", `${fmt(cpuSum * 100, 2)} %`, fmt(rssSum / 1024, 0), fmt(pssSum / 1024, 0), ""]);
    process.stdout.write(
      `lab-idle: ${values.topology ?? "the built-in fabric"}, --clock ${values.clock}, ${pids.length} processes, ` +
        `${settle} s after up, CPU over ${seconds} s\n${describeMachine()}\n\n` +
        `${formatTable(["process", "cpu (one core)", "RSS MiB", "PSS MiB", "private MiB"], rows)}\n\n` +
        "RSS counts the pages the processes share (Node's code) once per process; PSS shares them out, so\n" +
        "the PSS sum is the memory the lab occupies.\n",
    );
  } finally {
    await rocelab(["down", "--name", LAB]);
  }
};

if (isMain(import.meta.url)) runAsScript(main);
