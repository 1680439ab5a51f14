// The cases of `sim-parallel` (sim-parallel.ts) and what one arm (sim-parallel-arm.ts, a process of its
// own) reports back.

import { loadScenario, type Scenario } from "../../src/scenario/scenario.js";
import { incastScenario, NS3_RECORDED } from "./sim-vs-ns3.js";

export const FAT_TREE = "docs/experiments/fat-tree-websearch.yaml";

export type ArmCase = "incast" | "fat-tree";

export interface ArmResult {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly report: string;
  readonly cutLinks?: number;
  readonly lookaheadNs?: number;
  readonly workers?: readonly {
    buildMs: number;
    simulateMs: number;
    exchangeMs: number;
    events: number;
    windows: number;
    framesSent: number;
  }[];
}

/** The scenario of a case: HPCC's 64:1 DCQCN incast, or the k = 8 fat tree cut to `ms` milliseconds. */
export function armScenario(which: ArmCase, ms: number): Scenario {
  if (which === "incast") return incastScenario(NS3_RECORDED.senders);
  return { ...loadScenario(FAT_TREE), durationNs: Math.round(ms * 1e6) };
}
