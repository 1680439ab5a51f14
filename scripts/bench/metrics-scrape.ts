// What scraping a live lab's /metrics costs its supervisor: a lab of the built-in topology, N scrape loops
// hitting /metrics back to back for S seconds, the supervisor's CPU share over them (from /proc) and the
// scrapes served. It drives the CLI of the build it belongs to (dist/bundle/main/cli.js), so the same script
// measures an older build for the before/after: node OLD/dist/tools/bench/metrics-scrape.js. Needs root.
//
//   node dist/tools/bench/metrics-scrape.js [--loops 0,4] [--seconds 20] [--port 9499] [--interval-ms 200]
// (--interval-ms: each loop waits that long between scrapes — 4 loops at 200 ms ask 20 scrapes/s; 0: back
// to back.)

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { distPath } from "../../src/lab/live/paths.js";
import {
  type BenchMain,
  describeMachine,
  fmt,
  formatTable,
  isMain,
  readProcessCpu,
  runAsScript,
} from "./common.js";

const LAB = "benchscrape";
const RUN_DIR = process.env.ROCELAB_RUN_DIR ?? "/run/rocelab";

function cli(args: readonly string[]) {
  return execa(process.execPath, [join(distPath("bundle"), "main", "cli.js"), ...args], { reject: false });
}

/** `loops` scrapers for `seconds`: the supervisor's CPU share and the scrapes answered. */
async function measure(loops: number, seconds: number, port: number, intervalMs: number): Promise<string[]> {
  const up = await cli(["up", "--name", LAB, "--metrics-port", String(port)]);
  if (up.exitCode !== 0) throw new Error(`rocelab up failed: ${up.stderr}`);
  try {
    const pid = (
      JSON.parse(readFileSync(join(RUN_DIR, LAB, "state.json"), "utf8")) as { supervisorPid: number }
    ).supervisorPid;
    const url = `http://127.0.0.1:${port}/metrics`;
    // Let the bring-up settle before measuring.
    await new Promise((r) => setTimeout(r, 3000));
    const cpu0 = readProcessCpu(pid)!;
    const started = performance.now();
    const until = started + seconds * 1000;
    let scrapes = 0;
    let bytes = 0;
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (performance.now() < until) {
          const body = await (await fetch(url)).text();
          scrapes++;
          bytes = body.length;
          if (intervalMs > 0) await new Promise((r) => setTimeout(r, intervalMs));
        }
      }),
    );
    if (loops === 0) await new Promise((r) => setTimeout(r, seconds * 1000));
    const wall = (performance.now() - started) / 1000;
    const cpu1 = readProcessCpu(pid)!;
    const share = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / wall;
    return [String(loops), fmt(scrapes / wall, 1), fmt(bytes / 1024, 0), fmt(share * 100, 1)];
  } finally {
    await cli(["down", "--name", LAB]);
  }
}

const USAGE = `usage: npm run bench -- metrics-scrape [--loops 0,4] [--seconds 20] [--port 9499] [--interval-ms 200]
  a live lab's supervisor CPU while N loops scrape /metrics (root); docs/performance.md
`;

export const main: BenchMain = async (argv) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      help: { type: "boolean", short: "h" },
      loops: { type: "string", default: "0,4" },
      seconds: { type: "string", default: "20" },
      port: { type: "string", default: "9499" },
      "interval-ms": { type: "string", default: "200" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (process.getuid?.() !== 0) throw new Error("metrics-scrape brings up a live lab: run it as root");
  process.stdout.write(
    `metrics-scrape: scrape loops against a lab's /metrics, ${values["interval-ms"]} ms between a loop's scrapes\n${describeMachine()}\n`,
  );
  const rows: string[][] = [];
  for (const loops of values.loops.split(",").map(Number))
    rows.push(
      await measure(loops, Number(values.seconds), Number(values.port), Number(values["interval-ms"])),
    );
  process.stdout.write(
    `${formatTable(["scrape loops", "scrapes/s", "exposition KiB", "supervisor CPU %"], rows)}\n`,
  );
};

if (isMain(import.meta.url)) runAsScript(main);
