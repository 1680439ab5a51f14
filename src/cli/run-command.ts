// `rocelab run SCENARIO --runtime sim|live --out DIR`: run a scenario and write its report.

import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { type CaptureEndpoint, CaptureSpecError, parseCaptureList } from "../lab/capture.js";
import { DEFAULT_CLOCK_MODE, DEFAULT_DILATION } from "../lab/live/clock-plan.js";
import { labNameProblem } from "../lab/live/names.js";
import { formatOnLoad, lintScenario } from "../lint/lint.js";
import { OpenMetricsRecorder } from "../metrics/openmetrics.js";
import type { Report } from "../report/report.js";
import { formatSummary } from "../report/summary-text.js";
import { runScenarioLive } from "../run/run-live.js";
import { runScenarioSim } from "../run/run-sim.js";
import { runScenarioSimParallel } from "../run/sim-parallel.js";
import type { WorkersOption } from "../run/sim-workers.js";
import { writeNewFile } from "../runtime/realtime/safe-files.js";
import { loadScenario } from "../scenario/scenario.js";
import { action, clockOption, dilationOption, UsageError } from "./errors.js";
import { needsGcRerun, rerunWithSingleThreadedGc } from "./gc-rerun.js";
import { besideGuard, fitNow, guardMachine } from "./machine-guard.js";
import { addMetricsOptions, type MetricsOptions, metricsSettings } from "./metrics-options.js";
import { emulatedProgress, liveProgress } from "./progress.js";
import { runWorkers, workersOption } from "./run-workers.js";

interface RunOptions extends MetricsOptions {
  readonly runtime: string;
  readonly out?: string;
  readonly seed?: number;
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly dilation: string;
  readonly clock: string;
  readonly capture?: string;
  readonly name?: string;
  readonly openmetrics?: string;
  readonly force?: boolean;
  readonly workers: WorkersOption;
}

