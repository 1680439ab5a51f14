// How every command that works on a running lab reaches it: the lab's name, root where the command needs
// it, NODE:ethN endpoints checked against the lab's topology, and
// a connection that is closed whatever happens.

import { runningLabs } from "../lab/live/lab-list.js";
import { LiveLab } from "../lab/live/live-lab.js";
import { DEFAULT_LAB, labNameProblem } from "../lab/live/names.js";
import { UsageError } from "./errors.js";

/** What `--name` says for commands that act on a running lab (`up` names a new one and keeps its default). */
export const LAB_NAME_HELP = `lab name (default: the only running lab, else ${DEFAULT_LAB})`;

/**
 * The lab a command acts on: `--name`, else the only running lab, else `rocelab` (whose absence the command
 * then reports). With several labs running and no `--name` it refuses, naming them.
 */
export function labName(opts: { name?: string }): string {
  const name = opts.name ?? defaultLab();
  const problem = labNameProblem(name);
  if (problem) throw new UsageError(problem);
  return name;
}

function defaultLab(): string {
  const running = runningLabs();
  if (running.length <= 1) return running[0] ?? DEFAULT_LAB;
  throw new UsageError(`${running.length} labs are running (${running.join(", ")}): say which with --name`);
}

export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) {
    throw new UsageError(`${what} needs root (network namespaces, veth, raw sockets): run it with sudo`, 1);
  }
}

/** "node:ethN" -> {node, port}, checked against the lab's topology. */
export function endpoint(text: string, lab: LiveLab): { node: string; port: number } {
  const m = /^([A-Za-z][\w-]*):eth([1-9]\d*)$/.exec(text);
  if (!m) throw new UsageError(`"${text}" is not NODE:ethN (for example leaf1:eth1)`);
  const node = lab.topology.nodes.find((n) => n.name === m[1]);
  if (!node)
    throw new UsageError(
      `no node ${m[1]} in lab ${lab.name} (nodes: ${lab.topology.nodes.map((n) => n.name).join(", ")})`,
    );
  const port = Number(m[2]);
  if (!node.ports.includes(port))
    throw new UsageError(
      `${m[1]} has no connected eth${port} (ports: ${node.ports.map((p) => `eth${p}`).join(", ")})`,
    );
  return { node: m[1]!, port };
}

export async function withLab<T>(opts: { name?: string }, fn: (lab: LiveLab) => Promise<T>): Promise<T> {
  const lab = await LiveLab.connect(labName(opts)).catch((e: Error) => {
    throw new UsageError(e.message, 1);
  });
  try {
    return await fn(lab);
  } finally {
    await lab.close();
  }
}

/** Prints `data` as JSON with --json, else `text()`. */
export function print(json: boolean | undefined, data: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text()}\n`);
}
