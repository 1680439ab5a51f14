// What a lint rule reports: a stable id, how serious it is, where (node and setting), what it means and how
// to fix it. Errors are configurations the lab refuses; warnings are legal but risky ones.

import type { SwitchTunables } from "../../switch/features/registry.js";
import type { Topology } from "../topology.js";

export const Severity = {
  /** Invalid: loading fails. */
  Error: "error",
  /** Legal, but known to misbehave: printed when the file loads. */
  Warning: "warning",
} as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export interface Finding {
  /** Stable rule id, kebab-case ("pfc-xoff-below-kmax"). */
  readonly id: string;
  readonly severity: Severity;
  /** The node concerned, if one. */
  readonly node?: string;
  /** The setting concerned, dotted as written in files ("pfc.xoff"), if one. */
  readonly setting?: string;
  /** One line: what is wrong here, with the values. */
  readonly message: string;
  /** Why it matters. */
  readonly explanation: string;
  /** What to change. */
  readonly fix: string;
}

/** Where the live lab would run: needed only by the rules about the machine. */
export interface MachineContext {
  /** Emulated time runs this many times slower than real time. */
  readonly dilation: number;
  /** CPUs available to the lab. */
  readonly cpus: number;
}

/** Everything the rules read: the topology and each switch's resolved settings (all layers applied). */
export interface ResolvedConfig {
  readonly topology: Topology;
  readonly switches: ReadonlyMap<string, SwitchTunables>;
  /** Given for a live lab (`up`, `run --runtime live`); the machine rules are skipped without it. */
  readonly machine?: MachineContext;
}

export interface LintRule {
  readonly id: string;
  readonly severity: Severity;
  /** What the rule looks for, for `rocelab lint --rules` style listings. */
  readonly summary: string;
  check(config: ResolvedConfig): Finding[];
}
