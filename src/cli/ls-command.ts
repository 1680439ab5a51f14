// `rocelab ls`: the labs on this machine; `rocelab exec NODE -- CMD…`: a command inside a node's namespace
// (what `ip netns exec rl-<lab>-<node> CMD` does, without the prefix to remember).

import type { Command } from "commander";
import { execa } from "execa";
import { formatDuration } from "../device/units.js";
import { type LabListing, listLabs } from "../lab/live/lab-list.js";
import { NS_PREFIX, nsName } from "../lab/live/names.js";
import { readState } from "../lab/live/state.js";
import { action, UsageError } from "./errors.js";
import { LAB_NAME_HELP, labName, print, requireRoot } from "./with-lab.js";

export function registerLsCommands(program: Command): void {
  program
    .command("ls")
    .description("every lab on this machine: status, devices, dilation, how far behind, metrics address")
    .option("--json", "print JSON")
    .action(
      action(async (opts: { json?: boolean }) => {
        requireRoot("rocelab ls");
        const labs = await listLabs();
        print(opts.json, labs, () => formatListing(labs));
      }),
    );

  program
    .command("exec")
    .argument("<node>", "a device of the lab (host or switch)")
    .argument("<command...>", "the command and its arguments, after -- (rocelab exec h1 -- ping -c 3 h8)")
    .description("run a command in a node's network namespace (node names resolve there: ping h8)")
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action(async (node: string, command: string[], opts: { name?: string }) => {
        requireRoot("rocelab exec");
        process.exitCode = await runInNode(labName(opts), node, command, "inherit");
      }),
    );
}

/** The namespace of `node` in the running lab `lab`, or a usage error naming the lab's nodes. */
export function nodeNamespace(lab: string, node: string): string {
  const state = readState(lab);
  if (state === null) throw new UsageError(`no lab "${lab}" is running (start one with \`rocelab up\`)`, 1);
  const ns = nsName(lab, node);
  if (!state.namespaces.includes(ns)) {
    const nodes = state.namespaces.map((n) => n.slice(`${NS_PREFIX}${lab}-`.length));
    throw new UsageError(`no node ${node} in lab ${lab} (nodes: ${nodes.join(", ")})`);
  }
  return ns;
}

/**
 * Runs `command` in `node`'s namespace with the terminal's output, and `stdin` as its input (`rocelab
 * cli` reading a script gives "ignore": the command must not eat the script's next lines); its exit status.
 */
export async function runInNode(
  lab: string,
  node: string,
  command: readonly string[],
  stdin: "inherit" | "ignore",
): Promise<number> {
  const ns = nodeNamespace(lab, node);
  const r = await execa("ip", ["netns", "exec", ns, ...command], {
    stdin,
    stdout: "inherit",
    stderr: "inherit",
    reject: false,
  });
  if (r.failed && r.exitCode === undefined)
    throw new UsageError(`${command[0]}: ${r.shortMessage ?? "could not be run"}`, 127);
  return r.exitCode ?? 1;
}

/** One line per lab, under a header. */
export function formatListing(labs: readonly LabListing[]): string {
  if (labs.length === 0) return "no labs (start one with `rocelab up`)";
  const rows = labs.map((l) => [
    l.lab,
    l.status,
    l.devices === undefined ? "-" : String(l.devices),
    l.links === undefined ? "-" : String(l.links),
    l.dilation === undefined ? "-" : `${l.dilation}${l.dilationAuto ? " (auto)" : ""}`,
    l.behindNs === undefined ? "-" : formatDuration(l.behindNs),
    l.upSince ?? "-",
    l.metrics ?? (l.attached !== undefined ? `attached: ${l.attached}` : "-"),
    l.topology ?? "-",
  ]);
  const header = [
    "LAB",
    "STATUS",
    "DEVICES",
    "LINKS",
    "DILATION",
    "BEHIND",
    "UP SINCE",
    "METRICS",
    "TOPOLOGY",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
