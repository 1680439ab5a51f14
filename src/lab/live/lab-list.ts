// The labs on this machine, for `rocelab ls` and for commands that were given no --name: a lab whose
// supervisor answers is listed with what `status` says of it; one that does not (a crash's leftovers, a lab
// still coming up or going down) with what its state file and the system show.

import type { LabStatus } from "./lab-status.js";
import { LiveLab, labIsRunning } from "./live-lab.js";
import { findAllLabs } from "./provision.js";
import type { LabState } from "./state.js";
import { listLabDirs, readState } from "./state.js";

export interface LabListing {
  readonly lab: string;
  /** The supervisor's status; "leftovers": namespaces, processes or state of a lab that is not running. */
  readonly status: LabState["status"] | "leftovers" | "not answering";
  /** The topology file or "default" (from the state file). */
  readonly topology?: string;
  readonly devices?: number;
  readonly links?: number;
  /** When `up` created it (ISO 8601). */
  readonly upSince?: string;
  readonly dilation?: number;
  readonly dilationAuto?: boolean;
  /** How far the lab's emulated clock is behind real time / dilation, ns. */
  readonly behindNs?: number;
  readonly metrics?: string;
  readonly attached?: string;
}

/** Names of the labs whose supervisor is alive, sorted. Root only (the state directory is 0700). */
export function runningLabs(): string[] {
  if (process.getuid?.() !== 0) return [];
  return listLabDirs().filter(labIsRunning).sort();
}

/** Every lab of ours on this machine, running or not, asking each running one for its status. */
export async function listLabs(timeoutMs = 3000): Promise<LabListing[]> {
  const out: LabListing[] = [];
  for (const lab of await findAllLabs()) {
    const state = readState(lab);
    const base = {
      lab,
      ...(state !== null
        ? { topology: state.topology, upSince: state.createdAt, dilation: state.dilation }
        : {}),
    };
    if (!labIsRunning(lab)) {
      out.push({ ...base, status: "leftovers" });
      continue;
    }
    const s = await askStatus(lab, timeoutMs);
    if (s === null) {
      out.push({ ...base, status: "not answering" });
      continue;
    }
    out.push({
      ...base,
      status: s.status,
      topology: s.topology,
      devices: s.devices.length,
      links: s.links.length,
      dilation: s.dilation,
      dilationAuto: s.dilationAuto,
      behindNs: s.behindNs,
      ...(s.metrics !== undefined ? { metrics: s.metrics } : {}),
      ...(s.attached !== undefined ? { attached: s.attached } : {}),
    });
  }
  return out;
}

async function askStatus(lab: string, timeoutMs: number): Promise<LabStatus | null> {
  const live = await LiveLab.connect(lab).catch(() => null);
  if (live === null) return null;
  try {
    return await live.request<LabStatus>("status", undefined, timeoutMs);
  } catch {
    return null;
  } finally {
    await live.close();
  }
}
