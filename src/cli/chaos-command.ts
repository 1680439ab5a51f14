// `rocelab chaos [TOPOLOGY]`: a seeded chaos run — link flaps and settings changes during mixed lossless
// traffic (src/run/chaos.ts) — and whether the fabric survived it: every message done, no lossless drop
// except at a failed link, nothing left queued or paused. `--runtime live` runs it in a live lab of its
// own and also SIGKILLs device processes mid-run (`--kills`), restarts them, and checks that the
// supervisor reported each death and that `down` left nothing (src/run/live-chaos.ts). Exit status 1
// when the fabric did not survive.

import { resolve } from "node:path";
import type { Command } from "commander";
import { formatDuration, parseDuration } from "../device/units.js";
import { DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { labNameProblem } from "../lab/live/names.js";
import { chaosScenario, judgeChaos, planKills, withKillSteps } from "../run/chaos.js";
import { runLiveChaos } from "../run/live-chaos.js";
import { runScenarioSim } from "../run/run-sim.js";
import { resolveScenario } from "../scenario/scenario.js";
import { action, dilationOption, UsageError } from "./errors.js";
import { loadTopologyArg } from "./topology-command.js";
import { requireRoot } from "./with-lab.js";

interface ChaosOptions {
  seed: string;
  flaps: string;
  changes: string;
  traffic: string;
  out?: string;
  force?: boolean;
  runtime: string;
  kills?: string;
  restart: boolean;
  name?: string;
  dilation: string;
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
    .option("--out <dir>", "also write the run's report there (a new or empty directory)")
    .option("--force", "write into --out even if it holds files")
    .option(
      "--runtime <runtime>",
      "sim, or live (root: a lab of its own, device processes killed too)",
      "sim",
    )
    .option(
      "--kills <n>",
      "devices killed mid-run, spines first, then hosts: live SIGKILLs their processes (default 1); sim kills them in the simulator (default 0)",
    )
    .option("--no-restart", "live: leave killed devices dead (default: restart each later in the run)")
    .option("--name <lab>", "live: the lab's name (default: chaos<pid>)")
    .option("--dilation <d>", "live: dilation of the lab", String(DEFAULT_DILATION))
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
        if (opts.runtime === "live") {
          await liveChaos(topo, topology ? resolve(topology) : "default", opts, trafficNs);
          return;
        }
        if (opts.runtime !== "sim")
          throw new UsageError(`--runtime must be sim or live, not "${opts.runtime}"`);
        const kills = count(opts.kills ?? "0", "kills");
        if (kills > 0)
          file = withKillSteps(
            file,
            planKills(topo, {
              seed: count(opts.seed, "seed"),
              trafficNs,
              kills,
              ...(opts.restart === false ? { restart: false } : {}),
            }),
          );
        const sc = resolveScenario(file, topology ? resolve(topology) : "chaos.yaml", null);
        const run = runScenarioSim(
          sc,
          opts.out ? { outDir: resolve(opts.out), force: opts.force ?? false } : {},
        );
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

async function liveChaos(
  topo: Parameters<typeof runLiveChaos>[0],
  ref: string,
  opts: ChaosOptions,
  trafficNs: number,
): Promise<void> {
  const lab = opts.name ?? `chaos${process.pid % 100_000}`;
  const bad = labNameProblem(lab);
  if (bad) throw new UsageError(`--name ${lab}: ${bad}`);
  const { dilation } = dilationOption(opts.dilation, DEFAULT_DILATION);
  requireRoot("rocelab chaos --runtime live");
  const r = await runLiveChaos(
    topo,
    ref,
    {
      seed: count(opts.seed, "seed"),
      trafficNs,
      flaps: count(opts.flaps, "flaps"),
      changes: count(opts.changes, "changes"),
      kills: count(opts.kills ?? "1", "kills"),
      restart: opts.restart,
    },
    {
      lab,
      dilation,
      ...(opts.out ? { outDir: resolve(opts.out), force: opts.force ?? false } : {}),
      onProgress: (s) => process.stderr.write(`${s}\n`),
    },
  );
  const s = r.report.summary;
  const out: string[] = [
    `live chaos (seed ${opts.seed}, lab ${lab}): ${opts.flaps} flaps, ${opts.changes} settings changes, ${r.kills.length} kills`,
  ];
  for (const k of r.kills)
    out.push(
      `  ${k.node} (pid ${k.pid}) SIGKILLed at ${formatDuration(k.atNs)}: reported ${k.reported}: ${k.event ?? "no event"}` +
        (k.restarted ? `; restarted at ${formatDuration(k.restartAtNs ?? 0)}: ${k.restarted.status}` : ""),
    );
  out.push(
    `  messages ${s.flowsCompleted}/${s.flowsTotal}, lossless drops ${s.drops.lossless}, retransmissions ${s.retransmits}`,
    `  after down: ${r.leftovers.namespaces.length} namespaces, ${r.leftovers.processes.length} processes, state directory ${r.leftovers.stateDir ? "left" : "gone"}`,
    r.problems.length === 0
      ? "  survived: every death reported, every message between surviving hosts completed, no lossless drop except at a failed link, nothing left"
      : `  FAILED:\n${r.problems.map((p) => `    ${p}`).join("\n")}`,
  );
  process.stdout.write(`${out.join("\n")}\n`);
  if (r.problems.length > 0) process.exitCode = 1;
}
