// The benchmark launcher behind `npm run bench`: lists the benchmarks and runs the one named on the command
// line with the rest of the arguments, or every one of them in turn when none is named.
//
//   npm run bench                                  every benchmark, default options
//   npm run bench -- switch-forwarding --seconds 3 one benchmark, its own options
//   npm run bench -- --list                        what there is
//
// Benchmarks are scripts that print tables and ratios measured in one run; they pass or fail on nothing.

import type { BenchMain } from "./common.js";
import { isMain, runAsScript } from "./common.js";

/** Every benchmark: its module (which exports `main`) and what it measures. */
export const BENCHMARKS = {
  "sim-throughput": {
    module: "./sim-throughput.js",
    summary:
      "virtual-time runtime: packets/s of a 100 MB RDMA WRITE (payload check on/off) and the incast scenario",
  },
  "sim-vs-ns3": {
    module: "./sim-vs-ns3.js",
    summary:
      "the simulator on HPCC's ns-3 incast (64:1 and 16:1, one switch): wall time, events, ratio to ns-3",
  },
  "sim-parallel": {
    module: "./sim-parallel.js",
    summary:
      "the simulator on 1 worker against 2: the k = 8 fat tree and the 64:1 incast, ratio and same report",
  },
  "builds-ab": {
    module: "./builds-ab.js",
    summary:
      "this build against another (--base DIR) side by side: the 64:1 incast warm and cold, start-up, ratio",
  },
  fidelity: {
    module: "./fidelity.js",
    summary: "the same scenarios in the simulator and on the live lab, side by side (root)",
  },
  "switch-forwarding": {
    module: "./switch-forwarding.js",
    summary:
      "one live switch process vs kernel forwarding on the same veths: frames/s, CPU, event-loop lag (root)",
  },
  "lab-idle": {
    module: "./lab-idle.js",
    summary: "an idle lab's processes: CPU share and memory (RSS and PSS) after bring-up (root)",
  },
  soak: {
    module: "./soak.js",
    summary:
      "a live lab under traffic and chaos for --minutes: RSS, CPU, fds, lag, lateness over time (root)",
  },
  "metrics-scrape": {
    module: "./metrics-scrape.js",
    summary: "scrape loops against a live lab's /metrics: the supervisor's CPU share, scrapes served (root)",
  },
  "control-flood": {
    module: "./control-flood.js",
    summary:
      "a device's control port under long lines from clients without the token: device CPU, memory, how long they last",
  },
} as const;

export type BenchmarkName = keyof typeof BENCHMARKS;

function isBenchmark(name: string | undefined): name is BenchmarkName {
  return name !== undefined && Object.hasOwn(BENCHMARKS, name);
}

function listing(): string {
  const width = Math.max(...Object.keys(BENCHMARKS).map((n) => n.length));
  return Object.entries(BENCHMARKS)
    .map(([name, b]) => `  ${name.padEnd(width)}  ${b.summary}`)
    .join("\n");
}

async function runOne(name: BenchmarkName, argv: readonly string[]): Promise<void> {
  const mod = (await import(BENCHMARKS[name].module)) as { main: BenchMain };
  await mod.main(argv);
}

/** Runs the named benchmark, or all of them. */
export async function main(argv: readonly string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === "--list" || first === "--help" || first === "-h") {
    process.stdout.write(
      `usage: npm run bench -- [BENCHMARK [OPTIONS]]   (none named: all of them)\n\n${listing()}\n\n` +
        "Each benchmark takes --help for its own options.\n",
    );
    return;
  }
  if (isBenchmark(first)) {
    await runOne(first, rest);
    return;
  }
  if (first !== undefined) {
    throw new Error(`unknown benchmark "${first}"; there are:\n${listing()}`);
  }
  process.stdout.write(`benchmarks:\n${listing()}\n\n`);
  for (const name of Object.keys(BENCHMARKS) as BenchmarkName[]) {
    await runOne(name, []);
    process.stdout.write("\n");
  }
}

if (isMain(import.meta.url)) runAsScript(main);
