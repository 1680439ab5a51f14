// Names of everything a live lab creates. Every namespace carries the lab's prefix (rl-<lab>-<node>), every
// device process carries `--lab <lab>` on its command line and `rocelab-<lab>-<node>` as its title, and
// the lab's state lives in /run/rocelab/<lab>/. `down` finds leftovers by these marks alone.

import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export const RUN_DIR = process.env.ROCELAB_RUN_DIR ?? "/run/rocelab";
export const NS_PREFIX = "rl-";
export const DEFAULT_LAB = "rocelab";

const LAB_NAME = /^[a-z][a-z0-9]{0,15}$/;

/** Null when `name` is a valid lab name, else what is wrong with it. */
export function labNameProblem(name: string): string | null {
  return LAB_NAME.test(name)
    ? null
    : `lab name "${name}" must be 1-16 lowercase letters and digits, starting with a letter`;
}

export function nsName(lab: string, node: string): string {
  return `${NS_PREFIX}${lab}-${node}`;
}

/** The lab a namespace belongs to, if it is one of ours. */
export function labOfNamespace(ns: string, knownLabs?: readonly string[]): string | null {
  if (!ns.startsWith(NS_PREFIX)) return null;
  const rest = ns.slice(NS_PREFIX.length);
  if (knownLabs) {
    for (const lab of knownLabs) if (rest.startsWith(`${lab}-`)) return lab;
  }
  const dash = rest.indexOf("-");
  return dash > 0 ? rest.slice(0, dash) : null;
}

export function labDir(lab: string): string {
  return join(RUN_DIR, lab);
}

/**
 * Creates the lab's state directory, and /run/rocelab above it, private to root (0700): state, logs, the
 * control socket and the shared clock tables are nobody else's business on a shared machine.
 */
export function makeLabDir(lab: string): string {
  mkdirSync(RUN_DIR, { recursive: true, mode: 0o700 });
  chmodSync(RUN_DIR, 0o700);
  const dir = labDir(lab);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

export function statePath(lab: string): string {
  return join(labDir(lab), "state.json");
}

/** The clock table synced device clocks share (mapped by every device process of the lab). */
export function clockTablePath(lab: string): string {
  return join(labDir(lab), "clock");
}

/** The lab's dilation over time (runtime/realtime/dilation.ts), shared by its processes. */
export function dilationTablePath(lab: string): string {
  return join(labDir(lab), "dilation");
}

export function controlSocketPath(lab: string): string {
  return join(labDir(lab), "control.sock");
}

export function logPath(lab: string, who: string): string {
  return join(labDir(lab), `${who}.log`);
}

/**
 * Where a lab's logs are kept after it ended abnormally (a crash, a failed start, a supervisor that had to
 * be killed): beside the labs' directories, under a name no lab can have. Removed by the next `up` of the
 * lab, or `down --purge`.
 */
export function keptLogDir(lab: string): string {
  return join(RUN_DIR, `${lab}.logs`);
}

/** A log of `who` as it is kept (keptLogDir). */
export function keptLogPath(lab: string, who: string): string {
  return join(keptLogDir(lab), `${who}.log`);
}

/** Kernel-facing interface of a host (its kernel IP stack), and the NIC's side of that pair. */
export const HOST_KERNEL_IF = "host0";
export const HOST_NIC_IF = "nic0";
/** The NIC's port number for its host-stack side (port 1 is the wire). */
export const NIC_HOST_PORT = 2;
