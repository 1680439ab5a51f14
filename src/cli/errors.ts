// User-facing errors: a clear message and an exit status, never a stack trace for a mistake in input.

import { parseDilationOption } from "../lab/live/auto-dilation.js";
import { type ClockMode, parseClockMode } from "../lab/live/clock-plan.js";
import { RemoteError } from "../lab/live/control.js";
import { LabError } from "../lab/live/live-lab.js";
import { UnsafeOutputError } from "../runtime/realtime/safe-files.js";
import { ConfigError } from "../scenario/config-error.js";

export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** Runs a command action, turning known errors into a message on stderr and an exit status. */
export function action<A extends unknown[]>(
  fn: (...args: A) => Promise<void> | void,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (e) {
      if (e instanceof ConfigError) {
        process.stderr.write(`${e.message}\n`);
        process.exitCode = 2;
      } else if (e instanceof RemoteError || e instanceof LabError) {
        process.stderr.write(`rocelab: ${e.message}\n`);
        process.exitCode = 1;
      } else if (e instanceof UnsafeOutputError) {
        // An output that exists, or a link where one would go: the user chooses another path (or --force).
        process.stderr.write(`rocelab: ${e.message}\n`);
        process.exitCode = 2;
      } else if (e instanceof UsageError) {
        process.stderr.write(`rocelab: ${e.message}\n`);
        process.exitCode = e.exitCode;
      } else {
        process.stderr.write(`rocelab: ${(e as Error).stack ?? String(e)}\n`);
        process.exitCode = 1;
      }
    }
  };
}

/** `--clock synced|free`, or a usage error that says what is allowed. */
export function clockOption(text: string): ClockMode {
  try {
    return parseClockMode(text, "--clock");
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `--dilation N | auto | auto:FLOOR`, or a usage error that says what is allowed. */
export function dilationOption(text: string, defaultFloor: number): { dilation: number; auto: boolean } {
  try {
    return parseDilationOption(text, defaultFloor);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
