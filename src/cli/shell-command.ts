// `rocelab cli`: an interactive prompt on a running lab in the manner of Mininet's CLI (`h1 ping h8`,
// `pingall`, `nodes`, `net`, `links`, `link leaf1 spine1 down`), with rocelab's own commands on the lab
// (`stats leaf2`, `incast --to h8`, `inject …`). Every command is the CLI's: a line is run by the same
// commander program as `rocelab` itself (built anew per line), `NODE CMD…` by `rocelab exec`'s code. History
// is kept per lab in its state directory; Tab completes commands and node names (node:readline).

import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Command } from "commander";
import type { TopologyView } from "../lab/lab.js";
import { LiveLab } from "../lab/live/live-lab.js";
import { labDir, nsName } from "../lab/live/names.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { writeNewFile } from "../runtime/realtime/safe-files.js";
import { NodeKind } from "../scenario/topology.js";
import { action, UsageError } from "./errors.js";
import { nodeNamespace, runInNode } from "./ls-command.js";
import {
  formatLinks,
  formatNet,
  formatNodes,
  formatPingAll,
  linksBetween,
  neighbours,
  pingAll,
} from "./shell-net.js";
import { completeShell, parseShellLine, type ShellLine, shellHelp, withLabName } from "./shell-parse.js";
import { pingEmulated } from "./shell-ping.js";
import { LAB_NAME_HELP, labName, requireRoot } from "./with-lab.js";

/** Lines of history kept per lab. */
export const HISTORY_LINES = 1000;

/** Builds the `rocelab` program; `exit` replaces process.exit where commander would end the process. */
export type ProgramFactory = (exit: (code: number) => never) => Command;

/** Where commander would have ended the process: the prompt goes on. */
class ProgramExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export function registerShellCommand(program: Command, build: ProgramFactory): void {
  program
    .command("cli")
    .description(
      "an interactive prompt on a running lab, as Mininet's: h1 ping h8, pingall, nodes, net, links, link leaf1 spine1 down, stats leaf2, incast ... (help lists them)",
    )
    .option("--name <name>", LAB_NAME_HELP)
    .action(
      action(async (opts: { name?: string }) => {
        requireRoot("rocelab cli");
        await runShell(labName(opts), build);
      }),
    );
}

/** The lab's topology, or the usage error every lab command gives when it is not running. */
async function topologyOf(lab: string): Promise<TopologyView> {
  const live = await LiveLab.connect(lab).catch((e: Error) => {
    throw new UsageError(e.message, 1);
  });
  try {
    return live.topology;
  } finally {
    await live.close();
  }
}

export function historyPath(lab: string): string {
  return join(labDir(lab), "cli-history");
}

/** The lab's history, oldest first; none when there is no file (or a link where it would be). */
export function readHistory(lab: string): string[] {
  let fd: number;
  try {
    fd = openSync(historyPath(lab), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return [];
  }
  try {
    return readFileSync(fd, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .slice(-HISTORY_LINES);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the history file (a new file renamed into place: never written through a link). */
export function writeHistory(lab: string, lines: readonly string[]): void {
  writeNewFile(historyPath(lab), `${lines.slice(-HISTORY_LINES).join("\n")}\n`, { force: true });
}

async function runShell(lab: string, build: ProgramFactory): Promise<void> {
  const topo = await topologyOf(lab);
  const nodes = topo.nodes.map((n) => n.name);
  const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
  const ctx = { nodes, hosts, neighbours: neighbours(topo) };
  const tty = process.stdin.isTTY === true;
  const history = readHistory(lab);
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: tty,
    prompt: `rocelab:${lab}> `,
    completer: (line: string) => completeShell(line, ctx),
    // readline's history is newest first.
    history: [...history].reverse(),
    historySize: HISTORY_LINES,
    removeHistoryDuplicates: true,
  });
  if (tty) process.stdout.write(`rocelab cli on lab ${lab}: help lists the commands, Tab completes them\n`);
  let status = 0;
  rl.prompt();
  for await (const line of rl) {
    if (line.trim() !== "" && history[history.length - 1] !== line) {
      history.push(line);
      writeHistory(lab, history);
    }
    const parsed = parseShellLine(line, nodes);
    if (parsed.kind === "exit") break;
    const code = await runQuiet(rl, tty, () => runLine(parsed, lab, topo, build, tty));
    if (code !== 0) status = code;
    rl.prompt();
  }
  rl.close();
  if (tty) process.stdout.write("\n");
  // Read from a script: the status of the last command that failed (0 when none did).
  process.exitCode = tty ? 0 : status;
}

/**
 * Runs one command with the terminal given to it: out of raw mode, so that Ctrl-C reaches the command
 * (and the prompt survives it).
 */
async function runQuiet(rl: Interface, tty: boolean, run: () => Promise<number>): Promise<number> {
  const ignore = (): void => {};
  process.on("SIGINT", ignore);
  if (tty) {
    rl.pause();
    process.stdin.setRawMode(false);
  }
  try {
    return await run();
  } catch (e) {
    process.stderr.write(`rocelab: ${e instanceof UsageError ? e.message : ((e as Error).stack ?? e)}\n`);
    return e instanceof UsageError ? e.exitCode : 1;
  } finally {
    if (tty) {
      process.stdin.setRawMode(true);
      rl.resume();
    }
    process.off("SIGINT", ignore);
  }
}

/** Runs what a line asks for; its exit status. */
async function runLine(
  line: ShellLine,
  lab: string,
  topo: TopologyView,
  build: ProgramFactory,
  tty: boolean,
): Promise<number> {
  const out = (text: string): number => {
    process.stdout.write(`${text}\n`);
    return 0;
  };
  switch (line.kind) {
    case "empty":
    case "exit":
      return 0;
    case "error":
      process.stderr.write(`${line.message}\n`);
      return 2;
    case "help":
      return out(shellHelp(lab));
    case "nodes":
      return out(formatNodes(topo));
    case "net":
      return out(formatNet(topo));
    case "links": {
      const live = await LiveLab.connect(lab);
      try {
        return out(formatLinks((await live.request<LabStatus>("status")).links));
      } finally {
        await live.close();
      }
    }
    case "pingall": {
      const hosts = topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
      return out(formatPingAll(await pingAll(hosts, (h) => nsName(lab, h))));
    }
    case "link": {
      const between = linksBetween(topo, line.a, line.b);
      if (between.length === 0) throw new UsageError(`no link between ${line.a} and ${line.b}`);
      let code = 0;
      for (const l of between)
        code ||= await runProgram(
          build,
          withLabName(["inject", line.up ? "link-up" : "link-down", l.a], lab),
        );
      return code;
    }
    case "exec":
      return runInNode(lab, line.node, line.argv, tty ? "inherit" : "ignore");
    case "ping":
      nodeNamespace(lab, line.node);
      return pingEmulated(lab, line.node, line.argv);
    case "rocelab":
      return runProgram(build, withLabName(line.argv, lab));
  }
}

/** Runs `rocelab ARGV…` in this process, with the program's own actions; its exit status. */
async function runProgram(build: ProgramFactory, argv: readonly string[]): Promise<number> {
  const program = build((code) => {
    throw new ProgramExit(code);
  });
  process.exitCode = undefined;
  try {
    await program.parseAsync(["node", "rocelab", ...argv]);
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof ProgramExit) return e.code;
    throw e;
  } finally {
    process.exitCode = undefined;
  }
}
