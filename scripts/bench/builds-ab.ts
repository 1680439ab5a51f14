// Benchmark: this build against another one (`--base`, the root of a checkout built by `node scripts/setup`,
// e.g. a `git worktree` of the commit before a change), side by side in one run, alternating which goes
// first in each pair so that a machine getting busier or quieter weighs on both alike. What an
// optimisation's commit message quotes. Cases:
//
//   warm   HPCC's 64:1 DCQCN incast (sim-vs-ns3.ts) in a process of its own per build and pair: one warm-up
//          run, then `--runs` runs; the least CPU of those (the simulator's per-frame cost, no start-up).
//   cold   `rocelab run FILE --runtime sim` as a user types it (the bundle, `--scenario`, default the 64:1
//          incast): whole-process wall and CPU (user + sys) by /usr/bin/time.
//   help   `rocelab --help`: the CLI's start-up alone.
//   device a live device process's start (dist/bundle/main/device-main.js) without the supervisor: it
//          loads the whole device program, finds no IPC channel and exits with status 2 (start-up alone).
//   supervisor  a lab supervisor's start (dist/bundle/main/supervisor-main.js) the same way.
//   switch-path the live switch's JavaScript forwarding path (host, clock, timers, switch core) without the
//          kernel, in a process of its own per build and pair (switch-path.ts): the least CPU of `--runs`
//          runs of `--frames` full-size frames.
//
// Prints, per case, both builds' figures, and new / base as the median and the least of the per-pair ratios.
//
//   node dist/tools/bench/builds-ab.js --base DIR [--cases warm,cold] [--pairs 5] [--runs 3] [--scenario FILE]

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { DEVICE_V8_FLAGS } from "../../src/runtime/realtime/v8-flags.js";
import { describeMachine, fmt, formatTable, isMain, median, runAsScript } from "./common.js";
import { switchPathSamples } from "./switch-path.js";

/** The longest a switch-path child may take, ms. */
const CHILD_TIMEOUT_MS = 120_000;

/** One measurement: milliseconds of wall and of CPU. */
interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

type Case = "warm" | "cold" | "help" | "device" | "supervisor" | "switch-path";
const CASES: readonly Case[] = ["warm", "cold", "help", "device", "supervisor", "switch-path"];

/** Root of this checkout (dist/tools/bench/ is three levels below it). */
const HERE = resolve(import.meta.dirname, "..", "..", "..");

/** The child side of `warm`: the incast in this process from the build at `root`; prints the samples. */
async function warmChild(root: string, runs: number): Promise<void> {
  const dist = join(root, "dist");
  const { runScenarioSim } = await import(pathToFileURL(join(dist, "run", "run-sim.js")).href);
  const { incastScenario } = await import(pathToFileURL(join(dist, "tools", "bench", "sim-vs-ns3.js")).href);
  const sc = incastScenario(64);
  const samples: Sample[] = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    runScenarioSim(sc);
    const c = process.cpuUsage(c0);
    if (i > 0) samples.push({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });
  }
  process.stdout.write(`${JSON.stringify(samples)}\n`);
}

/** Runs `args` under /usr/bin/time: wall and CPU of the whole process (which must exit with `status`). */
function timeProcess(args: readonly string[], cwd: string, status = 0): Sample {
  const r = spawnSync("/usr/bin/time", ["-f", "@@ %e %U %S", ...args], { cwd, encoding: "utf8" });
  const m = /@@ ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? "");
  if (r.status !== status || m === null)
    throw new Error(`${args.join(" ")} failed (${r.status}): ${(r.stderr ?? "").slice(-400)}`);
  return { wallMs: Number(m[1]) * 1000, cpuMs: (Number(m[2]) + Number(m[3])) * 1000 };
}

/** One measurement of `c` on the build at `root` (the least CPU of a warm child's runs). */
function measure(
  c: Case,
  root: string,
  opts: { runs: number; scenario: string; out: string; frames: number },
): Sample {
  const cli = join(root, "dist", "bundle", "main", "cli.js");
  switch (c) {
    case "warm":
    case "switch-path": {
      const self = join(HERE, "dist", "tools", "bench", "builds-ab.js");
      const child =
        c === "warm"
          ? ["--warm-child", root]
          : ["--switch-path-child", root, "--frames", String(opts.frames)];
      const r = spawnSync(
        process.execPath,
        [...(c === "warm" ? [] : DEVICE_V8_FLAGS), self, ...child, "--runs", String(opts.runs)],
        {
          cwd: root,
          encoding: "utf8",
        },
      );
      if (r.status !== 0) throw new Error(`${c} run on ${root} failed: ${r.stderr}`);
      const samples = JSON.parse(r.stdout.trim().split("\n").pop()!) as Sample[];
      return samples.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
    }
    case "cold":
      rmSync(opts.out, { recursive: true, force: true });
      return timeProcess(
        [process.execPath, cli, "run", opts.scenario, "--runtime", "sim", "--quiet", "--out", opts.out],
        root,
      );
    case "help":
      return timeProcess([process.execPath, cli, "--help"], root);
    case "device":
      return timeProcess([process.execPath, join(root, "dist", "bundle", "main", "device-main.js")], root, 2);
    case "supervisor":
      return timeProcess(
        [process.execPath, join(root, "dist", "bundle", "main", "supervisor-main.js")],
        root,
        2,
      );
  }
}

