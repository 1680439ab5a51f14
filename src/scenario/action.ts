// The lab action language: everything one can do to a running fabric, as data. A scenario's timeline is a
// list of steps, each an emulated time and an action; the CLI's `inject` commands, the TUI's keys and the
// chaos generator produce the same actions. Each runtime carries them out with one handler per kind
// (lab/sim/sim-actions.ts in virtual time, lab/live/live-actions.ts in the live lab's supervisor), so an
// action means the same in both. A new action is a member here, a handler in each of those two files, its
// CLI or TUI form, and its test (docs/architecture.md, "Adding a lab action").

import { formatDuration, formatRate, formatSize } from "../device/units.js";
import type { WorkloadSpec } from "../nic/workloads.js";
import type { SettingsChange } from "./settings-layers.js";

/** The switch threshold presets (profiles.ts): the switch defaults and the DCQCN tuning article's table. */
export const THRESHOLD_PRESETS = ["default", "aggressive", "balanced", "conservative"] as const;
export type ThresholdPreset = (typeof THRESHOLD_PRESETS)[number];

export type LabAction =
  /**
   * Posts a workload's flows. `stream` names its random stream (both runtimes post the same flows for the
   * same stream; default `workload:<name>`); `at`, the lab's emulated time the flows start from (default:
   * when the action is carried out).
   */
  | {
      readonly kind: "start";
      readonly workload: WorkloadSpec;
      readonly stream?: string;
      readonly at?: number;
    }
  /** An N-to-1 incast of RDMA WRITEs: the senders are the first N hosts other than `to`, or the named ones. */
  | {
      readonly kind: "incast";
      readonly to: string;
      readonly from: number | readonly string[];
      /** Bytes per sender. */
      readonly bytes: number;
      readonly qps?: number;
    }
  /** Lossy UDP from one host's kernel stack to another's, at an emulated rate. */
  | {
      readonly kind: "udp";
      readonly from: string;
      readonly to: string;
      readonly rateBps: number;
      /** Datagram payload bytes (default 1000). */
      readonly size?: number;
      /** Stops after this long (emulated ns); default: until traffic is stopped. */
      readonly durationNs?: number;
    }
  /** Nothing more of the named workloads (or of all, UDP streams too) is posted. */
  | { readonly kind: "stop"; readonly workloads: "all" | readonly string[] }
  /** Takes the link at node:ethN down (both ends lose carrier) or brings it back. */
  | { readonly kind: "link"; readonly node: string; readonly port: number; readonly up: boolean }
  /** Kills a device as a crash would (running false) or restarts it with fresh state (running true). */
  | { readonly kind: "device"; readonly node: string; readonly running: boolean }
  /** A host's NIC sends XOFF for ever on `priority`, as a broken NIC does; null stops its storm. */
  | {
      readonly kind: "pfc-storm";
      readonly host: string;
      readonly priority: number | null;
      /** Time between the storm's XOFF frames (default: half the pause time of 0xffff quanta). */
      readonly intervalNs?: number;
    }
  /** Re-enables PFC and the watchdog on a switch port and priority the PFC watchdog switched off. */
  | { readonly kind: "pfc-enable"; readonly node: string; readonly port: number; readonly priority: number }
  /** Puts a settings change (switch, per-node and host layers) on top of the lab's layers. */
  | { readonly kind: "set"; readonly change: SettingsChange }
  /** Adds (via ethN) or withdraws (via null) a static route on a switch, over the computed routes. */
  | { readonly kind: "route"; readonly node: string; readonly to: string; readonly via: string | null }
  /** Real time per emulated time from now on; "auto": the live supervisor follows the machine. */
  | { readonly kind: "dilation"; readonly dilation: number | "auto" }
  /**
   * Zeroes the counters (never the gauges) of the named devices, or of every running one, as a switch's
   * `reset counters interface` or `sonic-clear counters` does: a measurement can then start after warm-up.
   */
  | { readonly kind: "clear-counters"; readonly nodes: "all" | readonly string[] };

export type LabActionKind = LabAction["kind"];
export type ActionOf<K extends LabActionKind> = Extract<LabAction, { readonly kind: K }>;

/** A timeline step: an action at an emulated time (ns since the scenario's start). */
export interface Step {
  readonly atNs: number;
  readonly action: LabAction;
}

