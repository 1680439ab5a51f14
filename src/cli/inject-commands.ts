// `rocelab inject …`: break things on purpose in a running lab. Each subcommand is the command-line form of
// one lab action (scenario/action.ts): it checks its arguments against the lab, builds the action, has the
// lab carry it out and prints what it did. `inject incast` (with --wait) is incast-command.ts.

import type { Command } from "commander";
import { formatRate, parseRate } from "../device/units.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import {
  describeAction,
  type LabAction,
  THRESHOLD_PRESETS,
  type ThresholdPreset,
} from "../scenario/action.js";
import { switchChange } from "../scenario/settings-layers.js";
import { runtimeRouteProblem } from "../scenario/static-routes.js";
import { NodeKind } from "../scenario/topology.js";
import { action, UsageError } from "./errors.js";
import { registerIncastCommand } from "./incast-command.js";
import { endpoint, LAB_NAME_HELP, withLab } from "./with-lab.js";

/** A priority argument, 0..7. */
export function priorityArg(text: string): number {
  const p = Number(text);
  if (!Number.isInteger(p) || p < 0 || p > 7) throw new UsageError(`priority "${text}" is not 0..7`);
  return p;
}

/** Connects, builds the action against the lab, applies it and prints it (or `say`'s line). */
function inject(
  opts: { name?: string },
  build: (lab: LiveLab) => LabAction | Promise<LabAction>,
  say: (a: LabAction, lab: LiveLab) => string | Promise<string> = (a) => describeAction(a),
): Promise<void> {
  return withLab(opts, async (lab) => {
    const a = await build(lab);
    await lab.apply(a);
    process.stdout.write(`${await say(a, lab)}\n`);
  });
}

function hostOf(lab: LiveLab, host: string): string {
  if (!lab.topology.nodes.some((n) => n.name === host && n.kind === NodeKind.Host))
    throw new UsageError(`${host} is not a host of lab ${lab.name}`);
  return host;
}

export function registerInjectCommands(program: Command): void {
  const cmd = program.command("inject").description("break things on purpose in a running lab");
  const sub = (name: string) => cmd.command(name).option("--name <name>", LAB_NAME_HELP);
  registerIncastCommand(cmd);

  for (const [name, up] of [
    ["link-down", false],
    ["link-up", true],
  ] as const) {
    sub(name)
      .argument("<endpoint>", "NODE:ethN (either end of the link)")
      .description(up ? "bring a link back" : "take a link down (both ends lose carrier; routes reconverge)")
      .action(
        action((text: string, opts: { name?: string }) =>
          inject(opts, (lab) => ({ kind: "link", ...endpoint(text, lab), up })),
        ),
      );
  }
  for (const [name, running] of [
    ["kill", false],
    ["restart", true],
  ] as const) {
    sub(name)
      .argument("<node>")
      .description(
        running
          ? "restart a killed or crashed device process"
          : "SIGKILL a device process (the supervisor reports it; `inject restart` brings it back)",
      )
      .action(
        action((node: string, opts: { name?: string }) =>
          inject(opts, () => ({ kind: "device", node, running })),
        ),
      );
  }

  sub("udp")
    .description("kernel UDP (dgram-as-promised) from one host to another: lossy traffic sharing the fabric")
    .requiredOption("--from <host>")
    .requiredOption("--to <host>")
    .option("--rate <rate>", "emulated rate (the real rate is divided by the dilation)", "10G")
    .option("--size <bytes>", "datagram payload", "1000")
    .option("--seconds <s>", "real seconds to run (default: until `inject stop`)")
    .action(
      action(
        (opts: { from: string; to: string; rate: string; size: string; seconds?: string; name?: string }) => {
          const rateBps = parseRate(opts.rate);
          if (rateBps === null)
            throw new UsageError(`--rate "${opts.rate}" is not a rate (for example 10G, 500M)`);
          let dilation = 1;
          return inject(
            opts,
            async (lab) => {
              dilation = (await lab.request<LabStatus>("status")).dilation;
              const durationNs = opts.seconds ? (Number(opts.seconds) * 1e9) / dilation : undefined;
              return {
                kind: "udp",
                from: opts.from,
                to: opts.to,
                rateBps,
                size: Number(opts.size),
                ...(durationNs ? { durationNs } : {}),
              };
            },
            () =>
              `UDP ${opts.from} -> ${opts.to} at ${formatRate(rateBps)}b/s emulated (${formatRate(rateBps / dilation)}b/s real)`,
          );
        },
      ),
    );

  sub("stop")
    .description("stop every workload and UDP stream")
    .action(action((opts: { name?: string }) => inject(opts, () => ({ kind: "stop", workloads: "all" }))));

  sub("preset")
    .argument("<preset>", THRESHOLD_PRESETS.join(" | "))
    .description("apply a switch threshold preset (ECN and PFC thresholds, docs/tuning.md) to every switch")
    .action(
      action((preset: string, opts: { name?: string }) => {
        if (!(THRESHOLD_PRESETS as readonly string[]).includes(preset))
          throw new UsageError(`preset must be one of ${THRESHOLD_PRESETS.join(", ")}`);
        return inject(opts, () => ({
          kind: "set",
          change: switchChange({ profile: preset as ThresholdPreset }),
        }));
      }),
    );

  sub("pfc-storm")
    .argument("<host>")
    .description(
      "make a host's NIC send XOFF for ever on one priority, as a broken NIC does (--stop ends it)",
    )
    .option("--priority <p>", "the stormed priority", "3")
    .option("--stop", "stop the host's storm")
    .action(
      action((host: string, opts: { priority: string; stop?: boolean; name?: string }) => {
        const priority = opts.stop ? null : priorityArg(opts.priority);
        return inject(opts, (lab) => ({ kind: "pfc-storm", host: hostOf(lab, host), priority }));
      }),
    );

  sub("route")
    .argument("<switch>", "the switch that gets the route")
    .argument("<to>", "a host's name or a prefix like 10.1.0.5/32")
    .argument("[via]", "the port it leaves by, ethN")
    .description(
      "add a static route on a running lab's switch, over its computed routes (nothing stops it from looping: that is how a stale route makes a PFC deadlock); --withdraw takes it back",
    )
    .option("--withdraw", "withdraw the route to <to> added before")
    .action(
      action(
        (node: string, to: string, via: string | undefined, opts: { withdraw?: boolean; name?: string }) => {
          if (opts.withdraw && via !== undefined) throw new UsageError("--withdraw takes no port");
          if (!opts.withdraw && via === undefined)
            throw new UsageError("give the port the route leaves by (ethN)");
          return inject(opts, (lab) => {
            const why = runtimeRouteProblem(lab.topology, node, to, via ?? null);
            if (why !== null) throw new UsageError(why);
            return { kind: "route", node, to, via: via ?? null };
          });
        },
      ),
    );
}
