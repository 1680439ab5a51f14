// One rule set for the whole project: what the loaders refuse (scenario/validate.ts), what `rocelab lint`
// reports and what `up`/`run`/`tui`/`topology` print when a file loads (src/lint/). A rule has a stable
// kebab-case id, one severity on one scale, a title, an explanation with its public source, and a fix per
// finding; docs/lint.md documents every rule under its id.

import type { ResolvedLab } from "./resolved-lab.js";

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

/** The findings of `rules`, one per switch (not grouped), in rule order. */
export function runRules(lab: ResolvedLab, rules: readonly Rule[]): Finding[] {
  return rules.flatMap((rule) =>
    rule.check(lab).map((f) => ({
      id: rule.id,
      severity: f.severity ?? rule.severity,
      path: f.path,
      message: f.message,
      fix: f.fix,
    })),
  );
}
