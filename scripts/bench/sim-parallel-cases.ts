// The cases of `sim-parallel` (sim-parallel.ts) and what one arm (sim-parallel-arm.ts, a process of its
// own) reports back.

import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { ParallelRunResult } from "../../src/run/sim-parallel.js";
import { fatTreeTopology } from "../../src/scenario/fat-tree.js";
import { loadScenario, resolveScenario, type Scenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { incastScenario, NS3_RECORDED } from "./sim-vs-ns3.js";

export const FAT_TREE = "docs/experiments/fat-tree-websearch.yaml";

export type ArmCase = "incast" | "fat-tree" | "fat-tree-k16";

export interface ArmResult {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly report: string;
  /** The process's largest resident set (MiB), every thread. */
  readonly maxRssMiB: number;
  readonly cutLinks?: number;
  readonly lookaheadNs?: number;
  readonly workers?: ParallelRunResult["workers"];
}

/**
 * The scenario of a case: HPCC's 64:1 DCQCN incast, the k = 8 fat tree cut to `ms` milliseconds, or the same
 * web-search mix on a k = 16 fat tree (1,024 hosts, 320 switches, `rocelab topology generate fat-tree --k 16`).
 */
export function armScenario(which: ArmCase, ms: number): Scenario {
  if (which === "incast") return incastScenario(NS3_RECORDED.senders);
  const durationNs = Math.round(ms * 1e6);
  if (which === "fat-tree") return { ...loadScenario(FAT_TREE), durationNs };
  const input = parse(readFileSync(FAT_TREE, "utf8")) as Record<string, unknown>;
  const file = { ...input, name: "fat-tree-k16-websearch", topology: fatTreeTopology({ k: 16 }) };
  return { ...resolveScenario(scenarioFile.parse(file), FAT_TREE, null), durationNs };
}
