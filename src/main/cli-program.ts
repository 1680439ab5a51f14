// The `rocelab` command: its program, run by main/cli.ts (the compiled tree) and by the bundle's CommonJS
// build of the CLI, which starts from V8's code cache (scripts/bundle.mjs, main/code-cache-entry.ts).
import { Command } from "commander";
import { registerAttachCommands } from "../cli/attach-command.js";
import { registerChaosCommand } from "../cli/chaos-command.js";
import { registerCompareCommand } from "../cli/compare-command.js";
import { registerDilationCommand } from "../cli/dilation-command.js";
import { registerEventsCommand } from "../cli/events-command.js";
import { registerExportCommands } from "../cli/export-command.js";
import { registerFramesCommand } from "../cli/frames-command.js";
import { registerGrafanaCommand } from "../cli/grafana-command.js";
import { registerInjectCommands } from "../cli/inject-commands.js";
import { registerLabCommands } from "../cli/lab-commands.js";
import { registerLintCommand } from "../cli/lint-command.js";
import { registerLsCommands } from "../cli/ls-command.js";
import { registerPathNavCommands } from "../cli/path-nav-command.js";
import { registerPcapCheckCommand } from "../cli/pcap-check-command.js";
import { registerPfcCommands } from "../cli/pfc-commands.js";
import { registerPlotCommand } from "../cli/plot-command.js";
import { registerReportCommand } from "../cli/report-command.js";
import { registerRunCommand } from "../cli/run-command.js";
import { registerShellCommand } from "../cli/shell-command.js";
import { registerTopologyCommand } from "../cli/topology-command.js";
import { registerTuiCommand } from "../cli/tui-command.js";
import { registerTuneCommand } from "../cli/tune-command.js";

/** Parses `argv` (process.argv) and runs the command it names. */
export async function main(argv: readonly string[]): Promise<void> {
  // One exit-status convention for every command (docs/configuration.md, "Exit status"): 0 done, 2 bad
  // input (commander's own usage errors included, which it would end with 1), 1 a failure.
  const program = buildProgram((code) => process.exit(code));
  await program.parseAsync([...argv]);
}

/**
 * The whole `rocelab` program. `exit` is called where commander would end the process (help, usage
 * errors); `rocelab cli` builds one per line it runs and throws there instead, so the prompt stays.
 */
export function buildProgram(exit: (code: number) => never): Command {
  const program = new Command();
  program
    .name("rocelab")
    .description(
      "A RoCEv2 lossless data-center network testbed: userspace switches and RDMA NICs on real frames.",
    )
    .showHelpAfterError()
    .exitOverride((err) => exit(err.exitCode === 0 ? 0 : 2));

  registerTopologyCommand(program);
  registerRunCommand(program);
  registerLabCommands(program);
  registerLsCommands(program);
  registerInjectCommands(program);
  registerDilationCommand(program);
  registerChaosCommand(program);
  registerPathNavCommands(program);
  registerPfcCommands(program);
  registerFramesCommand(program);
  registerPcapCheckCommand(program);
  registerPlotCommand(program);
  registerTuiCommand(program);
  registerEventsCommand(program);
  registerLintCommand(program);
  registerReportCommand(program);
  registerGrafanaCommand(program);
  registerTuneCommand(program);
  registerCompareCommand(program);
  registerAttachCommands(program);
  registerExportCommands(program);
  registerShellCommand(program, buildProgram);
  return program;
}
