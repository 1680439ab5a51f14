// `rocelab run --workers N|auto`: how many worker threads the simulator runtime takes, and the one line
// that says so when `auto` chose to split (src/run/sim-workers.ts has the rule).

import { availableParallelism } from "node:os";
import { parallelRefusal } from "../run/sim-parallel.js";
import { autoWorkers, parseWorkersOption, type WorkersOption } from "../run/sim-workers.js";
import type { Scenario } from "../scenario/scenario.js";
import { UsageError } from "./errors.js";

/** Commander's parser for `--workers`: a usage error naming what is allowed. */
export function workersOption(v: string): WorkersOption {
  try {
    return parseWorkersOption(v);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export interface RunWorkers {
  readonly workers: number;
  /** A line for standard error (an automatic split), or null. */
  readonly why: string | null;
}

/** The workers of this run; a usage error for a count the runtime or the scenario cannot take. */
export function runWorkers(
  opts: { readonly runtime: string; readonly workers: WorkersOption; readonly openmetrics?: string },
  sc: Scenario,
  capture: boolean,
  cpus: number = availableParallelism(),
): RunWorkers {
  if (opts.runtime !== "sim") {
    if (opts.workers !== "auto" && opts.workers !== 1)
      throw new UsageError("--workers is an option of the sim runtime");
    return { workers: 1, why: null };
  }
  const asks = { capture, openmetrics: opts.openmetrics !== undefined };
  if (opts.workers === "auto") {
    const c = autoWorkers(sc, cpus, asks);
    return { workers: c.workers, why: c.workers > 1 ? `simulating on ${c.workers} workers: ${c.why}` : null };
  }
  if (opts.workers > 1) {
    const refusal = parallelRefusal(sc, asks);
    if (refusal !== null) throw new UsageError(refusal);
  }
  return { workers: opts.workers, why: null };
}
