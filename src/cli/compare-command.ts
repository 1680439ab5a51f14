// `rocelab compare A.yaml [B.yaml …] [--sweep switches.PATH=V1,V2] --seeds N`: every variant over N seeds in
// the simulator (or `--runtime live --runs N`: N runs each in the live lab, one after another), the mean of each metric with a 95 % confidence interval, and per pair of variants the
// paired difference and a verdict (docs/compare.md). Text on stdout, or JSON (--json); --out also writes
// compare.json and compare.svg (the means with their intervals as error bars).

import { availableParallelism } from "node:os";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import { parseDuration, parseSize } from "../device/units.js";
import { DEFAULT_CLOCK_MODE, DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { labNameProblem } from "../lab/live/names.js";
import { renderSvg } from "../report/plots.js";
import { type CompareOutcome, runComparison } from "../run/compare/compare.js";
import { liveRunLab, runLiveComparison } from "../run/compare/compare-live.js";
import { compareSpec, slowdownSpec } from "../run/compare/compare-plot.js";
import { formatComparison } from "../run/compare/compare-text.js";
import { BucketError, parseBuckets } from "../run/compare/slowdown.js";
import {
  type CompareJob,
  parseSweep,
  planJobs,
  SweepError,
  type SweepValue,
  type Variant,
} from "../run/compare/variants.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import { loadScenario } from "../scenario/scenario.js";
import { action, clockOption, dilationOption, UsageError } from "./errors.js";
import { startProgress } from "./progress.js";

interface CompareCliOptions {
  readonly seeds: string;
  readonly sweep?: string;
  readonly jitter: string;
  readonly sameEcmp?: boolean;
  readonly small?: string;
  readonly buckets: string;
  readonly duration?: string;
  readonly jobs: string;
  readonly runtime: string;
  readonly runs?: string;
  readonly dilation: string;
  readonly clock: string;
  readonly name?: string;
  readonly json?: boolean;
  readonly out?: string;
  readonly force?: boolean;
  readonly quiet?: boolean;
}

function variantsOf(files: readonly string[], sweep: string | undefined): Variant[] {
  const names = files.map((f) => loadScenario(f).name);
  const label = (f: string, i: number) =>
    names.filter((n) => n === names[i]).length > 1 ? basename(f) : names[i]!;
  let values: SweepValue[];
  try {
    values = sweep === undefined ? [] : parseSweep(sweep);
  } catch (e) {
    if (e instanceof SweepError) throw new UsageError(e.message);
    throw e;
  }
  const out: Variant[] = [];
  files.forEach((f, i) => {
    const file = resolve(f);
    if (values.length === 0) out.push({ label: label(f, i), file });
    for (const v of values)
      out.push({ label: files.length === 1 ? v.label : `${label(f, i)} ${v.label}`, file, sweep: v });
  });
  return out;
}

export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .argument("<scenarios...>", "scenario YAML files: the variants (with --sweep, each file once per value)")
    .description(
      "run variants over several seeds in the simulator; print each metric's mean with a 95 % confidence interval and, per pair, whether the difference is larger than a change of seed",
    )
    .option("--seeds <n>", "seeds per variant (1..N; each variant runs with the same seeds)", "5")
    .option(
      "--sweep <spec>",
      "a settings sweep: switches.PATH=V1,V2,… or hosts.PATH=V1,V2,… (e.g. switches.ecn.ai.mode=off,local)",
    )
    .option("--jitter <time>", "start jitter per message drawn from each seed (0: none)", "1us")
    .option("--same-ecmp", "keep the scenario's ECMP hash seeds instead of a per-switch seed per run")
    .option("--small <size>", "also FCT percentiles of the flows of at most this size (e.g. 100KB)")
    .option(
      "--buckets <sizes>",
      "FCT slowdown (FCT / ideal FCT on an idle path) per flow-size bucket: websearch (HPCC's 5 % bins of the web-search mix), none, or ascending upper ends such as 10KB,100KB,1MB",
      "websearch",
    )
    .option("--duration <time>", "run each variant this long instead of its scenario's duration")
    .option("--jobs <n>", "worker threads (default: the cores)", String(availableParallelism()))
    .option("--runtime <runtime>", "sim, or live (the live lab: --runs N, one run after another)", "sim")
    .option("--runs <n>", "live runtime: runs per variant (run r uses seed r)")
    .option("--dilation <n>", "live runtime: as for rocelab run", String(DEFAULT_DILATION))
    .option("--clock <mode>", "live runtime: synced or free, as for rocelab run", DEFAULT_CLOCK_MODE)
    .option("--name <prefix>", "live runtime: run i runs in the lab PREFIXi (default cmp<pid>r)")
    .option("--json", "print the comparison as JSON")
    .option(
      "--out <dir>",
      "also write compare.json, compare.svg and (with buckets) slowdown.svg there; a new or empty directory",
    )
    .option("--force", "write into --out even if it holds files (replacing a comparison written before)")
    .option("--quiet", "no progress")
    .action(
      action(async (files: string[], opts: CompareCliOptions) => {
        const live = opts.runtime === "live";
        if (!live && opts.runtime !== "sim")
          throw new UsageError(`--runtime must be sim or live, not "${opts.runtime}"`);
        if (!live && opts.runs !== undefined)
          throw new UsageError("--runs is for --runtime live (the simulator runs --seeds N)");
        if (live && opts.runs === undefined)
          throw new UsageError("--runtime live needs --runs N: how many times each variant runs in the lab");
        const n = Number(live ? opts.runs : opts.seeds);
        const jobs = Number(opts.jobs);
        if (!Number.isInteger(n) || n < 2 || n > 1000)
          throw new UsageError(
            `${live ? "--runs" : "--seeds"} takes a number from 2 to 1000 (an interval needs two runs)`,
          );
        if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError("--jobs takes a number >= 1");
        const jitterNs = opts.jitter === "0" ? 0 : parseDuration(opts.jitter);
        if (jitterNs === null || jitterNs < 0)
          throw new UsageError(`--jitter "${opts.jitter}" is not a duration (for example 1us, or 0)`);
        const durationNs = opts.duration === undefined ? undefined : parseDuration(opts.duration);
        if (durationNs === null || (durationNs !== undefined && durationNs <= 0))
          throw new UsageError(`--duration "${opts.duration}" is not a duration (for example 2ms)`);
        const smallBytes = opts.small === undefined ? undefined : parseSize(opts.small);
        if (smallBytes === null || (smallBytes !== undefined && smallBytes <= 0))
          throw new UsageError(`--small "${opts.small}" is not a size (for example 100KB)`);
        let buckets: readonly number[] | null;
        try {
          buckets = parseBuckets(opts.buckets);
        } catch (e) {
          if (e instanceof BucketError) throw new UsageError(e.message);
          throw e;
        }
        const variants = variantsOf(files, opts.sweep);
        if (variants.length < 1) throw new UsageError("nothing to compare");
        const seeds = Array.from({ length: n }, (_, i) => i + 1);
        const plan = { seeds, jitterNs, varyEcmp: opts.sameEcmp !== true };
        const metrics = {
          ...(smallBytes !== undefined ? { smallBytes } : {}),
          ...(buckets !== null ? { buckets } : {}),
        };
        const all = planJobs(variants, plan, metrics, durationNs);
        // Opened before the runs, so a directory that cannot be written is refused at once, not after them.
        const out =
          opts.out === undefined
            ? null
            : OutputDir.create(resolve(opts.out), { force: opts.force ?? false, flag: "--out" });
        try {
          const outcome = live
            ? await compareLive(all, opts)
            : await compareSim(all, jobs, opts.quiet === true);
          const doc = {
            runtime: live ? "live" : "sim",
            seeds,
            jitterNs,
            ecmpSeeds: plan.varyEcmp ? "per switch, from each seed" : "the scenario's",
            ...(durationNs !== undefined ? { durationNs } : {}),
            ...(smallBytes !== undefined ? { smallBytes } : {}),
            ...(buckets !== null
              ? {
                  slowdownBuckets: buckets,
                  slowdown:
                    "FCT / ideal FCT (HPCC's standalone FCT: base RTT + the message with its headers at the bottleneck rate), at least 1; ids slowdown:<lo>:<hi>:p50|p99 for flows of lo < bytes <= hi",
                }
              : {}),
            interval: "95 % confidence interval of the mean, Student t; differences paired by seed",
            variants: variants.map((v) => ({
              label: v.label,
              file: basename(v.file),
              sweep: v.sweep ?? null,
            })),
            metrics: outcome.metrics,
            runs: outcome.runs,
          };
          if (out !== null) {
            out.write("compare.json", `${JSON.stringify(doc, null, 2)}\n`);
            out.write("compare.svg", await renderSvg(compareSpec(outcome.metrics, n)));
            const slowdown = slowdownSpec(outcome.metrics, n);
            if (slowdown !== null) out.write("slowdown.svg", await renderSvg(slowdown));
          }
          process.stdout.write(
            opts.json
              ? `${JSON.stringify(doc, null, 2)}\n`
              : `${formatComparison(outcome.metrics, plan, variants, live ? "live" : "sim", outcome.runs)}\n`,
          );
        } finally {
          out?.close();
        }
      }),
    );
}

