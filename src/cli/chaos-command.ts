// `rocelab chaos [TOPOLOGY]`: a seeded chaos run in the simulator — link flaps and settings changes during
// mixed lossless traffic (src/lab/chaos.ts) — and whether the fabric survived it: every message done, no
// lossless drop except at a failed link, nothing left queued or paused. Exit status 1 when it did not.

import { resolve } from "node:path";
import type { Command } from "commander";
import { parseDuration } from "../device/units.js";
import { chaosScenario, judgeChaos } from "../lab/chaos.js";
import { runScenarioSim } from "../lab/run-sim.js";
import { resolveScenario } from "../lab/scenario.js";
import { formatDuration } from "../lab/units.js";
import { action, UsageError } from "./errors.js";
import { loadTopologyArg } from "./topology-command.js";

interface ChaosOptions {
  seed: string;
  flaps: string;
  changes: string;
  traffic: string;
  out?: string;
}

function count(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw new UsageError(`--${what} takes an integer 0..1000, not "${text}"`);
  return n;
}

export function registerChaosCommand(program: Command): void {
  program
    .command("chaos")
    .argument("[topology]", "topology YAML with switch-to-switch links (default: the built-in fabric)")
    .description(
      "seeded chaos in the simulator: link flaps and settings changes during mixed lossless traffic, and whether the fabric survived",
    )
    .option("--seed <n>", "seed of the failures, the changes and the traffic", "1")
    .option("--flaps <n>", "switch-to-switch links that go down and come back (one at a time)", "3")
    .option("--changes <n>", "settings changes (switch profile, DCQCN timer) during the traffic", "4")
    .option("--traffic <duration>", "how long traffic arrives (the run lasts 10x as long)", "1ms")
    .option("--out <dir>", "also write the run's report there")
    .action(
      action(async (topology: string | undefined, opts: ChaosOptions) => {
        const topo = loadTopologyArg(topology);
        const trafficNs = parseDuration(opts.traffic);
        if (trafficNs === null || trafficNs <= 0)
          throw new UsageError(`--traffic takes a duration such as 1ms or 500us, not "${opts.traffic}"`);
        let file: ReturnType<typeof chaosScenario>;
        try {
          file = chaosScenario(topo, topology ? resolve(topology) : "default", {
            seed: count(opts.seed, "seed"),
            trafficNs,
            flaps: count(opts.flaps, "flaps"),
            changes: count(opts.changes, "changes"),
          });
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const sc = resolveScenario(file, topology ? resolve(topology) : "chaos.yaml", null);
        const run = runScenarioSim(sc, opts.out ? { outDir: resolve(opts.out) } : {});
        const v = judgeChaos(run.report);
        process.stdout.write(
          `${file.description}; ${formatDuration(sc.durationNs)} emulated\n` +
            `  messages ${v.flowsCompleted}/${v.flowsTotal}, lossless drops ${v.losslessDrops} (${v.dropsAtFailedLinks} drops at failed links), retransmissions ${v.retransmits}\n` +
            (v.problems.length === 0
              ? "  survived: no lossless drop except at a failed link, every message completed, nothing left queued or paused\n"
              : `  FAILED:\n${v.problems.map((p) => `    ${p}`).join("\n")}\n`),
        );
        if (v.problems.length > 0) process.exitCode = 1;
      }),
    );
}
