// Runs a scenario in the virtual-time runtime: the whole fabric in this process, deterministic for its
// seed, producing the same report and time series as a live run.

import type { PathNavReport } from "../control/path-nav/sim-navigator.js";
import type { AnyDeviceStats } from "../lab/device-stats.js";
import type { SimFabric } from "../lab/sim/sim-fabric.js";
import type { NicDetail } from "../nic/stats-types.js";
import { assembleReport, type Report, writeReport } from "../report/report.js";
import { OutputDir } from "../runtime/realtime/safe-files.js";
import type { Scenario } from "../scenario/scenario.js";
import { buildSimRun, type SimSetupOptions } from "./sim-run-setup.js";

export interface SimRunOptions extends SimSetupOptions {
  /** Write report.json, the CSV series and events.jsonl here (a new or empty directory: safe-files.ts). */
  readonly outDir?: string;
  /** --force: write into `outDir` even if it holds files. */
  readonly force?: boolean;
  /** Called every `progressEveryNs` of emulated time with the emulated clock. */
  readonly onProgress?: (now: number, sc: Scenario) => void;
  readonly progressEveryNs?: number;
}

export interface SimRunResult {
  readonly report: Report;
  readonly fabric: SimFabric;
  /** The capture files written, with their frame counts. */
  readonly captures: readonly { file: string; frames: number }[];
  /** What the path-navigation controller planned (when the scenario runs it). */
  readonly pathNavigation?: PathNavReport;
}

/** Runs a scenario to its end. */
export function runScenarioSim(sc: Scenario, opts: SimRunOptions = {}): SimRunResult {
  // Checked before the run: an output directory that will be refused must not cost the whole run first.
  const out =
    opts.outDir === undefined
      ? null
      : OutputDir.create(opts.outDir, { force: opts.force ?? false, flag: "--out" });
  try {
    return runTo(sc, opts, out);
  } finally {
    out?.close();
  }
}

function runTo(sc: Scenario, opts: SimRunOptions, out: OutputDir | null): SimRunResult {
  const started = performance.now();
  // The event log is only kept when it will be written.
  const { fabric, sim, nics, driver, recorder, navigator, capture, events, baselines } = buildSimRun(
    sc,
    opts,
    out !== null,
  );

  const every = opts.progressEveryNs ?? Math.max(sc.sampleNs, Math.round(sc.durationNs / 50));
  for (let t = every; t < sc.durationNs; t += every) {
    sim.run(t);
    opts.onProgress?.(t, sc);
  }
  sim.run(sc.durationNs);

  const now = sim.now;
  const stats: AnyDeviceStats[] = [];
  for (const sw of fabric.switches.values()) stats.push(baselines.since(sw.stats(now), sw));
  const records = new Map<string, NicDetail["flows"]>();
  for (const [name, nic] of nics) {
    const s = nic.stats(now);
    stats.push(baselines.since(s, nic));
    records.set(name, s.detail.flows);
  }
  const report = assembleReport(sc, stats, driver.report(records), {
    runtime: "sim",
    wallClockMs: performance.now() - started,
  });
  if (out) writeReport(out, report, recorder.all, events);
  const captures = out && capture ? capture.write(out) : [];
  const pathNavigation = navigator?.report();
  if (out && pathNavigation)
    out.write("path-navigation.json", `${JSON.stringify(pathNavigation, null, 2)}\n`);
  return pathNavigation ? { report, fabric, captures, pathNavigation } : { report, fabric, captures };
}