const USAGE = `usage: npm run bench -- builds-ab --base DIR [--cases warm,cold] [--pairs 5] [--runs 3] [--scenario FILE]
                                   [--frames 200000]
  this build against the checkout at DIR (built by node scripts/setup), alternating, per case:
  warm, cold, help, device, supervisor, switch-path; docs/performance.md
`;

export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      help: { type: "boolean", short: "h" },
      base: { type: "string" },
      cases: { type: "string", default: "warm,cold" },
      pairs: { type: "string", default: "5" },
      runs: { type: "string", default: "3" },
      scenario: { type: "string" },
      "warm-child": { type: "string" },
      "switch-path-child": { type: "string" },
      frames: { type: "string", default: "200000" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const runs = Number(values.runs);
  const frames = Number(values.frames);
  if (values["warm-child"] !== undefined) {
    await warmChild(values["warm-child"], runs);
    return;
  }
  if (values["switch-path-child"] !== undefined) {
    // A run that never ends (a stalled event loop in the build measured) fails the case instead of hanging it.
    setTimeout(() => {
      process.stderr.write(`switch-path: no result after ${CHILD_TIMEOUT_MS / 1000} s\n`);
      process.exit(1);
    }, CHILD_TIMEOUT_MS).unref();
    const samples = await switchPathSamples(values["switch-path-child"], frames, runs);
    process.stdout.write(`${JSON.stringify(samples)}\n`);
    // The device host's timers of the build measured may still be armed: this process is done.
    process.exit(0);
  }
  if (values.base === undefined) throw new Error("--base DIR: the root of the build to compare against");
  const base = resolve(values.base);
  if (!existsSync(join(base, "dist", "bundle", "main", "cli.js")))
    throw new Error(`${base} has no dist/bundle/main/cli.js: run node scripts/setup there first`);
  const cases = values.cases.split(",").map((c) => {
    if (!CASES.includes(c as Case)) throw new Error(`--cases: ${c} is not one of ${CASES.join(", ")}`);
    return c as Case;
  });
  const pairs = Number(values.pairs);
  const tmp = mkdtempSync(join(tmpdir(), "rocelab-builds-ab-"));
  let scenario = values.scenario === undefined ? "" : resolve(values.scenario);
  if (scenario === "") {
    const { incastScenarioInput } = await import("./sim-vs-ns3.js");
    scenario = join(tmp, "incast-64.yaml");
    writeFileSync(scenario, stringify(incastScenarioInput(64)));
  }
  const opts = { runs, scenario, out: join(tmp, "out"), frames };
  process.stdout.write(`${describeMachine()}\nbase: ${base}\nnew:  ${HERE}\n\n`);
  const rows: string[][] = [];
  try {
    for (const c of cases) {
      const load0 = loadavg()[0]!;
      const got = { base: [] as Sample[], new: [] as Sample[] };
      for (let p = 0; p < pairs; p++) {
        const order: ("base" | "new")[] = p % 2 === 0 ? ["base", "new"] : ["new", "base"];
        for (const which of order) got[which].push(measure(c, which === "base" ? base : HERE, opts));
      }
      const ratios = got.new.map((s, i) => s.cpuMs / got.base[i]!.cpuMs);
      const wallRatios = got.new.map((s, i) => s.wallMs / got.base[i]!.wallMs);
      const cpu = (xs: Sample[]) => xs.map((s) => s.cpuMs);
      const wall = (xs: Sample[]) => xs.map((s) => s.wallMs);
      rows.push([
        c,
        `${fmt(median(cpu(got.base)), 0)} [${fmt(Math.min(...cpu(got.base)), 0)}]`,
        `${fmt(median(cpu(got.new)), 0)} [${fmt(Math.min(...cpu(got.new)), 0)}]`,
        `${fmt(median(ratios), 3)} [${fmt(Math.min(...ratios), 3)}–${fmt(Math.max(...ratios), 3)}]`,
        `${fmt(median(wall(got.base)), 0)} / ${fmt(median(wall(got.new)), 0)}`,
        fmt(median(wallRatios), 3),
        `${fmt(load0, 1)}–${fmt(loadavg()[0]!, 1)}`,
      ]);
      process.stdout.write(`${c}: done (${pairs} pairs)\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(
    `\n${formatTable(
      [
        "case",
        "base CPU ms, median [least]",
        "new CPU ms",
        "new/base CPU, median [range]",
        "wall ms base / new",
        "wall ratio",
        "load",
      ],
      rows,
    )}\n`,
  );
}

if (isMain(import.meta.url)) runAsScript(main);