async function compareSim(
  all: readonly CompareJob[],
  threads: number,
  quiet: boolean,
): Promise<CompareOutcome> {
  const progress = quiet ? null : startProgress("compare", all.length, (v) => `${v}`);
  const outcome = await runComparison(all, threads, (done) => progress?.update(done, ""));
  progress?.stop();
  return outcome;
}

/** The live runs, one lab after another (root: namespaces and veth pairs). */
async function compareLive(all: readonly CompareJob[], opts: CompareCliOptions): Promise<CompareOutcome> {
  if (process.getuid?.() !== 0)
    throw new UsageError("--runtime live needs root (network namespaces, veth): run it with sudo", 1);
  const prefix = opts.name ?? `cmp${process.pid % 10_000}r`;
  const problem = labNameProblem(liveRunLab(prefix, all.length));
  if (problem !== null) throw new UsageError(`--name ${prefix}: ${problem}`);
  const { dilation, auto } = dilationOption(opts.dilation, DEFAULT_DILATION);
  const quiet = opts.quiet === true;
  return runLiveComparison(all, {
    labPrefix: prefix,
    dilation,
    ...(auto ? { autoDilation: true } : {}),
    clock: clockOption(opts.clock),
    onRun: (done, total, lab) => {
      if (!quiet)
        process.stderr.write(`compare: live run ${done} of ${total} done (lab ${lab}, taken down)\n`);
    },
  });
}
