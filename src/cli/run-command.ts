// `rocelab run SCENARIO --runtime sim|live --out DIR`: run a scenario and write its report.

import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { lintConfig, resolveConfig, Severity } from "../lab/lint/lint.js";
import { DEFAULT_CLOCK_MODE } from "../lab/live/clock-plan.js";
import { runScenarioLive } from "../lab/live/run-live.js";
import { formatSummary, type Report } from "../lab/report/report.js";
import { runScenarioSim } from "../lab/run-sim.js";
import { loadScenario } from "../lab/scenario.js";
import { formatDuration } from "../lab/units.js";
import { action, clockOption, UsageError } from "./errors.js";
import { DEFAULT_DILATION } from "./lab-commands.js";
import { printWarnings } from "./topology-command.js";

interface RunOptions {
  readonly runtime: string;
  readonly out?: string;
  readonly seed?: number;
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly dilation: string;
  readonly clock: string;
}

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .argument("<scenario>", "scenario YAML (see docs/configuration.md)")
    .description("run a scenario and write report.json, CSV time series and events.jsonl")
    .option(
      "--runtime <runtime>",
      "sim (virtual time, deterministic) or live (namespaces and processes)",
      "sim",
    )
    .option("--out <dir>", "where to write the report (default: out/<scenario name>)")
    .option("--seed <n>", "override the scenario's seed", (v) => Number.parseInt(v, 10))
    .option(
      "--dilation <n>",
      "live runtime: emulated time runs N times slower than real time",
      String(DEFAULT_DILATION),
    )
    .option(
      "--clock <mode>",
      "live runtime: synced (devices wait for their neighbours: a busy machine slows the run instead of changing it) or free",
      DEFAULT_CLOCK_MODE,
    )
    .option("--json", "print the report summary as JSON instead of the one-screen text")
    .option("--quiet", "no progress lines")
    .action(
      action(async (file: string, opts: RunOptions) => {
        let sc = loadScenario(file);
        const machine =
          opts.runtime === "live"
            ? { dilation: Number(opts.dilation), cpus: availableParallelism() }
            : undefined;
        printWarnings(
          lintConfig(resolveConfig(sc.topology, sc.overrides, machine)).filter(
            (f) => f.severity !== Severity.Error,
          ),
        );
        if (opts.seed !== undefined) {
          if (!Number.isInteger(opts.seed) || opts.seed < 0)
            throw new UsageError("--seed takes a non-negative integer");
          sc = { ...sc, seed: opts.seed };
        }
        const out = resolve(opts.out ?? `out/${sc.name}`);
        let report: Report;
        if (opts.runtime === "sim") {
          const tty = !opts.quiet && process.stderr.isTTY;
          report = runScenarioSim(sc, {
            outDir: out,
            ...(tty
              ? {
                  onProgress: (now: number) =>
                    process.stderr.write(
                      `\r${sc.name}: ${formatDuration(now)} of ${formatDuration(sc.durationNs)} emulated`,
                    ),
                }
              : {}),
          }).report;
          if (tty) process.stderr.write("\r\x1b[K");
        } else if (opts.runtime === "live") {
          if (process.getuid?.() !== 0) {
            throw new UsageError("--runtime live needs root (network namespaces, veth): run it with sudo", 1);
          }
          const dilation = Number(opts.dilation);
          if (!(dilation >= 1))
            throw new UsageError(`--dilation must be a number >= 1, not "${opts.dilation}"`);
          report = await runScenarioLive(sc, {
            outDir: out,
            dilation,
            clock: clockOption(opts.clock),
            ...(opts.quiet ? {} : { onProgress: (line: string) => process.stderr.write(`${line}\n`) }),
          });
        } else {
          throw new UsageError(`--runtime must be sim or live, not "${opts.runtime}"`);
        }
        process.stdout.write(
          opts.json ? `${JSON.stringify(report.summary, null, 2)}\n` : `${formatSummary(report, out)}\n`,
        );
      }),
    );
}
