// Lint: the rules of rules.ts over a resolved configuration. The loaders run it (errors reject the file,
// warnings are printed when it loads); a `rocelab lint` command can list the same findings.

import { ConfigError, type ConfigProblem, type SourceDocument } from "../config-error.js";
import { NO_CHANGE, type SettingsChange, SettingsLayers } from "../settings-layers.js";
import type { Topology } from "../topology.js";
import { type Finding, type MachineContext, type ResolvedConfig, Severity } from "./finding.js";
import { RULES } from "./rules.js";

export {
  type Finding,
  type LintRule,
  type MachineContext,
  type ResolvedConfig,
  Severity,
} from "./finding.js";
export { RULES } from "./rules.js";

/** Every finding of every rule, errors first. */
export function lintConfig(config: ResolvedConfig): Finding[] {
  const all = RULES.flatMap((r) => r.check(config));
  return [
    ...all.filter((f) => f.severity === Severity.Error),
    ...all.filter((f) => f.severity !== Severity.Error),
  ];
}

/** The configuration a lab would run: each switch's settings with every layer (`overrides` on top). */
export function resolveConfig(
  topology: Topology,
  overrides: SettingsChange = NO_CHANGE,
  machine?: MachineContext,
): ResolvedConfig {
  const layers = new SettingsLayers(topology, overrides);
  const switches = new Map(layers.switches.map((name) => [name, layers.switchTunables(name)]));
  return { topology, switches, ...(machine ? { machine } : {}) };
}

/** Findings that say the same thing of several switches, as one finding naming them all. */
export function groupFindings(findings: readonly Finding[]): Finding[] {
  const groups = new Map<string, { first: Finding; nodes: string[] }>();
  for (const f of findings) {
    const key = `${f.id}\u0000${f.setting ?? ""}\u0000${f.message}`;
    const g = groups.get(key);
    if (g) {
      if (f.node) g.nodes.push(f.node);
    } else groups.set(key, { first: f, nodes: f.node ? [f.node] : [] });
  }
  return [...groups.values()].map(({ first, nodes }) =>
    nodes.length > 1 ? { ...first, node: nodes.join(", ") } : first,
  );
}

/** One finding as printed: `warning[id] leaf1 pfc.xoff: message`, then why and what to do. */
export function formatFinding(f: Finding): string {
  const where = [f.node, f.setting].filter((x) => x !== undefined).join(" ");
  return `${f.severity}[${f.id}]${where ? ` ${where}` : ""}: ${f.message}\n  why: ${f.explanation}\n  fix: ${f.fix}`;
}

/** The first path of `candidates` the source has (a setting is reported where it is written). */
type Candidates = (node: string | undefined) => readonly (readonly string[])[];

/** Where a topology file writes a switch's settings: the node's own, else the defaults. */
export const TOPOLOGY_PLACES: Candidates = (node) => [
  ...(node ? [["nodes", node]] : []),
  ["defaults", "switch"],
];

/**
 * Throws a ConfigError for the error findings, located in `doc` at the first of `places` (followed by the
 * setting's path) that the source has, else at the first place.
 */
export function rejectErrors(
  findings: readonly Finding[],
  file: string,
  doc: SourceDocument | null,
  places: Candidates = TOPOLOGY_PLACES,
): void {
  const errors = findings.filter((f) => f.severity === Severity.Error);
  if (errors.length === 0) return;
  const problems: ConfigProblem[] = errors.map((f) => {
    const message = `${f.node ? `switch ${f.node}: ` : ""}${f.message} — ${f.explanation}; ${f.fix}`;
    const setting = f.setting?.split(".") ?? [];
    const paths = places(f.node).map((p) => [...p, ...setting]);
    const at = (doc && paths.find((p) => doc.has(p))) ?? paths[0] ?? [];
    return doc ? doc.problem(at, message) : { path: at.join("."), message };
  });
  throw new ConfigError(file, problems);
}

/** Lints a loaded topology: throws a ConfigError for errors and returns the warnings. */
export function checkTopology(topology: Topology, machine?: MachineContext): Finding[] {
  const findings = lintConfig(resolveConfig(topology, NO_CHANGE, machine));
  rejectErrors(findings, topology.source, null);
  return findings.filter((f) => f.severity !== Severity.Error);
}
