// The switch-forwarding benchmark's results and report: what one level measured, the per-frame CPU
// arithmetic, and the tables (one per phase, and per port I/O backend in the switch phase, side by side).

import { formatRate } from "../../src/device/units.js";
import type { PortBackend } from "../../src/runtime/realtime/port-io.js";
import { fmt, fmtInt, formatTable, type SystemCpuDelta } from "./common.js";

export const Phase = {
  Baseline: "baseline",
  Switch: "switch",
  /** The switch's port I/O alone (port-echo.ts): what a live switch process cannot go below. */
  PortIo: "port-io",
  Kernel: "kernel",
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

/** Loss at or below this fraction counts as lossless (a stray frame in millions is not a drop pattern). */
export const LOSSLESS_FRACTION = 1e-4;
/** RoCE data DSCP, ECT(0): the frames take the switch's lossless, ECN-marking path, as RoCE data does. */
export const DATA_DSCP = 26;

/**
 * The results map's key of the switch phase with one port I/O backend; with --base, also the build ("base"
 * for the other one) and the round. What follows "switch:" labels the run in the report.
 */
export const switchKey = (backend: PortBackend, build = "", round = 0): string =>
  `${Phase.Switch}:${backend}${build ? ` ${build}` : ""}${round > 0 ? ` #${round}` : ""}`;

/** The port-io phase's label where the switch runs' labels name their port I/O. */
export const PORT_IO_ALONE = "ring, no device";

/** The results map's key of the port-io phase; with --base, also the build and the round. */
export const portIoKey = (build = "", round = 0): string =>
  `${Phase.PortIo}${build ? `:${build} #${round}` : ""}`;

/**
 * The switch phase's runs in the order they ran, their label (the key after "switch:") and levels; then
 * the port-io phase's, labelled PORT_IO_ALONE (and the build and round with --base): the same tables and
 * lines, the floor beside the switch.
 */
export function switchRuns(
  results: ReadonlyMap<string, LevelResult[]>,
): { backend: string; rows: LevelResult[] }[] {
  const prefix = `${Phase.Switch}:`;
  const label = (key: string): string | null => {
    if (key.startsWith(prefix)) return key.slice(prefix.length);
    if (key === Phase.PortIo) return PORT_IO_ALONE;
    if (key.startsWith(`${Phase.PortIo}:`)) return `${PORT_IO_ALONE} ${key.slice(Phase.PortIo.length + 1)}`;
    return null;
  };
  const runs: { backend: string; rows: LevelResult[] }[] = [];
  for (const [key, rows] of results) {
    const backend = label(key);
    if (backend !== null && rows.length > 0) runs.push({ backend, rows });
  }
  // The switch's runs first, the port I/O alone after them.
  const alone = (r: { backend: string }): boolean => r.backend.startsWith(PORT_IO_ALONE);
  return [...runs.filter((r) => !alone(r)), ...runs.filter(alone)];
}

/** What a run of switchRuns is: the switch process with a port I/O, or the port I/O alone. */
function runTitle(label: string): string {
  return label.startsWith(PORT_IO_ALONE)
    ? `port I/O alone: a Node process (port-echo.js) reading eth1's ring and sending every frame out eth2 unchanged, no device${label.slice(PORT_IO_ALONE.length)}`
    : `one switch process (dist/main/device-main.js), port I/O ${label}`;
}

/** What the report needs of the run's options. */
export interface ReportOptions {
  readonly frameBytes: number;
  readonly seconds: number;
  readonly rateBps: number;
  readonly dilation: number;
  readonly portIo: readonly PortBackend[];
  readonly generator: PortBackend;
}

/** Everything measured at one offered load in one phase. Rates are per real second; CPU in % of one core. */
export interface LevelResult {
  readonly phase: Phase;
  /** Asked-for frames/s (0: flat out). */
  readonly requestedFps: number;
  readonly offeredFps: number;
  /** Frames that reached the sink's interface, per second. */
  readonly forwardedFps: number;
  readonly lossPct: number;
  /** Frames the switch namespace's kernel took in from the generator's veth, per second. */
  readonly ingressFps: number;
  /** Frames the switch process received (switch phase), per second. */
  readonly switchInFps: number;
  readonly switchCpuPct: number;
  /** The generator process; on veth this includes the receiving kernel's softirq work run in its sends. */
  readonly generatorCpuPct: number;
  /** The ksoftirqd threads (softirq work the kernel deferred instead of running it in the sender). */
  readonly ksoftirqdCpuPct: number;
  /** Every CPU-second the measured set-up used: generator + switch + ksoftirqd. */
  readonly attributedCpuPct: number;
  readonly system: SystemCpuDelta;
  readonly seconds: number;
  /** Health reports the switch process sent per second (10 when its event loop turns freely). */
  readonly healthReportsPerS: number;
  /** Event-loop lag of the switch process, real ms: medians of the 100-ms windows, the worst window, the max. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagWorstP99Ms: number;
  readonly lagMaxMs: number;
  readonly switchRssBytes: number;
  readonly skipped: number;
  readonly sendErrors: number;
  /** The port-io phase's echo: frames per batch read from the ring, and per sendmmsg() (NaN otherwise). */
  readonly framesPerRead?: number;
  readonly framesPerSend?: number;
}

export function loadLabel(fps: number): string {
  return fps === 0 ? "max" : fmtInt(fps);
}

export const pctOfCore = (cpuSeconds: number, seconds: number): number => (cpuSeconds / seconds) * 100;

/**
 * CPU per forwarded frame above the baseline phase at the same load, µs: what the set-up's processes and
 * ksoftirqd used, minus what the generator and the veth cost on their own (the baseline, scaled to this
 * level's offered rate). Counting processes rather than the whole machine keeps other people's work out.
 */
export function netCpuPerFrameUs(r: LevelResult, base: LevelResult | undefined): number {
  if (!base || !(r.forwardedFps > 0) || !(base.offeredFps > 0)) return Number.NaN;
  const baseline = base.attributedCpuPct * (r.offeredFps / base.offeredFps);
  return ((r.attributedCpuPct - baseline) / 100 / r.forwardedFps) * 1e6;
}

/**
 * CPU-seconds per frame, µs, as the slope of a least-squares line through (frames/s, attributed CPU) over
 * the given levels: the fixed per-second costs (timer ticks, health reports) fall into the intercept, and
 * one level's tick-counting noise weighs less than in a per-level ratio. NaN with fewer than two levels.
 */
export function fittedCpuPerFrameUs(rows: readonly LevelResult[], x: (r: LevelResult) => number): number {
  const pts = rows.filter((r) => Number.isFinite(x(r)) && Number.isFinite(r.attributedCpuPct));
  if (pts.length < 2) return Number.NaN;
  const mx = pts.reduce((a, r) => a + x(r), 0) / pts.length;
  const my = pts.reduce((a, r) => a + r.attributedCpuPct / 100, 0) / pts.length;
  let sxy = 0;
  let sxx = 0;
  for (const r of pts) {
    sxy += (x(r) - mx) * (r.attributedCpuPct / 100 - my);
    sxx += (x(r) - mx) ** 2;
  }
  return sxx > 0 ? (sxy / sxx) * 1e6 : Number.NaN;
}

export const isLossless = (r: LevelResult | undefined): boolean =>
  r !== undefined && r.lossPct <= LOSSLESS_FRACTION * 100;

/**
 * The highest offered rate up to which every level was lossless (levels run in increasing order; the
 * flat-out level may offer less than a paced one). A lossless level above a lossy one is luck, not
 * capacity: one stall of the process at the wrong moment would have lost. null: the first level lost.
 */
function maxLosslessFps(rows: readonly LevelResult[]): number | null {
  let best: number | null = null;
  for (const r of rows) {
    if (!isLossless(r)) break;
    best = Math.max(best ?? 0, r.offeredFps);
  }
  return best;
}

export function report(opts: ReportOptions, results: ReadonlyMap<string, LevelResult[]>): void {
  const print = (s = ""): void => {
    process.stdout.write(`${s}\n`);
  };
  const base = results.get(Phase.Baseline) ?? [];
  const switches = switchRuns(results);
  const kern = results.get(Phase.Kernel) ?? [];
  // Busy time of the whole machine that none of the measured processes used: other people's work (and this
  // script's own bookkeeping). Large values mean the level ran on a machine that was not quiet.
  const sysCols = (r: LevelResult): string[] => [
    fmt(pctOfCore(r.system.busy, r.seconds)),
    fmt(pctOfCore(r.system.softirq, r.seconds)),
    fmt(Math.max(0, pctOfCore(r.system.busy, r.seconds) - r.attributedCpuPct)),
  ];
  print();
  print(
    `frames: ${opts.frameBytes} bytes (UDP/IPv4, DSCP ${DATA_DSCP}, ECT(0)); ${opts.seconds} s per level; ` +
      `switch ports ${formatRate(opts.rateBps)} emulated at dilation ${opts.dilation}; generator sends through ${opts.generator}`,
  );
  print(
    "CPU in % of one core. system busy: the whole machine; softirq: its softirq share; " +
      "others: busy time none of the measured processes used (other people's work)",
  );
  if (base.length > 0) {
    print();
    print("baseline: no forwarder (frames die in rl-bench-sw's IP layer)");
    print(
      formatTable(
        [
          "load fps",
          "offered fps",
          "generator CPU %",
          "ksoftirqd %",
          "system busy %",
          "softirq %",
          "others %",
        ],
        base.map((r) => [
          loadLabel(r.requestedFps),
          fmtInt(r.offeredFps),
          fmt(r.generatorCpuPct),
          fmt(r.ksoftirqdCpuPct),
          ...sysCols(r),
        ]),
      ),
    );
  }
  for (const { backend, rows: sw } of switches) {
    print();
    print(`userspace: ${runTitle(backend)}`);
    print(
      formatTable(
        [
          "load fps",
          "offered fps",
          "forwarded fps",
          "loss %",
          "unread %",
          "switch CPU %",
          "µs/frame",
          "reports/s",
          "lag p50 ms",
          "p99",
          "worst p99",
          "max",
          "generator CPU %",
          "ksoftirqd %",
          "system busy %",
          "softirq %",
          "others %",
        ],
        sw.map((r) => [
          loadLabel(r.requestedFps),
          fmtInt(r.offeredFps),
          fmtInt(r.forwardedFps),
          fmt(r.lossPct, 2),
          fmt(Math.max(0, (1 - r.switchInFps / r.ingressFps) * 100), 2),
          fmt(r.switchCpuPct),
          fmt((r.switchCpuPct / 100 / r.forwardedFps) * 1e6, 2),
          fmt(r.healthReportsPerS, 1),
          fmt(r.lagP50Ms, 2),
          fmt(r.lagP99Ms, 2),
          fmt(r.lagWorstP99Ms, 1),
          fmt(r.lagMaxMs, 1),
          fmt(r.generatorCpuPct),
          fmt(r.ksoftirqdCpuPct),
          ...sysCols(r),
        ]),
      ),
    );
    print(
      "  unread %: frames the switch's namespace received that the process never read (its ring was full)",
    );
    print("  µs/frame: switch process CPU per forwarded frame");
    print(
      "  reports/s: health reports from the switch (10/s when its event loop turns; fewer: it was blocked)",
    );
    print("  lag: event-loop delay; p50, p99: medians over 100-ms windows; worst p99: the worst window");
  }
  if (kern.length > 0) {
    print();
    print("kernel: IPv4 forwarding in rl-bench-sw between the same veths");
    print(
      formatTable(
        [
          "load fps",
          "offered fps",
          "forwarded fps",
          "loss %",
          "generator CPU %",
          "ksoftirqd %",
          "system busy %",
          "softirq %",
          "others %",
        ],
        kern.map((r) => [
          loadLabel(r.requestedFps),
          fmtInt(r.offeredFps),
          fmtInt(r.forwardedFps),
          fmt(r.lossPct, 2),
          fmt(r.generatorCpuPct),
          fmt(r.ksoftirqdCpuPct),
          ...sysCols(r),
        ]),
      ),
    );
    print("  the kernel forwards in softirq, run inside the generator's sends: it shows in generator CPU");
  }
  if (switches.length === 0 || kern.length === 0) return;
  print();
  print(
    "side by side (net µs/frame: generator + switch + ksoftirqd CPU above the baseline at the same load, " +
      "per forwarded frame)",
  );
  print(
    formatTable(
      [
        "load fps",
        ...switches.flatMap(({ backend }) => [`${backend} fwd fps`, "loss %", "net µs/frame"]),
        "kernel fwd fps",
        "loss %",
        "net µs/frame",
      ],
      kern.map((k, i) => [
        loadLabel(k.requestedFps),
        ...switches.flatMap(({ rows }) => {
          const s = rows[i];
          return [
            fmtInt(s?.forwardedFps ?? Number.NaN),
            fmt(s?.lossPct ?? Number.NaN, 2),
            fmt(s ? netCpuPerFrameUs(s, base[i]) : Number.NaN, 2),
          ];
        }),
        fmtInt(k.forwardedFps),
        fmt(k.lossPct, 2),
        fmt(netCpuPerFrameUs(k, base[i]), 2),
      ]),
    ),
  );
  const lk = maxLosslessFps(kern);
  const ceiling = Math.max(...kern.map((r) => r.offeredFps));
  const bound = lk !== null && lk >= ceiling * 0.98 ? "≥ " : "";
  // The headline CPU comparison: per-frame slopes over every lossless level, minus the baseline's slope.
  // Flat-out levels are left out: a generator that never sleeps pays no timer ticks, so its cost per frame
  // is not on the same line as the paced levels'.
  const paced = (r: LevelResult): boolean => r.requestedFps > 0;
  const fitBase = fittedCpuPerFrameUs(base.filter(paced), (r) => r.offeredFps);
  const fitted = (rows: readonly LevelResult[]): number =>
    fittedCpuPerFrameUs(
      rows.filter((r) => paced(r) && isLossless(r)),
      (r) => r.forwardedFps,
    ) - fitBase;
  const netKern = fitted(kern);
  print();
  print(
    `kernel: ${lk !== null ? `lossless up to ${bound}${fmtInt(lk)} fps` : "lost at every level"}` +
      `${bound ? " (the highest rate the generator reached: a lower bound)" : ""}; ` +
      `forwarding ${fmt(netKern, 2)} µs per frame (fitted; generator alone ${fmt(fitBase, 2)} µs)`,
  );
  for (const { backend, rows: sw } of switches) {
    const ls = maxLosslessFps(sw);
    const netSw = fitted(sw);
    const alone = fittedCpuPerFrameUs(
      sw.filter((r) => paced(r) && isLossless(r)).map((r) => ({ ...r, attributedCpuPct: r.switchCpuPct })),
      (r) => r.forwardedFps,
    );
    const share =
      ls !== null && lk !== null
        ? ` (${fmt((ls / lk) * 100, 0)} % of the kernel's ${bound}${fmtInt(lk)})`
        : "";
    print(
      `${backend.startsWith(PORT_IO_ALONE) ? `port I/O alone${backend.slice(PORT_IO_ALONE.length)}` : `switch process, ${backend}`}: ${ls !== null ? `lossless up to ${fmtInt(ls)} fps${share}` : "lost at every level"}` +
        ` (≤ ${LOSSLESS_FRACTION * 100} % lost there and below); forwarding ${fmt(netSw, 2)} µs per frame ` +
        `(fitted, all processes; the switch process alone ${fmt(alone, 2)} µs), kernel/userspace = ` +
        `${fmt(netKern / netSw, 3)}`,
    );
    const rss = sw.map((r) => r.switchRssBytes).filter(Number.isFinite);
    const worst = Math.max(...sw.map((r) => r.lagMaxMs).filter(Number.isFinite));
    if (rss.length > 0) {
      print(
        `  RSS up to ${fmt(Math.max(...rss) / 2 ** 20, 0)} MiB; longest event-loop delay ${fmt(worst, 1)} ms`,
      );
    }
  }
}
