// What every benchmark shares: a line describing the machine, plain-text tables, CPU accounting from /proc,
// and the "run me when I am the entry point" check. Benchmarks are scripts that print what they measured;
// nothing here passes or fails on a number.

import { readdirSync, readFileSync, realpathSync } from "node:fs";
import os from "node:os";
import { pathToFileURL } from "node:url";

/** Kernel clock ticks per second for /proc/stat and /proc/PID/stat (USER_HZ, 100 on every Linux we target). */
export const CLOCK_TICKS = 100;

/** A benchmark: parses its own arguments, prints its tables. */
export type BenchMain = (argv: readonly string[]) => Promise<void>;

/** True when the module at `moduleUrl` is the script node was started with (not imported by the launcher). */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === moduleUrl;
  } catch {
    return false;
  }
}

/** Runs `main` as a script: errors go to stderr with exit code 1. */
export function runAsScript(main: BenchMain): void {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

/** The machine a result belongs to: CPU model and count, kernel, Node, memory, and the load right now. */
export function describeMachine(): string {
  let model = os.cpus()[0]?.model ?? "unknown CPU";
  let cpus = os.cpus().length;
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const models = [...info.matchAll(/^model name\s*:\s*(.+)$/gm)].map((m) => m[1]!.trim());
    if (models.length > 0) {
      model = models[0]!;
      cpus = models.length;
    }
  } catch {}
  const memGiB = (os.totalmem() / 2 ** 30).toFixed(1);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
  return (
    `machine: ${cpus} × ${model}, Linux ${os.release()}, Node ${process.version}, ` +
    `${memGiB} GiB RAM; load average ${load}`
  );
}

/** Renders rows under a header, numbers right-aligned, with a rule under the header. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** 12345.6 -> "12,346"; NaN -> "-". */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-";
}

/** A number with `digits` decimals; NaN -> "-". */
export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "-";
}

/** System-wide CPU time from the first line of /proc/stat, in ticks. */
export interface SystemCpu {
  readonly user: number;
  readonly nice: number;
  readonly system: number;
  readonly idle: number;
  readonly iowait: number;
  readonly irq: number;
  readonly softirq: number;
  readonly steal: number;
}

export function readSystemCpu(): SystemCpu {
  const first = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const v = first.trim().split(/\s+/).slice(1).map(Number);
  return {
    user: v[0] ?? 0,
    nice: v[1] ?? 0,
    system: v[2] ?? 0,
    idle: v[3] ?? 0,
    iowait: v[4] ?? 0,
    irq: v[5] ?? 0,
    softirq: v[6] ?? 0,
    steal: v[7] ?? 0,
  };
}

/** CPU used between two /proc/stat readings, in CPU-seconds, split the way the kernel accounts it. */
export interface SystemCpuDelta {
  /** user + nice. */
  readonly user: number;
  readonly system: number;
  /** Interrupt and softirq time (the kernel's packet processing lands here when IRQ time is accounted). */
  readonly softirq: number;
  readonly irq: number;
  /** Everything but idle and iowait. */
  readonly busy: number;
}

export function systemCpuDelta(a: SystemCpu, b: SystemCpu): SystemCpuDelta {
  const d = (k: keyof SystemCpu): number => (b[k] - a[k]) / CLOCK_TICKS;
  const user = d("user") + d("nice");
  return {
    user,
    system: d("system"),
    softirq: d("softirq"),
    irq: d("irq"),
    busy: user + d("system") + d("irq") + d("softirq") + d("steal"),
  };
}

/** User and system CPU seconds a process has used so far, from /proc/PID/stat (null once it is gone). */
export function readProcessCpu(pid: number): { user: number; system: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  return { user: Number(rest[11]) / CLOCK_TICKS, system: Number(rest[12]) / CLOCK_TICKS };
}

/** Resident set size of a process, bytes, from /proc/PID/status (null once it is gone). */
export function readProcessRss(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Parses "10000,25k,1.5M,max" into frame rates; "max" (as fast as the sender can) is 0. */
export function parseRates(text: string): number[] {
  return text.split(",").map((part) => {
    const s = part.trim().toLowerCase();
    if (s === "max") return 0;
    const m = /^(\d+(?:\.\d+)?)([km]?)$/.exec(s);
    if (!m) throw new Error(`"${part}" is not a frame rate (for example 25000, 25k, 1.5M or max)`);
    const value = Number(m[1]) * (m[2] === "k" ? 1e3 : m[2] === "m" ? 1e6 : 1);
    if (!(value >= 1)) throw new Error(`frame rate ${part} must be at least 1 frame/s`);
    return Math.round(value);
  });
}

/** Median of a list (NaN when empty). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Pids of the processes whose name (/proc/PID/comm) starts with `prefix`, e.g. the ksoftirqd threads. */
export function findProcessesByName(prefix: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").startsWith(prefix)) out.push(Number(entry));
    } catch {}
  }
  return out;
}
