// `rocelab run SCENARIO --runtime sim|live --out DIR`: run a scenario and write its report.

import { resolve } from "node:path";
import type { Command } from "commander";
import { formatSummary } from "../lab/report.js";
import { runScenarioSim } from "../lab/run-sim.js";
import { loadScenario } from "../lab/scenario.js";
import { formatDuration } from "../lab/units.js";
import { action, UsageError } from "./errors.js";

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
    .option("--json", "print the report summary as JSON instead of the one-screen text")
    .option("--quiet", "no progress lines")
    .action(
      action(
        async (
          file: string,
          opts: { runtime: string; out?: string; seed?: number; json?: boolean; quiet?: boolean },
        ) => {
          let sc = loadScenario(file);
          if (opts.seed !== undefined) {
            if (!Number.isInteger(opts.seed) || opts.seed < 0)
              throw new UsageError("--seed takes a non-negative integer");
            sc = { ...sc, seed: opts.seed };
          }
          const out = resolve(opts.out ?? `out/${sc.name}`);
          if (opts.runtime === "sim") {
            const { report } = runScenarioSim(sc, {
              outDir: out,
              ...(opts.quiet || !process.stderr.isTTY
                ? {}
                : {
                    onProgress: (now) =>
                      process.stderr.write(
                        `\r${sc.name}: ${formatDuration(now)} of ${formatDuration(sc.durationNs)} emulated`,
                      ),
                  }),
            });
            if (!opts.quiet && process.stderr.isTTY) process.stderr.write("\r\x1b[K");
            process.stdout.write(
              opts.json ? `${JSON.stringify(report.summary, null, 2)}\n` : `${formatSummary(report, out)}\n`,
            );
            return;
          }
          throw new UsageError(`--runtime must be sim or live, not "${opts.runtime}"`);
        },
      ),
    );
}
