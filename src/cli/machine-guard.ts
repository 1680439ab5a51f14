// `up` and `run --runtime live` refuse a lab this machine cannot carry (lint/machine-fit.ts) before
// anything is created; --force starts it anyway, with the same sentence as a warning.

import { availableParallelism, freemem } from "node:os";
import { type FitEstimate, machineFit } from "../lint/machine-fit.js";
import type { Finding } from "../scenario/rule.js";
import type { Topology } from "../scenario/topology.js";
import { UsageError } from "./errors.js";

export function fitNow(topo: Topology, dilation: number, auto: boolean): FitEstimate {
  return machineFit(topo, dilation, auto, { cpus: availableParallelism(), availableBytes: freemem() });
}

/**
 * The lint findings to print before the guard speaks: topology-too-large (more than half the CPUs) says
 * less than the guard's refusal (more than all of them), so when the guard has something to say, the
 * warning is left out rather than shown beside it.
 */
export function besideGuard(findings: readonly Finding[], fit: FitEstimate): readonly Finding[] {
  return fit.problems.length === 0 ? findings : findings.filter((f) => f.id !== "topology-too-large");
}

export function guardMachine(fit: FitEstimate, force: boolean): void {
  if (fit.problems.length === 0) return;
  const text = fit.problems.join("; ");
  if (!force) throw new UsageError(`refused: ${text} (--force starts it anyway)`);
  process.stderr.write(`warning (--force): ${text}\n`);
}
