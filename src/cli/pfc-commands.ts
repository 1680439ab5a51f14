// `rocelab pfc enable NODE:ethN PRIO` re-enables PFC on a switch port and priority the PFC watchdog switched
// off or latched off (switch/features/pfc-watchdog.ts), as an operator restores it on a switch.

import type { Command } from "commander";
import { describeAction } from "../scenario/action.js";
import { NodeKind } from "../scenario/topology.js";
import { action, UsageError } from "./errors.js";
import { priorityArg } from "./inject-commands.js";
import { endpoint, LAB_NAME_HELP, withLab } from "./with-lab.js";

export function registerPfcCommands(program: Command): void {
  const pfc = program.command("pfc").description("PFC on a running lab's switches");
  pfc
    .command("enable")
    .argument("<endpoint>", "NODE:ethN of a switch")
    .argument("<priority>", "0..7")
    .description(
      "re-enable PFC and the watchdog on a port and priority the PFC watchdog switched off (h3c: the port)",
    )
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action(async (text: string, prio: string, opts: { name?: string }) => {
        const priority = priorityArg(prio);
        await withLab(opts, async (lab) => {
          const { node, port } = endpoint(text, lab);
          if (!lab.topology.nodes.some((n) => n.name === node && n.kind === NodeKind.Switch))
            throw new UsageError(`${node} is not a switch`);
          const a = { kind: "pfc-enable", node, port, priority } as const;
          await lab.apply(a);
          process.stdout.write(`${describeAction(a)}\n`);
        });
      }),
    );
}
