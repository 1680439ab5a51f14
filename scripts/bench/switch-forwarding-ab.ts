// switch-forwarding with --base: this build's switch process against another build's, alternately over the
// same loads in one run (switch-forwarding.ts switchRunPlan), and what each costs per forwarded frame; the
// same for the port-io phase's echo when the other build has one.
// What an optimisation of the live data path quotes in its commit message: the ratio this / base.

import type { PortBackend } from "../../src/runtime/realtime/port-io.js";
import { fmt, fmtInt, formatTable, median } from "./common.js";
import {
  fittedCpuPerFrameUs,
  isLossless,
  type LevelResult,
  portIoKey,
  switchKey,
} from "./switch-forwarding-report.js";

/** The two builds' labels in the results' keys. */
export const AB_THIS = "this";
export const AB_BASE = "base";

/** What the comparison needs of the run's options. */
export interface AbOptions {
  readonly base: string | null;
  readonly rounds: number;
  readonly portIo: readonly PortBackend[];
}

/** Lossless paced levels a fitted figure needs. */
const MIN_FITTED_LEVELS = 3;

/** Per-frame figures of one switch run: the switch process's CPU only. */
interface RunFigures {
  /** Slope over the paced lossless levels, µs per forwarded frame. */
  readonly fittedUs: number;
  /**
   * Over every paced level, lossy or not: CPU-seconds per forwarded frame, µs (fixed costs included). On a
   * machine too busy for lossless levels, the comparison that is left.
   */
  readonly pacedUs: number;
  /** At the flat-out level (or the last one): CPU per forwarded frame, µs, and the rate. */
  readonly maxUs: number;
  readonly maxFps: number;
  readonly maxCpuPct: number;
}

function figures(rows: readonly LevelResult[]): RunFigures {
  const lossless = rows.filter((r) => r.requestedFps > 0 && isLossless(r));
  // A line through two levels of a busy machine says little: three at least.
  const fittedUs =
    lossless.length < MIN_FITTED_LEVELS
      ? Number.NaN
      : fittedCpuPerFrameUs(
          lossless.map((r) => ({ ...r, attributedCpuPct: r.switchCpuPct })),
          (r) => r.forwardedFps,
        );
  const paced = rows.filter((r) => r.requestedFps > 0);
  const cpu = paced.reduce((a, r) => a + (r.switchCpuPct / 100) * r.seconds, 0);
  const frames = paced.reduce((a, r) => a + r.forwardedFps * r.seconds, 0);
  const top = rows.find((r) => r.requestedFps === 0) ?? rows[rows.length - 1];
  return {
    fittedUs,
    pacedUs: (cpu / frames) * 1e6,
    maxUs: top ? (top.switchCpuPct / 100 / top.forwardedFps) * 1e6 : Number.NaN,
    maxFps: top?.forwardedFps ?? Number.NaN,
    maxCpuPct: top?.switchCpuPct ?? Number.NaN,
  };
}

const range = (v: readonly number[]): string => {
  const ok = v.filter(Number.isFinite);
  return ok.length > 0 ? `${fmt(Math.min(...ok), 3)}–${fmt(Math.max(...ok), 3)}` : "–";
};

/** Prints both builds' figures per round and the ratios this / base (median and range over the rounds). */
export function abReport(opts: AbOptions, results: ReadonlyMap<string, LevelResult[]>): void {
  if (opts.base === null) return;
  const print = (s = ""): void => {
    process.stdout.write(`${s}\n`);
  };
  print();
  print(`this build against --base ${opts.base}, switch process CPU only, alternating rounds`);
  const groups = [
    ...opts.portIo.map((backend) => ({
      title: `port I/O ${backend}`,
      key: (build: string, round: number) => switchKey(backend, build, round),
    })),
    // The port-io phase: the process is the echo, its CPU the floor of the switch's.
    { title: "port I/O alone (ring, no device)", key: portIoKey },
  ];
  for (const { title, key } of groups) {
    const rows: string[][] = [];
    const fitRatios: number[] = [];
    const maxRatios: number[] = [];
    const fpsRatios: number[] = [];
    const pacedRatios: number[] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      const a = results.get(key(AB_THIS, round));
      const b = results.get(key(AB_BASE, round));
      if (!a || !b) continue;
      const fa = figures(a);
      const fb = figures(b);
      fitRatios.push(fa.fittedUs / fb.fittedUs);
      maxRatios.push(fa.maxUs / fb.maxUs);
      fpsRatios.push(fa.maxFps / fb.maxFps);
      pacedRatios.push(fa.pacedUs / fb.pacedUs);
      rows.push([
        String(round),
        fmt(fa.fittedUs, 3),
        fmt(fb.fittedUs, 3),
        fmt(fa.fittedUs / fb.fittedUs, 3),
        fmt(fa.pacedUs, 3),
        fmt(fb.pacedUs, 3),
        fmt(fa.pacedUs / fb.pacedUs, 3),
        `${fmt(fa.maxUs, 3)} (${fmtInt(fa.maxFps)} fps, ${fmt(fa.maxCpuPct)} %)`,
        `${fmt(fb.maxUs, 3)} (${fmtInt(fb.maxFps)} fps, ${fmt(fb.maxCpuPct)} %)`,
        fmt(fa.maxUs / fb.maxUs, 3),
      ]);
    }
    if (rows.length === 0) continue;
    print();
    print(title);
    print(
      formatTable(
        [
          "round",
          "fitted µs/frame this",
          "base",
          "this/base",
          "paced µs/frame this",
          "base",
          "this/base",
          "flat out µs/frame this",
          "base",
          "this/base",
        ],
        rows,
      ),
    );
    print(
      `  this/base: fitted ${fmt(median(fitRatios), 3)} (${range(fitRatios)}), paced ` +
        `${fmt(median(pacedRatios), 3)} (${range(pacedRatios)}), flat out ` +
        `${fmt(median(maxRatios), 3)} (${range(maxRatios)}); frames forwarded flat out ` +
        `${fmt(median(fpsRatios), 3)} (${range(fpsRatios)})`,
    );
  }
}
