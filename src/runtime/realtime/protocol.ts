// Messages between the lab supervisor and a live device process: over the IPC channel execa opens when
// the supervisor starts the device, or as JSON lines over a socket (socket-channel.ts) when the device was
// started by the device entrypoint and a controller attaches to it (lab/live/remote-device.ts).

import type { DeviceStats, TelemetryEvent } from "../../device/contract.js";
import type { RegistryDump } from "../../device/counter-dump.js";
import type { QpStats } from "../../nic/stats-types.js";
import type { SyncStats } from "./clock.js";
import type { SyncedPort } from "./synced-clock.js";

export interface LivePort {
  readonly port: number;
  readonly ifname: string;
  /** One-way propagation delay to emulate on frames leaving this port, emulated ns. */
  readonly delayNs: number;
}

export interface InitMessage {
  readonly type: "init";
  readonly lab: string;
  readonly node: string;
  readonly kind: "switch" | "nic";
  /** The device's resolved configuration (SwitchConfig or NicConfig), JSON-safe. */
  readonly config: unknown;
  readonly ports: readonly LivePort[];
  /** process.hrtime.bigint() at emulated time 0, as a decimal string. */
  readonly epoch: string;
  readonly dilation: number;
  readonly seed: number;
  /** Port I/O backend (port-io.ts); absent: ROCELAB_PORT_IO, else "ring". */
  readonly portIo?: "ring" | "pcap";
  /** Synchronised clocks (`--clock synced`); absent: a free-running dilated clock. */
  readonly sync?: SyncInit;
  /** The lab's dilation over time (dilation.ts); absent: `dilation` for good. */
  readonly dilationTable?: DilationInit;
  /** Real ms of PFC reaction the configuration's headroom was sized for (told to attached controllers). */
  readonly reactionMs?: number;
}

export interface DilationInit {
  /** A file the supervisor created and writes changes to: its path, or `fd:N` (native.ts mapTable). */
  readonly table: string;
  readonly bytes: number;
}

export interface SyncInit {
  /** The lab's clock table (clock-table.ts), a file the supervisor created: path or `fd:N`. */
  readonly table: string;
  readonly bytes: number;
  /** This device's index in the table. */
  readonly device: number;
  readonly ports: readonly SyncedPort[];
  /** Real ms a neighbour with work is assumed to keep running after its last sign of life. */
  readonly graceMs: number;
}

export type ToDevice =
  | InitMessage
  | AuthMessage
  | { readonly type: "command"; readonly id: number; readonly command: unknown }
  | { readonly type: "stats"; readonly id: number }
  /** The counter registry and, on a NIC, its QPs: what the lab's metrics exporter serves. */
  | { readonly type: "metrics"; readonly id: number }
  | { readonly type: "link"; readonly port: number; readonly up: boolean }
  /** tcpdump on one of the device's ports for `seconds`: `capture-data` chunks, then a `reply`. */
  | {
      readonly type: "capture";
      readonly id: number;
      readonly port: number;
      readonly seconds: number;
      readonly snaplen: number;
    }
  /**
   * Start (`on`) or stop recording the emulated time of every frame sent or read on `port`
   * (frame-times.ts); the reply to a stop carries them.
   */
  | { readonly type: "frame-times"; readonly id: number; readonly port: number; readonly on: boolean }
  /**
   * `at` (emulated ns): read the device's stats tables at that time, before anything of that time runs
   * (the report's counters count from a run's time 0); the reply says whether it was already past it.
   * `at` null: the reply is what was read (a StatsBaseline), or null before the time came.
   */
  | { readonly type: "baseline"; readonly id: number; readonly at: number | null }
  /**
   * `at` (emulated ns): read what the time series need at `at`, `at + every`, … (`count` times; grid-reads.ts).
   * `at` null: the reply is the reads taken since the last such request (GridRead[]).
   */
  | {
      readonly type: "series";
      readonly id: number;
      readonly at: number | null;
      readonly every?: number;
      readonly count?: number;
    }
  | { readonly type: "shutdown" };

