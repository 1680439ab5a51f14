// `rocelab lint TOPOLOGY|SCENARIO`: checks a configuration against the project's one rule set (lossless
// RoCE best practices, settings that cannot work, a live lab that does not fit the machine; every rule in
// docs/lint.md) and exits 1 if any finding is an error. `up`, `run`, `tui` and `topology` print the same
// findings in the same format when the file loads (formatOnLoad).

import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { parse } from "yaml";
import { formatReport, hasErrors, lintScenario, lintTopology, RULES } from "../lint/lint.js";
import type { MachineContext } from "../scenario/resolved-lab.js";
import type { Finding } from "../scenario/rule.js";
import { loadScenario } from "../scenario/scenario.js";
import { action, UsageError } from "./errors.js";
import { loadTopologyArg } from "./topology-command.js";

/** A scenario has a timeline; anything else is a topology. */
function isScenario(file: string): boolean {
  try {
    const doc = parse(readFileSync(file, "utf8")) as unknown;
    return typeof doc === "object" && doc !== null && "timeline" in doc;
  } catch {
    return false; // the topology loader reports what is wrong with the file
  }
}

export function lintFile(file: string | undefined, machine?: MachineContext): Finding[] {
  if (file !== undefined && file !== "default" && isScenario(file))
    return lintScenario(loadScenario(file), machine);
  return lintTopology(loadTopologyArg(file, { quiet: true }), machine);
}

function positive(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} takes a positive integer, not "${v}"`);
  return n;
}

export function registerLintCommand(program: Command): void {
  program
    .command("lint")
    .argument("[file]", "a topology or a scenario YAML (default: the built-in fabric)")
    .description(
      "check a configuration against the lint rules (ECN before PFC, headroom, CNP priority, PFC end to end, QoS maps, DCQCN, watchdog, machine fit; docs/lint.md); exit 1 on errors",
    )
    .option("--json", "print the findings (or with --rules, the rules) as JSON")
    .option("--rules", "list the rules with their explanations and sources")
    .option("--dilation <n>", "also check that a live lab fits this machine at this dilation")
    .option("--cpus <n>", "with --dilation: CPUs the lab may use (default: this machine's)")
    .action(
      action(
        (
          file: string | undefined,
          opts: { json?: boolean; rules?: boolean; dilation?: string; cpus?: string },
        ) => {
          if (opts.rules) {
            const rules = RULES.map((r) => ({
              id: r.id,
              severity: r.severity,
              refusesLoad: r.refusesLoad === true,
              title: r.title,
              explanation: r.explanation,
              source: r.source,
            }));
            process.stdout.write(
              opts.json
                ? `${JSON.stringify(rules, null, 2)}\n`
                : `${rules.map((r) => `${r.id} (${r.severity}${r.refusesLoad ? ", refused at load" : ""}): ${r.title}\n  ${r.explanation}\n  source: ${r.source}`).join("\n\n")}\n`,
            );
            return;
          }
          const dilation = positive("--dilation", opts.dilation);
          const cpus = positive("--cpus", opts.cpus);
          if (cpus !== undefined && dilation === undefined)
            throw new UsageError("--cpus goes with --dilation");
          const machine =
            dilation === undefined ? undefined : { dilation, cpus: cpus ?? availableParallelism() };
          const findings = lintFile(file, machine);
          process.stdout.write(
            opts.json ? `${JSON.stringify(findings, null, 2)}\n` : formatReport(findings, file ?? "default"),
          );
          if (hasErrors(findings)) process.exitCode = 1;
        },
      ),
    );
}
