// One interface to a running fabric, whatever runs it: a live lab (processes in namespaces, through the
// supervisor's control socket) or a virtual-time run in this process. The TUI is written against it; the
// CLI's inject commands use it too.

import type { TelemetryEvent } from "../device/contract.js";
import type { WorkloadSpec } from "../nic/workloads.js";
import type { AnyDeviceStats } from "./device-stats.js";

export interface NodeView {
  readonly name: string;
  readonly kind: "switch" | "host";
  /** Ports in use (N of ethN). */
  readonly ports: readonly number[];
  /** A host's address (from the address plan); absent for switches. */
  readonly ip?: number;
}

export interface LinkView {
  readonly id: number;
  /** "node:ethN" */
  readonly a: string;
  readonly b: string;
  readonly up: boolean;
  readonly rateBps: number;
  readonly delayNs: number;
}

export interface TopologyView {
  readonly name: string;
  readonly nodes: readonly NodeView[];
  readonly links: readonly LinkView[];
}

/** Per device process health (live only). */
export interface DeviceHealthView {
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly timerLateMeanNs: number;
  readonly cpuSeconds: number;
}

export interface DeviceView {
  readonly node: string;
  readonly kind: "switch" | "nic";
  /** "running", "starting", "crashed", "killed", "stopped". */
  readonly status: string;
  readonly pid: number | null;
  readonly restarts: number;
  readonly health: DeviceHealthView | null;
}

export interface LabEvent extends TelemetryEvent {
  /** Emulated time, ns. */
  readonly t: number;
  readonly device: string;
}

export interface LabSnapshot {
  readonly lab: string;
  readonly runtime: "sim" | "live";
  /** Emulated now, ns. */
  readonly now: number;
  /** Live: real time per emulated time. Sim: real seconds per emulated ms of pacing, for display. */
  readonly dilation: number;
  readonly status: string;
  /** Live, synced clocks: how far the lab's clock is behind real time / dilation (a busy machine), ns. */
  readonly behindNs?: number;
  readonly devices: readonly DeviceView[];
  readonly links: readonly LinkView[];
  /** Counters of every running device. */
  readonly stats: Readonly<Record<string, AnyDeviceStats>>;
}

export const THRESHOLD_PRESETS = ["default", "aggressive", "balanced", "conservative"] as const;
export type ThresholdPreset = (typeof THRESHOLD_PRESETS)[number];

export interface IncastRequest {
  readonly to: string;
  /** How many senders (the first N hosts other than `to`), or which. */
  readonly from: number | readonly string[];
  /** Bytes per sender. */
  readonly bytes: number;
  readonly qps?: number;
}

/**
 * The workload an incast request asks for, among `hosts`: senders are the first N hosts other than `to`,
 * or the named ones. Throws with a user-facing message when the request names a non-host, makes the
 * receiver a sender, or has no sender.
 */
export function incastWorkload(req: IncastRequest, hosts: readonly string[], name: string): WorkloadSpec {
  if (!hosts.includes(req.to)) throw new Error(`${req.to} is not a host (hosts: ${hosts.join(", ")})`);
  const from = typeof req.from === "number" ? hosts.filter((h) => h !== req.to).slice(0, req.from) : req.from;
  for (const h of from)
    if (!hosts.includes(h) || h === req.to) throw new Error(`${h} cannot send to ${req.to}`);
  if (from.length === 0) throw new Error("an incast needs at least one sender");
  return {
    type: "incast",
    name,
    to: req.to,
    from,
    bytes: req.bytes,
    op: "write",
    qps: req.qps ?? 1,
    repeat: 1,
    intervalNs: 0,
  };
}

export interface UdpRequest {
  readonly from: string;
  readonly to: string;
  /** Emulated rate, bits/s. */
  readonly rateBps: number;
  /** Datagram payload bytes (default 1000). */
  readonly size?: number;
  /** Stop after this long (emulated ns); default: until traffic is stopped. */
  readonly durationNs?: number;
}

export interface LabController {
  readonly runtime: "sim" | "live";
  readonly name: string;
  readonly topology: TopologyView;
  /** Latest snapshot (refreshed a few times a second). */
  snapshot(): Promise<LabSnapshot>;
  /** Called with every new snapshot; returns an unsubscribe function. */
  onSnapshot(listener: (s: LabSnapshot) => void): () => void;
  /** Called with telemetry events as they arrive; returns an unsubscribe function. */
  onEvents(listener: (events: readonly LabEvent[]) => void): () => void;
  /**
   * Called once if the lab goes away on its own (a live lab's supervisor died or was stopped from
   * elsewhere); returns an unsubscribe function.
   */
  onClose(listener: (reason: string) => void): () => void;
  /** Starts an N-to-1 incast of RDMA WRITEs; resolves to the workload's name. */
  incast(req: IncastRequest): Promise<string>;
  /** Background lossy UDP from one host's kernel stack to another's. */
  udp(req: UdpRequest): Promise<void>;
  /** Stops every workload (running messages finish; nothing new starts). */
  stopTraffic(): Promise<void>;
  setLink(node: string, port: number, up: boolean): Promise<void>;
  kill(node: string): Promise<void>;
  restart(node: string): Promise<void>;
  /** Makes a host's NIC send XOFF for ever on `priority`, as a broken NIC does; null stops it. */
  pfcStorm(host: string, priority: number | null): Promise<void>;
  /**
   * Adds (via "ethN") or withdraws (via null) a static route on a switch, over the computed and the
   * topology's routes; `to` is a host or a prefix. Nothing stops it from looping (that is the point).
   */
  staticRoute(node: string, to: string, via: string | null): Promise<void>;
  /** Re-enables PFC (and the watchdog) on a switch port and priority the PFC watchdog switched off. */
  pfcEnable(node: string, port: number, priority: number): Promise<void>;
  /** Applies a switch threshold preset (seed 002's table) to every switch. */
  applyPreset(preset: ThresholdPreset): Promise<void>;
  /** Releases the lab (a live lab is torn down when its owner closes it). */
  close(): Promise<void>;
}