/** A device's stats tables read at emulated time `at` (a `baseline` request; lab/stats-since.ts). */
export interface StatsBaseline {
  readonly at: number;
  /**
   * The request came after the device had been given a time at or past `at`: the tables were read when
   * it came (`takenAt`), so counters since the baseline miss what ran from `at` to then.
   */
  readonly late: boolean;
  readonly takenAt: number;
  readonly stats: DeviceStats;
  /** Keys of the tables that are levels, not counts (device/counters.ts levelKeys). */
  readonly levels: readonly string[];
}

export interface Health {
  /** Event-loop delay percentiles over the last report interval, real ms. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** Latest a device timer fired since the previous report, emulated ns. */
  readonly timerLateRecentNs?: number;
  /** How late device timers fired on average / at worst, emulated ns. */
  readonly timerLateMeanNs: number;
  readonly timerLateMaxNs: number;
  readonly framesIn: number;
  readonly framesOut: number;
  readonly sendErrors: number;
  /** Real CPU seconds used by the process so far. */
  readonly cpuSeconds: number;
  readonly rssBytes: number;
  /** What synchronised clocks cost so far (absent with a free-running clock). */
  readonly sync?: SyncStats;
  /**
   * Frames handed to the device after their emulated arrival time (the device had already been given a
   * later time: with synced clocks, a neighbour trusted past the grace sent into its past), and the worst
   * such lateness, emulated ns. Where a live run can differ from the simulator's.
   */
  readonly framesLate?: number;
  readonly framesLateMaxNs?: number;
}

export interface TimedEvent extends TelemetryEvent {
  readonly t: number;
}

/** Who a device is, said in its `ready` on a socket channel (an attached controller checks it). */
export interface DeviceIdentity {
  readonly lab: string;
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly dilation: number;
  /** Real ms of PFC reaction its headroom was sized for (absent: the live lab's 10). */
  readonly reactionMs?: number;
  /** The device's emulated now when it said so, ns. */
  readonly now: number;
  /** When the device process started (ISO time), so that a controller sees a restart. */
  readonly startedAt: string;
}

/**
 * The handshake of a socket channel (control-auth.ts). With a token the device opens with a challenge and
 * the controller answers with `auth`; from then on every message is sealed (sealed-lines.ts), the
 * device's `ready` first, which also carries its proof. Without a token (a Unix socket the file system
 * protects) the device opens with `ready`, and messages are plain JSON lines.
 */
export type DeviceHello =
  | {
      readonly type: "challenge";
      readonly challenge: string;
      /** CONTROL_PROTOCOL of the device (absent: 1, before messages were sealed). */
      readonly protocol?: number;
    }
  | { readonly type: "refused"; readonly message: string };
export interface AuthMessage {
  readonly type: "auth";
  readonly proof: string;
  readonly challenge: string;
  /** CONTROL_PROTOCOL of the controller (absent: 1). */
  readonly protocol?: number;
}

export type FromDevice =
  | DeviceHello
  | {
      readonly type: "ready";
      readonly pid: number;
      /** Socket channels: who the device is, and (with a token) its proof. */
      readonly identity?: DeviceIdentity;
      readonly proof?: string;
    }
  | { readonly type: "reply"; readonly id: number; readonly result: unknown }
  | { readonly type: "stats"; readonly id: number; readonly stats: DeviceStats; readonly health: Health }
  | { readonly type: "events"; readonly events: readonly TimedEvent[] }
  /** A piece of a capture's pcap stream, base64. */
  | { readonly type: "capture-data"; readonly id: number; readonly data: string }
  | { readonly type: "metrics"; readonly id: number; readonly metrics: DeviceMetrics }
  | { readonly type: "health"; readonly now: number; readonly health: Health }
  | { readonly type: "fatal"; readonly message: string };

/** A device's metrics at `now`: its counter registry, and a NIC's per-QP state (empty on a switch). */
export interface DeviceMetrics {
  readonly now: number;
  readonly registry: RegistryDump;
  readonly qps: readonly QpStats[];
}
