// PFC deadlock and storm commands on a running lab: `rocelab inject pfc-storm HOST` makes a host's NIC
// keep its leaf paused (nic/pfc-storm.ts), `rocelab pfc enable NODE:ethN PRIO` re-enables PFC on a switch
// port and priority the PFC watchdog switched off or latched off (switch/features/pfc-watchdog.ts), and
// `rocelab inject route SWITCH TO VIA` adds a static route to a running lab: a stale route, a routing loop.

import type { Command } from "commander";
import { DEFAULT_LAB } from "../lab/live/names.js";
import { runtimeRouteProblem } from "../scenario/static-routes.js";
import { NodeKind } from "../scenario/topology.js";
import { action, UsageError } from "./errors.js";
import { endpoint, withLab } from "./lab-commands.js";

function priorityArg(text: string): number {
  const p = Number(text);
  if (!Number.isInteger(p) || p < 0 || p > 7) throw new UsageError(`priority "${text}" is not 0..7`);
  return p;
}

export function registerPfcCommands(program: Command): void {
  const inject = program.commands.find((c) => c.name() === "inject");
  if (inject === undefined) throw new Error("register the lab commands first");
  inject
    .command("pfc-storm")
    .argument("<host>")
    .description(
      "make a host's NIC send XOFF for ever on one priority, as a broken NIC does (--stop ends it)",
    )
    .option("--priority <p>", "the stormed priority", "3")
    .option("--stop", "stop the host's storm")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(async (host: string, opts: { priority: string; stop?: boolean; name?: string }) => {
        const priority = opts.stop ? null : priorityArg(opts.priority);
        await withLab(opts, async (lab) => {
          if (!lab.topology.nodes.some((n) => n.name === host && n.kind === NodeKind.Host))
            throw new UsageError(`${host} is not a host of lab ${lab.name}`);
          await lab.pfcStorm(host, priority);
          process.stdout.write(
            priority === null
              ? `${host}: PFC storm stopped\n`
              : `${host}: PFC storm on priority ${priority}\n`,
          );
        });
      }),
    );

  inject
    .command("route")
    .argument("<switch>", "the switch that gets the route")
    .argument("<to>", "a host's name or a prefix like 10.1.0.5/32")
    .argument("[via]", "the port it leaves by, ethN")
    .description(
      "add a static route on a running lab's switch, over its computed routes (nothing stops it from looping: that is how a stale route makes a PFC deadlock); --withdraw takes it back",
    )
    .option("--withdraw", "withdraw the route to <to> added before")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(
        async (
          node: string,
          to: string,
          via: string | undefined,
          opts: { withdraw?: boolean; name?: string },
        ) => {
          if (opts.withdraw && via !== undefined) throw new UsageError("--withdraw takes no port");
          if (!opts.withdraw && via === undefined)
            throw new UsageError("give the port the route leaves by (ethN)");
          await withLab(opts, async (lab) => {
            const why = runtimeRouteProblem(lab.topology, node, to, via ?? null);
            if (why !== null) throw new UsageError(why);
            await lab.staticRoute(node, to, via ?? null);
            process.stdout.write(
              via === undefined ? `${node}: route to ${to} withdrawn\n` : `${node}: ${to} via ${via}\n`,
            );
          });
        },
      ),
    );

  const pfc = program.command("pfc").description("PFC on a running lab's switches");
  pfc
    .command("enable")
    .argument("<endpoint>", "NODE:ethN of a switch")
    .argument("<priority>", "0..7")
    .description("re-enable PFC and the watchdog on a port and priority the PFC watchdog switched off")
    .option("--name <name>", "lab name", DEFAULT_LAB)
    .action(
      action(async (text: string, prio: string, opts: { name?: string }) => {
        const priority = priorityArg(prio);
        await withLab(opts, async (lab) => {
          const { node, port } = endpoint(text, lab);
          if (!lab.topology.nodes.some((n) => n.name === node && n.kind === NodeKind.Switch))
            throw new UsageError(`${node} is not a switch`);
          await lab.pfcEnable(node, port, priority);
          process.stdout.write(`${node}:eth${port} priority ${priority}: PFC enabled\n`);
        });
      }),
    );
}
