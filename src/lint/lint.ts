// The lint engine: every rule (rules-*.ts, by topic, and the validation rules the loaders refuse on,
// scenario/validate.ts) over the configuration each device would run with, resolved through the settings
// layers as a run resolves them; `rocelab lint` reports everything (exit 1 on errors); `up`, `run`, `tui`
// and `topology` print the same findings in the same format and go on.

import { type MachineContext, type ResolvedLab, resolveLab } from "../scenario/resolved-lab.js";
import { type Finding, type Rule, runRules, Severity } from "../scenario/rule.js";
import type { Scenario } from "../scenario/scenario.js";
import type { SettingsChange } from "../scenario/settings-layers.js";
import type { Topology } from "../scenario/topology.js";
import { VALIDATION_RULES } from "../scenario/validate.js";
import { CNP_PATH_RULES } from "./rules-cnp-path.js";
import { CONTROL_RULES } from "./rules-control.js";
import { MACHINE_RULES } from "./rules-machine.js";
import { QOS_RULES } from "./rules-qos.js";
import { THRESHOLD_RULES } from "./rules-thresholds.js";

/** Every rule, in the order docs/lint.md lists them. */
export const RULES: readonly Rule[] = [
  ...VALIDATION_RULES,
  ...THRESHOLD_RULES,
  ...QOS_RULES,
  ...CNP_PATH_RULES,
  ...CONTROL_RULES,
  ...MACHINE_RULES,
];

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * The same finding on several switches as one, its path naming them all (`switches.{leaf1,leaf2}.pfc`);
 * sorted by severity, then rule, then path. `prefix` goes in front of every path.
 */
export function groupFindings(findings: readonly Finding[], prefix = ""): Finding[] {
  const groups = new Map<string, { finding: Finding; nodes: string[]; rest: string }>();
  for (const finding of findings) {
    const m = /^switches\.([^.{]+)(.*)$/.exec(finding.path);
    const rest = m ? m[2]! : finding.path;
    const k = `${finding.id}\0${finding.severity}\0${finding.message}\0${finding.fix}\0${m ? rest : `=${finding.path}`}`;
    const g = groups.get(k);
    if (g !== undefined && m) g.nodes.push(m[1]!);
    else groups.set(k, { finding, nodes: m ? [m[1]!] : [], rest });
  }
  const out = [...groups.values()].map(({ finding, nodes, rest }) => ({
    ...finding,
    path: prefix + (nodes.length > 1 ? `switches.{${nodes.join(",")}}${rest}` : finding.path),
  }));
  return out.sort(
    (a, b) =>
      ORDER[a.severity] - ORDER[b.severity] || a.id.localeCompare(b.id) || a.path.localeCompare(b.path),
  );
}

/** Every finding on a resolved lab, grouped. */
export function lintLab(lab: ResolvedLab, prefix = ""): Finding[] {
  return groupFindings(runRules(lab, RULES), prefix);
}

/** A topology as `rocelab up` would run it (with `machine`: on this machine, at that dilation). */
export function lintTopology(topology: Topology, machine?: MachineContext): Finding[] {
  return lintLab(resolveLab(topology, [], machine));
}

/**
 * A scenario: its start (topology and overrides), then the state after each `set` step of its timeline,
 * reporting there only what that step brought in.
 */
export function lintScenario(sc: Scenario, machine?: MachineContext): Finding[] {
  const changes: SettingsChange[] = [sc.overrides];
  const out = lintLab(resolveLab(sc.topology, changes, machine));
  const seen = new Set(out.map(key));
  sc.timeline.forEach(({ action }, i) => {
    if (action.kind !== "set") return;
    changes.push(action.change);
    const prefix = `timeline[${i}]: `;
    for (const f of lintLab(resolveLab(sc.topology, changes, machine), prefix)) {
      if (!seen.has(key({ ...f, path: f.path.slice(prefix.length) }))) out.push(f);
    }
  });
  return out;
}

function key(f: Finding): string {
  return `${f.id} ${f.path} ${f.message}`;
}

/** Exit status of `rocelab lint`: 1 if any finding is an error. */
export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === Severity.Error);
}

/** One finding as printed: severity, id and where; then what; then the fix. */
export function formatFinding(f: Finding): string {
  return `${f.severity.padEnd(7)} ${f.id}  ${f.path}\n        ${f.message}\n        fix: ${f.fix}`;
}

function count(findings: readonly Finding[]): string {
  const n = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return `${n(Severity.Error)} error(s), ${n(Severity.Warning)} warning(s), ${n(Severity.Info)} note(s)`;
}

/** `rocelab lint`'s text: every finding, then the counts. */
export function formatReport(findings: readonly Finding[], what: string): string {
  if (findings.length === 0) return `${what}: no findings\n`;
  return `${findings.map(formatFinding).join("\n")}\n\n${count(findings)} (each rule: docs/lint.md, rocelab lint --rules)\n`;
}

/**
 * What `up`, `run`, `tui` and `topology` print when a configuration loads: the errors and warnings in the
 * format of `rocelab lint` (notes are left to it); nothing when there are none.
 */
export function formatOnLoad(findings: readonly Finding[]): string {
  const shown = findings.filter((f) => f.severity !== Severity.Info);
  if (shown.length === 0) return "";
  return `lint: ${count(shown)} against lossless best practices; going on as configured (rocelab lint FILE for all, docs/lint.md for why):\n${shown.map(formatFinding).join("\n")}\n`;
}
