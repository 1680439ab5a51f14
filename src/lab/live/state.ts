// The lab's state file, /run/rocelab/<lab>/state.json: what was created and which processes run, written
// before anything is created (so a crash half-way through leaves a record `down` can follow).

import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { labNameProblem, makeLabDir, RUN_DIR, statePath } from "./names.js";

export interface DeviceProcessState {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly namespace: string;
  pid: number | null;
  status: "starting" | "running" | "crashed" | "killed" | "stopped" | "unreachable";
  restarts: number;
  exitCode?: number | null;
  exitSignal?: string | null;
}

export interface LabState {
  readonly lab: string;
  readonly createdAt: string;
  readonly topology: string;
  readonly dilation: number;
  /** process.hrtime.bigint() at emulated time 0 (decimal string). */
  readonly epoch: string;
  readonly namespaces: readonly string[];
  supervisorPid: number | null;
  status: "provisioning" | "starting" | "running" | "stopping" | "failed";
  devices: Record<string, DeviceProcessState>;
  /** Helper processes started for injections (UDP senders and receivers). */
  helpers: { readonly name: string; readonly namespace: string; pid: number | null }[];
  /** `rocelab attach`: the endpoints file; the devices are not this lab's to stop. */
  readonly attached?: string;
}

export function readState(lab: string): LabState | null {
  const path = statePath(lab);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as LabState;
  } catch {
    return null;
  }
}

/** Atomic: write a temporary file, then rename over the old one. */
export function writeState(state: LabState): void {
  makeLabDir(state.lab);
  const path = statePath(state.lab);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Labs with a state directory (not the directories of kept logs, which no lab name can be). */
export function listLabDirs(): string[] {
  if (!existsSync(RUN_DIR)) return [];
  return readdirSync(RUN_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && labNameProblem(d.name) === null)
    .map((d) => d.name);
}

/** Labs whose logs are kept after an abnormal end (names.ts keptLogDir). */
export function listKeptLogs(): string[] {
  if (!existsSync(RUN_DIR)) return [];
  return readdirSync(RUN_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.endsWith(".logs"))
    .map((d) => d.name.slice(0, -".logs".length))
    .filter((lab) => labNameProblem(lab) === null);
}

/** Is `pid` alive (and ours to signal)? */
export function alive(pid: number | null | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
