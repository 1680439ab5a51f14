// `rocelab tune SCENARIO`: a seeded search over ECN, PFC and DCQCN settings in the simulator, parallel over
// the cores; writes tune.json (every trial), pareto.svg (goodput against p99 FCT, the three threshold presets
// marked) and recommended.snippet (the recommended setting as a profile snippet) to --out.

import { availableParallelism } from "node:os";
import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { formatDuration, formatRate, parseDuration } from "../device/units.js";
import { renderSvg } from "../report/plots.js";
import { paretoSpec } from "../run/tune/pareto-plot.js";
import { complete, profileSnippet, rankingWhy } from "../run/tune/search.js";
import { tune } from "../run/tune/tune.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import { loadScenario } from "../scenario/scenario.js";
import { action, UsageError } from "./errors.js";
import { startProgress } from "./progress.js";

interface TuneCliOptions {
  readonly trials: string;
  readonly seed: string;
  readonly jobs: string;
  readonly out?: string;
  readonly duration?: string;
  readonly quiet?: boolean;
  readonly force?: boolean;
}

export function registerTuneCommand(program: Command): void {
  program
    .command("tune")
    .argument("<scenario>", "scenario YAML (the threshold-table workload is the documented example)")
    .description(
      "search ECN Kmin/Kmax/Pmax, PFC XOFF and DCQCN (g, R_AI, timer) in the simulator; write a Pareto plot of goodput against p99 FCT and the recommended profile",
    )
    .option("--trials <n>", "searched candidates (the three threshold presets are always run too)", "24")
    .option("--seed <n>", "seed of the search", "1")
    .option("--jobs <n>", "worker threads (default: the cores)", String(availableParallelism()))
    .option("--duration <time>", "run each trial this long instead of the scenario's duration")
    .option(
      "--out <dir>",
      "where to write tune.json, pareto.svg and recommended.snippet (default: out/<scenario>-tune); a new or empty directory",
    )
    .option("--force", "write into --out even if it holds files")
    .option("--quiet", "no progress")
    .action(
      action(async (file: string, opts: TuneCliOptions) => {
        const sc = loadScenario(file);
        const trials = Number(opts.trials);
        const jobs = Number(opts.jobs);
        if (!Number.isInteger(trials) || trials < 0) throw new UsageError("--trials takes a number >= 0");
        if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError("--jobs takes a number >= 1");
        const durationNs = opts.duration === undefined ? undefined : parseDuration(opts.duration);
        if (durationNs === null || (durationNs !== undefined && durationNs <= 0))
          throw new UsageError(`--duration "${opts.duration}" is not a duration (for example 2ms)`);
        // Checked before the trials: a refused directory must not cost the search first.
        const out = OutputDir.create(resolve(opts.out ?? `out/${sc.name}-tune`), {
          force: opts.force ?? false,
          flag: "--out",
        });
        try {
          await tuneInto(out, file, sc, trials, jobs, durationNs, opts);
        } finally {
          out.close();
        }
      }),
    );
}

async function tuneInto(
  out: OutputDir,
  file: string,
  sc: ReturnType<typeof loadScenario>,
  trials: number,
  jobs: number,
  durationNs: number | undefined,
  opts: TuneCliOptions,
): Promise<void> {
  const progress = opts.quiet ? null : startProgress(`tune ${sc.name}`, trials + 3, (v) => `${v}`);
  const started = Date.now();
  const outcome = await tune({
    scenarioFile: file,
    trials,
    seed: Number(opts.seed),
    jobs,
    ...(durationNs !== undefined ? { durationNs } : {}),
    onTrial: (done, _total, r) =>
      progress?.update(
        done,
        `${(done / ((Date.now() - started) / 1000)).toFixed(2)} trials/s, last ${r.candidate.name}: ${formatRate(r.goodputBps)}b/s, p99 ${formatDuration(r.p99FctNs)}`,
      ),
  });
  progress?.stop();
  const scenario = relative(process.cwd(), resolve(file));
  out.write(
    "tune.json",
    `${JSON.stringify({ scenario, seed: Number(opts.seed), durationNs: durationNs ?? sc.durationNs, ...outcome }, null, 2)}\n`,
  );
  const svg = await renderSvg(paretoSpec(sc.name, outcome.results, outcome.front, outcome.recommended));
  out.write("pareto.svg", svg);
  const lines = [`${outcome.results.length} trials, ${outcome.front.length} on the Pareto front`];
  const why = rankingWhy(outcome.results, durationNs ?? sc.durationNs);
  if (why !== "") lines.push(why);
  for (const r of outcome.results.filter((x) => x.candidate.preset || outcome.front.includes(x)))
    lines.push(
      `  ${r.candidate.name.padEnd(13)} ${`${formatRate(r.goodputBps)}b/s`.padEnd(10)} p99 ${`${r.p99AtLeast ? "≥ " : ""}${formatDuration(r.p99FctNs)}`.padEnd(10)} pauses ${r.pauseFrames}, ${r.flowsCompleted}/${r.flowsTotal} flows${complete(r) ? "" : " (unfinished)"}${outcome.front.includes(r) ? "  (front)" : ""}${r === outcome.recommended ? "  <- recommended" : ""}`,
    );
  if (outcome.recommended !== null) {
    const snippet = profileSnippet(outcome.recommended, scenario);
    out.write("recommended.snippet", snippet);
    lines.push("", snippet.trimEnd());
  } else
    lines.push(
      outcome.results.some((r) => r.losslessDrops === 0)
        ? "nothing to recommend (see above)"
        : "no trial finished without lossless drops: nothing to recommend",
    );
  lines.push(
    "",
    `written: ${out.file("tune.json")}, ${out.file("pareto.svg")}${outcome.recommended ? `, ${out.file("recommended.snippet")}` : ""}`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
}
