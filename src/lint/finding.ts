// One rule set for the whole project: what `rocelab lint` reports, what `up`/`run`/`tui`/`topology` print
// when a file loads, and what the loaders refuse. A rule has a stable kebab-case id, one severity on one
// scale, a title, an explanation with its public source, and a fix per finding; docs/lint.md documents
// every rule under its id.

import type { NicConfig } from "../nic/config.js";
import type { Topology } from "../scenario/topology.js";
import type { SwitchConfig } from "../switch/config.js";

/**
 * The one severity scale. `rocelab lint` exits 1 on an error; `up`, `run`, `tui` and `topology` print errors
 * and warnings and go on (they run the lab as configured: the ghost-latency experiment runs its error on
 * purpose), except the errors of a rule that `refusesLoad`, which no loader accepts.
 */
export const Severity = {
  /** Against a best practice that the fabric breaks by it (lint exit 1). */
  Error: "error",
  /** Legal, but known to misbehave. */
  Warning: "warning",
  /** Worth knowing; not printed when a file loads. */
  Info: "info",
} as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export interface Finding {
  /** The rule's id: kebab-case, stable, the anchor of its section in docs/lint.md. */
  readonly id: string;
  readonly severity: Severity;
  /**
   * Where, as written in configuration: `switches.leaf1.ecn.queues.3`, `hosts.h1.dcqcn`, `lab` for the
   * whole lab; `switches.{leaf1,leaf2}.pfc` when grouped; a `timeline[i]: ` prefix after a set step.
   */
  readonly path: string;
  /** One line: what is wrong here, with the numbers. */
  readonly message: string;
  /** What to change. */
  readonly fix: string;
}

/** Where a live lab would run: the rules about the machine need it (`up`, `run --runtime live`). */
export interface MachineContext {
  /** Emulated time runs this many times slower than real time. */
  readonly dilation: number;
  /** CPUs available to the lab. */
  readonly cpus: number;
}

/** The configuration a lab runs with, resolved through every settings layer. */
export interface ResolvedLab {
  readonly topology: Topology;
  readonly switches: ReadonlyMap<string, SwitchConfig>;
  readonly hosts: ReadonlyMap<string, NicConfig>;
  /** Given for a live lab; the machine rules find nothing without it. */
  readonly machine?: MachineContext;
}

/** What a rule reports: its id is filled in, and its severity unless the finding gives its own. */
export interface RuleFinding {
  readonly path: string;
  readonly message: string;
  readonly fix: string;
  readonly severity?: Severity;
}

export interface Rule {
  readonly id: string;
  /** Default severity of its findings (a finding may lower it: see RuleFinding.severity). */
  readonly severity: Severity;
  readonly title: string;
  /** Why it matters. */
  readonly explanation: string;
  /** The public source of the practice (paper, standard, vendor document, or a measurement in docs/). */
  readonly source: string;
  /** Its errors make every loader refuse the file: configurations that cannot work at all. */
  readonly refusesLoad?: boolean;
  check(lab: ResolvedLab): RuleFinding[];
}
