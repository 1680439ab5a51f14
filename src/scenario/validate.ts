// Validation: the configurations no run can use, refused by the loaders where they are written (a
// topology file, a scenario's overrides), each error located in the source. These rules are also part of
// `rocelab lint`'s set (src/lint/), marked "refused at load". Loading (topology-file.ts, scenario.ts) calls
// this; nothing here imports a loader.

import { formatSize } from "../device/units.js";
import { ConfigError, type ConfigProblem, type SourceDocument } from "./config-error.js";
import type { ResolvedLab } from "./resolved-lab.js";
import { type Rule, type RuleFinding, runRules, Severity } from "./rule.js";

export const xoffOverBuffer: Rule = {
  id: "pfc-xoff-over-buffer",
  severity: "error",
  refusesLoad: true,
  title: "A static PFC XOFF the switch's buffer can reach",
  explanation:
    "A priority group pauses its upstream when its ingress occupancy passes XOFF; an XOFF larger than the " +
    "whole buffer is never reached, so PFC never pauses and the lossless priority overflows the buffer " +
    "first. No run can use such a switch: the loaders refuse the file.",
  source: "IEEE 802.1Qbb-2011 (PFC: per-priority pause on an ingress threshold); the MMU of docs/switch.md",
  check(lab: ResolvedLab): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [name, sw] of lab.switches) {
      if (!sw.pfc.enabled || sw.pfc.xoff === "dynamic" || sw.pfc.xoff <= sw.buffer.size) continue;
      out.push({
        path: `switches.${name}.pfc.xoff`,
        message: `pfc.xoff ${formatSize(sw.pfc.xoff)} is larger than the buffer (buffer.size ${formatSize(sw.buffer.size)}): PFC could never pause`,
        fix: `set pfc.xoff below buffer.size (or "dynamic"), or enlarge buffer.size`,
      });
    }
    return out;
  },
};

/** The rules whose errors refuse a configuration at load. */
export const VALIDATION_RULES: readonly Rule[] = [xoffOverBuffer];

/** Where a file may write a switch's settings, most specific first; the first the file has is reported. */
export type Places = (node: string | undefined) => readonly (readonly string[])[];

/** A topology file: the node's own settings, else the defaults. */
export const TOPOLOGY_PLACES: Places = (node) => [...(node ? [["nodes", node]] : []), ["defaults", "switch"]];

/**
 * Throws a ConfigError for the errors of the rules that refuse a configuration, each located in `doc` at
 * the first of `places` (followed by the setting's path) the source has.
 */
export function refuseInvalid(
  lab: ResolvedLab,
  file: string,
  doc: SourceDocument | null,
  places: Places = TOPOLOGY_PLACES,
): void {
  const errors = runRules(lab, VALIDATION_RULES).filter((f) => f.severity === Severity.Error);
  if (errors.length === 0) return;
  const problems: ConfigProblem[] = errors.map((f) => {
    const m = /^switches\.([^.]+)\.(.*)$/.exec(f.path);
    const node = m?.[1];
    const message = `${node ? `switch ${node}: ` : ""}${f.message}; fix: ${f.fix} [${f.id}]`;
    const setting = m ? m[2]!.split(".") : [];
    const paths = places(node).map((p) => [...p, ...setting]);
    const at = (doc && paths.find((p) => doc.has(p))) ?? paths[0] ?? [];
    return doc ? doc.problem(at, message) : { path: at.join("."), message };
  });
  throw new ConfigError(file, problems);
}
