// `rocelab lint TOPOLOGY|SCENARIO`: checks a configuration against seed 002's best practices for lossless
// RoCE (lab/lint/best-practices.ts) and exits 1 if any finding is an error. `up` and `run` print the same
// findings as warnings before they start (printFindingsAsWarnings).

import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { parse } from "yaml";
import { type Finding, hasErrors, lintScenario, lintTopology, RULES } from "../lab/lint/best-practices.js";
import { loadScenario } from "../lab/scenario.js";
import { action } from "./errors.js";
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

export function lintFile(file: string | undefined): Finding[] {
  if (file !== undefined && file !== "default" && isScenario(file)) return lintScenario(loadScenario(file));
  return lintTopology(loadTopologyArg(file));
}

export function formatFinding(f: Finding): string {
  return `${f.severity.padEnd(7)} ${f.id}  ${f.path}\n        ${f.message}\n        fix: ${f.fix}`;
}

/** What `up` and `run` print before they start: every finding, as a warning (they run anyway). */
export function printFindingsAsWarnings(findings: readonly Finding[], write: (s: string) => void): void {
  const shown = findings.filter((f) => f.severity !== "info");
  if (shown.length === 0) return;
  write(`lint: ${shown.length} finding(s) against lossless best practices (rocelab lint for details):\n`);
  for (const f of shown) write(`  warning: [${f.id}] ${f.path}: ${f.message}\n`);
}

export function registerLintCommand(program: Command): void {
  program
    .command("lint")
    .argument("[file]", "a topology or a scenario YAML (default: the built-in fabric)")
    .description(
      "check a configuration against lossless-RoCE best practices (ECN before PFC, headroom, CNP priority, PFC end to end, DCQCN, watchdog); exit 1 on errors",
    )
    .option("--json", "print the findings as JSON")
    .option("--rules", "list the rules with their explanations")
    .action(
      action((file: string | undefined, opts: { json?: boolean; rules?: boolean }) => {
        if (opts.rules) {
          const rules = RULES.map(({ id, severity, title, explanation }) => ({
            id,
            severity,
            title,
            explanation,
          }));
          process.stdout.write(
            opts.json
              ? `${JSON.stringify(rules, null, 2)}\n`
              : `${rules.map((r) => `${r.id} (${r.severity}): ${r.title}\n  ${r.explanation}`).join("\n\n")}\n`,
          );
          return;
        }
        const findings = lintFile(file);
        if (opts.json) process.stdout.write(`${JSON.stringify(findings, null, 2)}\n`);
        else if (findings.length === 0) process.stdout.write(`${file ?? "default"}: no findings\n`);
        else {
          const errors = findings.filter((f) => f.severity === "error").length;
          const warnings = findings.filter((f) => f.severity === "warning").length;
          process.stdout.write(
            `${findings.map(formatFinding).join("\n")}\n\n${errors} error(s), ${warnings} warning(s), ${findings.length - errors - warnings} note(s)\n`,
          );
        }
        if (hasErrors(findings)) process.exitCode = 1;
      }),
    );
}
