// `up` and `run --runtime live` refuse a lab this machine cannot carry (lint/machine-fit.ts) before
// anything is created; --force starts it anyway, with the same sentence as a warning.

import { availableParallelism, freemem } from "node:os";
import { machineFit } from "../lint/machine-fit.js";
import type { Topology } from "../scenario/topology.js";
import { UsageError } from "./errors.js";

export function guardMachine(topo: Topology, dilation: number, auto: boolean, force: boolean): void {
  const fit = machineFit(topo, dilation, auto, { cpus: availableParallelism(), availableBytes: freemem() });
  if (fit.problems.length === 0) return;
  const text = fit.problems.join("; ");
  if (!force) throw new UsageError(`refused: ${text} (--force starts it anyway)`);
  process.stderr.write(`warning (--force): ${text}\n`);
}
