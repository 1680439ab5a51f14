// switch-forwarding's measurement of one load level: the generator's paced burst, the CPU of the measured
// processes (/proc/PID/stat) and of the machine, the sink's and the switch's frame counters, the switch
// process's event-loop health.

import { setTimeout as sleep } from "node:timers/promises";
import type { DeviceProcess } from "../../src/lab/live/device-process.js";
import type { Health } from "../../src/runtime/realtime/protocol.js";
import {
  fmt,
  fmtInt,
  median,
  readProcessCpu,
  readProcessRss,
  readSystemCpu,
  systemCpuDelta,
} from "./common.js";
import type { Echo } from "./switch-forwarding-echo.js";
import type { Generator } from "./switch-forwarding-generator.js";
import type { Options } from "./switch-forwarding-options.js";
import { type LevelResult, loadLabel, Phase } from "./switch-forwarding-report.js";
import { linkCounters, ns, waitForQuiet } from "./switch-forwarding-setup.js";

/** After the generator stops: time for the last frames to cross before the counters are read, ms. */
const DRAIN_MS = 300;

// -------------------------------------------------------------------------------------------------------
// Measuring one load level

export interface Running {
  readonly generator: Generator;
  /** The switch process in the switch phase. */
  readonly device: DeviceProcess | null;
  /** The port I/O alone in the port-io phase. */
  readonly echo?: Echo | null;
  /** Pids of the ksoftirqd threads. */
  readonly softirqThreads: readonly number[];
}

type CpuReading = ReturnType<typeof readProcessCpu>;

/** CPU-seconds between two readings of the same processes (a process gone counts as nothing). */
function cpuSeconds(a: readonly CpuReading[], b: readonly CpuReading[]): number {
  let sum = 0;
  a.forEach((x, i) => {
    const y = b[i];
    if (x && y) sum += y.user + y.system - x.user - x.system;
  });
  return sum;
}

async function measureLevel(phase: Phase, fps: number, seconds: number, run: Running): Promise<LevelResult> {
  const { generator, device, softirqThreads } = run;
  const echo = run.echo ?? null;
  const windows: Health[] = [];
  // The first report after the level ended also belongs to it: it covers the level's last moments, and when
  // cap kept the event loop blocked until the end, it is the one that holds the blocked time.
  let ended = false;
  let tail: Health | null = null;
  const onHealth = (_now: number, h: Health): void => {
    if (!ended) windows.push(h);
    else tail ??= h;
  };
  // The stats request resets the device's lag histogram: windows start clean at this level.
  const before = device ? await device.request({ type: "stats" }) : null;
  device?.on("health", onHealth);
  const sink0 = await linkCounters(ns("sink"), "eth1");
  const in0 = await linkCounters(ns("sw"), "eth1");
  const swPid = device?.pid ?? echo?.pid ?? null;
  const echo0 = echo ? await echo.counts() : null;
  const read = (): {
    sys: ReturnType<typeof readSystemCpu>;
    gen: CpuReading;
    sw: CpuReading;
    soft: CpuReading[];
  } => ({
    sys: readSystemCpu(),
    gen: readProcessCpu(generator.pid),
    sw: swPid ? readProcessCpu(swPid) : null,
    soft: softirqThreads.map(readProcessCpu),
  });
  const c0 = read();
  const done = await generator.run(fps, seconds);
  const c1 = read();
  const reports = windows.length;
  ended = true;
  await sleep(DRAIN_MS);
  const sink1 = await linkCounters(ns("sink"), "eth1");
  const in1 = await linkCounters(ns("sw"), "eth1");
  const after = device ? await device.request({ type: "stats" }) : null;
  const echo1 = echo ? await echo.counts() : null;
  device?.off("health", onHealth);
  // No report since the level ended: the stats answer's health covers that time instead.
  const last = tail ?? after?.health;
  if (last) windows.push(last);
  const t = done.seconds;
  const pct = (cpu: number): number => (cpu / t) * 100;
  const gen = pct(cpuSeconds([c0.gen], [c1.gen]));
  const sw = swPid ? pct(cpuSeconds([c0.sw], [c1.sw])) : Number.NaN;
  const soft = pct(cpuSeconds(c0.soft, c1.soft));
  const delivered = sink1.rx - sink0.rx;
  const switchIn =
    before && after
      ? after.health.framesIn - before.health.framesIn
      : echo0 && echo1
        ? echo1.framesIn - echo0.framesIn
        : Number.NaN;
  return {
    phase,
    requestedFps: fps,
    offeredFps: done.sent / t,
    forwardedFps: phase === Phase.Baseline ? Number.NaN : delivered / t,
    lossPct: phase === Phase.Baseline ? Number.NaN : Math.max(0, (1 - delivered / done.sent) * 100),
    ingressFps: (in1.rx - in0.rx) / t,
    switchInFps: switchIn / t,
    switchCpuPct: sw,
    generatorCpuPct: gen,
    ksoftirqdCpuPct: soft,
    attributedCpuPct: gen + soft + (swPid ? sw : 0),
    system: systemCpuDelta(c0.sys, c1.sys),
    seconds: t,
    healthReportsPerS: device ? reports / t : Number.NaN,
    lagP50Ms: median(windows.map((w) => w.lagP50Ms)),
    lagP99Ms: median(windows.map((w) => w.lagP99Ms)),
    lagWorstP99Ms: windows.length > 0 ? Math.max(...windows.map((w) => w.lagP99Ms)) : Number.NaN,
    lagMaxMs: windows.length > 0 ? Math.max(...windows.map((w) => w.lagMaxMs)) : Number.NaN,
    switchRssBytes: swPid ? (readProcessRss(swPid) ?? Number.NaN) : Number.NaN,
    skipped: done.skipped,
    framesPerRead:
      echo0 && echo1 ? (echo1.framesIn - echo0.framesIn) / (echo1.batches - echo0.batches) : Number.NaN,
    framesPerSend:
      echo0 && echo1 ? (echo1.framesIn - echo0.framesIn) / (echo1.flushes - echo0.flushes) : Number.NaN,
    sendErrors: done.errors,
  };
}

// -------------------------------------------------------------------------------------------------------
// The phases

export async function runLevels(
  phase: Phase,
  opts: Options,
  run: Running,
  log: (line: string) => void,
): Promise<LevelResult[]> {
  if (opts.warmupSeconds > 0) await run.generator.run(opts.loads[0] ?? 10_000, opts.warmupSeconds);
  const out: LevelResult[] = [];
  for (const fps of opts.loads) {
    if (opts.quietWaitSeconds > 0) await waitForQuiet(opts.quietWaitSeconds, log);
    const r = await measureLevel(phase, fps, opts.seconds, run);
    out.push(r);
    log(
      `  ${phase} ${loadLabel(fps)}: offered ${fmtInt(r.offeredFps)}/s, forwarded ${fmtInt(r.forwardedFps)}/s, ` +
        `loss ${fmt(r.lossPct, 2)} %, switch ${fmt(r.switchCpuPct)} %, generator ${fmt(r.generatorCpuPct)} %, ` +
        `lag p99 ${fmt(r.lagP99Ms, 2)} ms` +
        (r.framesPerRead !== undefined && Number.isFinite(r.framesPerRead)
          ? `, ${fmt(r.framesPerRead, 1)} frames a read, ${fmt(r.framesPerSend ?? Number.NaN, 1)} a send`
          : ""),
    );
  }
  return out;
}