export function registerRunCommand(program: Command): void {
  const run = program.command("run");
  addMetricsOptions(run);
  run
    .argument("<scenario>", "scenario YAML (see docs/configuration.md)")
    .description("run a scenario and write report.json, CSV time series and events.jsonl")
    .option(
      "--runtime <runtime>",
      "sim (virtual time, deterministic) or live (namespaces and processes)",
      "sim",
    )
    .option(
      "--out <dir>",
      "where to write the report (default: out/<scenario name>); a new or empty directory",
    )
    .option(
      "--force",
      "write into --out even if it holds files (and replace --openmetrics FILE); live runtime: also start a lab whose CPU or memory estimate exceeds this machine",
    )
    .option("--seed <n>", "override the scenario's seed", (v) => Number.parseInt(v, 10))
    .option(
      "--dilation <n>",
      "live runtime: emulated time runs N times slower than real time; auto[:N]: raised while the machine cannot keep up",
      String(DEFAULT_DILATION),
    )
    .option(
      "--clock <mode>",
      "live runtime: synced (devices wait for their neighbours: a busy machine slows the run instead of changing it) or free",
      DEFAULT_CLOCK_MODE,
    )
    .option(
      "--capture <ports>",
      "write each port's frames into the output directory, emulated timestamps (NODE:ethN[,NODE:ethN…]; sim: pcap, live: pcapng)",
    )
    .option("--name <lab>", "live runtime: the name of the lab the run brings up (default: run<pid>)")
    .option(
      "--openmetrics <file>",
      "sim runtime: also write every device metric as OpenMetrics time series, for `promtool tsdb create-blocks-from openmetrics` (timestamps from now, emulated time x --dilation)",
    )
    .option(
      "--workers <n>",
      "sim runtime: split the fabric over N worker threads, the same report byte for byte; auto: one per free core when the fabric has 128 hosts or more (64 a worker) and 1 GiB to carry, else 1 (docs/parallel-sim.md)",
      workersOption,
      "auto" as WorkersOption,
    )
    .option("--json", "print the report summary as JSON instead of the one-screen text")
    .option("--quiet", "no progress lines")
    .action(
      action(async (file: string, opts: RunOptions) => {
        let sc = loadScenario(file);
        let captures: CaptureEndpoint[] = [];
        try {
          if (opts.capture !== undefined) captures = parseCaptureList(opts.capture, sc.topology);
        } catch (e) {
          if (e instanceof CaptureSpecError) throw new UsageError(e.message);
          throw e;
        }
        const workers = await runWorkers(opts, sc, captures.length > 0);
        if (workers.why !== null && !opts.quiet) process.stderr.write(`${workers.why}\n`);
        if (needsGcRerun({ runtime: opts.runtime, workers: workers.workers })) {
          // The child runs with the count chosen here: how busy the machine is has moved since.
          process.exitCode = await rerunWithSingleThreadedGc(["--workers", String(workers.workers)]);
          return;
        }
        const machine =
          opts.runtime === "live"
            ? { dilation: Number(opts.dilation) || DEFAULT_DILATION, cpus: availableParallelism() }
            : undefined;
        const liveDilation =
          opts.runtime === "live" ? dilationOption(opts.dilation, DEFAULT_DILATION) : undefined;
        const fit =
          liveDilation === undefined
            ? undefined
            : fitNow(sc.topology, liveDilation.dilation, liveDilation.auto);
        const findings = lintScenario(sc, machine);
        process.stderr.write(formatOnLoad(fit === undefined ? findings : besideGuard(findings, fit)));
        if (opts.seed !== undefined) {
          if (!Number.isInteger(opts.seed) || opts.seed < 0)
            throw new UsageError("--seed takes a non-negative integer");
          sc = { ...sc, seed: opts.seed };
        }
        const out = resolve(opts.out ?? `out/${sc.name}`);
        let report: Report;
        if (opts.runtime === "sim" && workers.workers > 1) {
          const bar = opts.quiet ? null : emulatedProgress(sc.name, sc.durationNs);
          const result = await runScenarioSimParallel(sc, {
            workers: workers.workers,
            outDir: out,
            force: opts.force ?? false,
            ...(bar ? { onProgress: (now: number) => bar.at(now) } : {}),
          });
          bar?.stop();
          report = result.report;
        } else if (opts.runtime === "sim") {
          const bar = opts.quiet ? null : emulatedProgress(sc.name, sc.durationNs);
          const metrics = opts.openmetrics
            ? new OpenMetricsRecorder(sc.name, Date.now(), Number(opts.dilation) || DEFAULT_DILATION)
            : undefined;
          const result = runScenarioSim(sc, {
            outDir: out,
            force: opts.force ?? false,
            captures,
            ...(metrics ? { metrics } : {}),
            ...(bar ? { onProgress: (now: number) => bar.at(now) } : {}),
          });
          report = result.report;
          bar?.stop();
          if (metrics && opts.openmetrics)
            writeNewFile(opts.openmetrics, metrics.text(), {
              force: opts.force ?? false,
              flag: "--openmetrics",
            });
          if (!opts.quiet) {
            for (const c of result.captures)
              process.stderr.write(`${c.frames} frames captured into ${c.file}\n`);
          }
        } else if (opts.runtime === "live") {
          if (process.getuid?.() !== 0) {
            throw new UsageError("--runtime live needs root (network namespaces, veth): run it with sudo", 1);
          }
          const nameProblem = opts.name === undefined ? null : labNameProblem(opts.name);
          if (nameProblem !== null) throw new UsageError(nameProblem);
          const { dilation, auto } = dilationOption(opts.dilation, DEFAULT_DILATION);
          guardMachine(fit ?? fitNow(sc.topology, dilation, auto), opts.force ?? false);
          const live = opts.quiet ? null : liveProgress(sc.name, sc.durationNs);
          report = await runScenarioLive(sc, {
            outDir: out,
            force: opts.force ?? false,
            dilation,
            ...(auto ? { autoDilation: true } : {}),
            clock: clockOption(opts.clock),
            captures,
            ...(opts.name !== undefined ? { lab: opts.name } : {}),
            metrics: metricsSettings(opts),
            ...(live ? { onProgress: live.line, onTime: live.at } : {}),
          });
          live?.stop();
        } else {
          throw new UsageError(`--runtime must be sim or live, not "${opts.runtime}"`);
        }
        process.stdout.write(
          opts.json ? `${JSON.stringify(report.summary, null, 2)}\n` : `${formatSummary(report, out)}\n`,
        );
      }),
    );
}
