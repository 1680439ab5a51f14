// Progress of long work (run, tune, bench): a cli-progress bar with the emulated time (or trials), the rate
// and the ETA on a terminal; plain lines now and then when stderr is not a TTY (CI logs, pipes).

import { SingleBar } from "cli-progress";
import { formatDuration } from "../device/units.js";

export interface Progress {
  /** `value` of `total` done; `detail` says the pace ("12us emulated per real s", "0.8 trials/s"). */
  update(value: number, detail: string): void;
  stop(): void;
}

/** Real ms between two plain lines when not on a terminal. */
const PLAIN_EVERY_MS = 5000;

export function startProgress(
  label: string,
  total: number,
  format: (value: number) => string,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  const started = Date.now();
  if (stream.isTTY) {
    const bar = new SingleBar({
      stream,
      format: `${label} [{bar}] {percentage}% | {done} of {all} | {detail} | ETA {eta_formatted}`,
      barsize: 24,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 20,
    });
    bar.start(total, 0, { done: format(0), all: format(total), detail: "" });
    return {
      update: (value, detail) => bar.update(Math.min(value, total), { done: format(value), detail }),
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update(value, detail) {
      const now = Date.now();
      if (now - last < PLAIN_EVERY_MS && value < total) return;
      last = now;
      const pct = total > 0 ? Math.round((100 * value) / total) : 100;
      stream.write(
        `${label}: ${format(value)} of ${format(total)} (${pct}%), ${detail}, ${((now - started) / 1000).toFixed(0)} s\n`,
      );
    },
    stop: () => {},
  };
}

/** Progress over emulated time: done and total as durations, the pace as emulated time per real second. */
export function emulatedProgress(
  label: string,
  durationNs: number,
  stream: NodeJS.WriteStream = process.stderr,
) {
  const started = performance.now();
  const bar = startProgress(label, durationNs, formatDuration, stream);
  return {
    at(now: number): void {
      const realS = (performance.now() - started) / 1000;
      bar.update(now, `${realS > 0 ? formatDuration(Math.round(now / realS)) : "-"} emulated per real s`);
    },
    stop: () => bar.stop(),
  };
}

/**
 * A live run: its progress lines (bring-up, steps) and, once the timeline plays, the emulated-time bar; on
 * a terminal a line clears the bar's line first, and the next update draws the bar again below it.
 */
export function liveProgress(label: string, durationNs: number, stream: NodeJS.WriteStream = process.stderr) {
  let bar: ReturnType<typeof emulatedProgress> | null = null;
  return {
    line: (text: string): void => {
      stream.write(`${bar !== null && stream.isTTY ? "\r\x1b[K" : ""}${text}\n`);
    },
    at: (now: number): void => {
      bar ??= emulatedProgress(label, durationNs, stream);
      bar.at(now);
    },
    stop: (): void => bar?.stop(),
  };
}
