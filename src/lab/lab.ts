// What the CLI and the TUI see of a running lab, whichever runtime runs it: its topology, snapshots of every
// device's counters, telemetry events, and the one way to change it, a lab action.

import type { TelemetryEvent } from "../device/contract.js";
import type { ActionResult, LabAction } from "../scenario/action.js";
import type { AnyDeviceStats } from "./device-stats.js";

export interface NodeView {
  readonly name: string;
  readonly kind: "switch" | "host";
  /** Ports in use (N of ethN). */
  readonly ports: readonly number[];
  /** A host's address (from the address plan); absent for switches. */
  readonly ip?: number;
  /** A switch's PFC watchdog as configured when the lab started (the dashboard's time to detection). */
  readonly watchdog?: WatchdogView;
}

/** What the dashboard needs of a switch's PFC watchdog configuration. */
export interface WatchdogView {
  readonly enabled: boolean;
  readonly semantics: "sonic" | "h3c";
  /** sonic detectionTime, h3c interval: how long a queue must stall, emulated ns. */
  readonly detectionNs: number;
  /** How often it looks, emulated ns. */
  readonly pollNs: number;
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

/** A link aggregation group: one link as routing sees it, made of member links (docs/link-aggregation.md). */
export interface LagLinkView {
  readonly name: string;
  /** Its two switches. */
  readonly a: string;
  readonly b: string;
  /** The member links (LinkView ids), in the group's member order. */
  readonly linkIds: readonly number[];
}

export interface TopologyView {
  readonly name: string;
  readonly nodes: readonly NodeView[];
  readonly links: readonly LinkView[];
  /** Link aggregation groups (absent: none). */
  readonly lags?: readonly LagLinkView[];
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

/**
 * A running fabric, whatever runs it: a live lab (processes in namespaces, through the supervisor's control
 * socket) or a virtual-time fabric in this process. The TUI is written against it, the CLI's commands use
 * it; both change the fabric only through lab actions (scenario/action.ts).
 */
export interface Lab {
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
  /** Carries out an action now; rejects with a user-facing message when the lab refuses it. */
  apply(action: LabAction): Promise<ActionResult>;
  /** Releases the lab (a live lab is torn down when its owner closes it). */
  close(): Promise<void>;
}
