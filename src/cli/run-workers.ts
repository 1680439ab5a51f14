// `rocelab run --workers N|auto`: how many worker threads the simulator runtime takes, and the one line
// that says so when `auto` chose to split (src/run/sim-workers.ts has the rule).

import { availableParallelism, cpus as cpuTimes } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { parallelRefusal } from "../run/sim-parallel.js";
import { onMachine, parseWorkersOption, splitPlan, type WorkersOption } from "../run/sim-workers.js";
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

/**
 * The cores other processes kept busy over the last `ms` (from the kernel's per-CPU times, as top reads
 * them): a load average would still count a build that ended a minute ago.
 */
export async function busyCores(ms = 100): Promise<number> {
  const total = (): [number, number] => {
    let busy = 0;
    let all = 0;
    for (const c of cpuTimes()) {
      const t = c.times;
      busy += t.user + t.nice + t.sys + t.irq;
      all += t.user + t.nice + t.sys + t.irq + t.idle;
    }
    return [busy, all];
  };
  const [b0, a0] = total();
  await sleep(ms);
  const [b1, a1] = total();
  return a1 > a0 ? ((b1 - b0) / (a1 - a0)) * cpuTimes().length : 0;
}

/** The workers of this run; a usage error for a count the runtime or the scenario cannot take. */
export async function runWorkers(
  opts: { readonly runtime: string; readonly workers: WorkersOption; readonly openmetrics?: string },
  sc: Scenario,
  capture: boolean,
  cpus: number = availableParallelism(),
  load: () => Promise<number> = busyCores,
): Promise<RunWorkers> {
  if (opts.runtime !== "sim") {
    if (opts.workers !== "auto" && opts.workers !== 1)
      throw new UsageError("--workers is an option of the sim runtime");
    return { workers: 1, why: null };
  }
  const asks = { capture, openmetrics: opts.openmetrics !== undefined };
  if (opts.workers === "auto") {
    // How busy the machine is only matters, and is only measured, for a run the rule would split.
    const plan = splitPlan(sc, cpus, asks);
    const c = onMachine(plan, cpus, plan.workers > 1 ? await load() : 0);
    return { workers: c.workers, why: c.workers > 1 ? `simulating on ${c.workers} workers: ${c.why}` : null };
  }
  if (opts.workers > 1) {
    const refusal = parallelRefusal(sc, asks);
    if (refusal !== null) throw new UsageError(refusal);
  }
  return { workers: opts.workers, why: null };
}