/** What carrying out an action gives back. */
export interface ActionResult {
  /** The workload it started (start, incast). */
  readonly workload?: string;
  /** A dilation action: the dilation in force, whether it follows the machine, and when it took effect. */
  readonly dilation?: { readonly value: number; readonly auto: boolean; readonly atNs: number };
}

/** The workload an incast action asks for among `hosts`; throws a user-facing message when it cannot be. */
export function incastWorkload(a: ActionOf<"incast">, hosts: readonly string[], name: string): WorkloadSpec {
  if (!hosts.includes(a.to)) throw new Error(`${a.to} is not a host (hosts: ${hosts.join(", ")})`);
  const from = typeof a.from === "number" ? hosts.filter((h) => h !== a.to).slice(0, a.from) : a.from;
  for (const h of from) if (!hosts.includes(h) || h === a.to) throw new Error(`${h} cannot send to ${a.to}`);
  if (from.length === 0) throw new Error("an incast needs at least one sender");
  return {
    type: "incast",
    name,
    to: a.to,
    from,
    bytes: a.bytes,
    op: "write",
    qps: a.qps ?? 1,
    repeat: 1,
    intervalNs: 0,
  };
}

/** The preset a settings change applies to every switch, if that is all it does. */
export function presetOf(change: SettingsChange): ThresholdPreset | null {
  if (change.hosts.length > 0 || Object.keys(change.nodes).length > 0 || change.switches.length !== 1)
    return null;
  const only = change.switches[0]!;
  const keys = Object.keys(only);
  return keys.length === 1 && keys[0] === "profile" ? (only.profile as ThresholdPreset) : null;
}

type Describers = { readonly [K in LabActionKind]: (a: ActionOf<K>) => string };

const DESCRIBE: Describers = {
  start: (a) => `started ${a.workload.name} (${a.workload.type})`,
  incast: (a) =>
    `incast: ${typeof a.from === "number" ? a.from : a.from.length} senders x ${formatSize(a.bytes)} -> ${a.to}`,
  udp: (a) => `UDP ${a.from} -> ${a.to} at ${formatRate(a.rateBps)}b/s`,
  stop: (a) => (a.workloads === "all" ? "traffic stopped" : `workloads ${a.workloads.join(", ")} stopped`),
  link: (a) => `${a.node}:eth${a.port} ${a.up ? "up" : "down"}`,
  device: (a) => `${a.node} ${a.running ? "restarted" : "killed"}`,
  "pfc-storm": (a) =>
    a.priority === null ? `${a.host}: PFC storm stopped` : `${a.host}: PFC storm on priority ${a.priority}`,
  "pfc-enable": (a) => `${a.node}:eth${a.port} priority ${a.priority}: PFC enabled`,
  set: (a) => {
    const preset = presetOf(a.change);
    if (preset !== null) return `preset ${preset} applied to every switch`;
    const n = a.change.switches.length + Object.keys(a.change.nodes).length + a.change.hosts.length;
    return `settings changed (${n} layer${n === 1 ? "" : "s"})`;
  },
  route: (a) =>
    a.via === null ? `${a.node}: route to ${a.to} withdrawn` : `${a.node}: ${a.to} via ${a.via}`,
  dilation: (a) =>
    a.dilation === "auto"
      ? "dilation follows the machine (auto)"
      : `dilation ${a.dilation}: 1 emulated ms lasts ${formatDuration(a.dilation * 1e6)} real`,
  "clear-counters": (a) =>
    a.nodes === "all" ? "counters cleared on every device" : `counters cleared on ${a.nodes.join(", ")}`,
};

/** One line saying what an action does (progress lines, the TUI's status, event logs). */
export function describeAction(a: LabAction): string {
  return (DESCRIBE[a.kind] as (a: LabAction) => string)(a);
}

export const ACTION_KINDS: readonly LabActionKind[] = Object.keys(DESCRIBE) as LabActionKind[];

/** Throws, naming what is wrong, unless `value` is an action of a known kind (input from a socket). */
export function checkAction(value: unknown): LabAction {
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (typeof kind !== "string" || !(ACTION_KINDS as readonly string[]).includes(kind)) {
    throw new Error(`unknown lab action ${JSON.stringify(kind)} (known: ${ACTION_KINDS.join(", ")})`);
  }
  return value as LabAction;
}
