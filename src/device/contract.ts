// The device contract: what every virtual switch and NIC is, and what a runtime gives it.
//
// A device is a pure state machine over real frame bytes. It is handed frames, timer expiries and
// control commands together with the current emulated time, and it answers by transmitting frames,
// arming timers and emitting telemetry through its DeviceEnv. It never reads a clock, never sleeps,
// never touches a socket and never calls Math.random: the same inputs give the same outputs, which is
// what lets one device core run in the virtual-time simulator and in a live process alike.

/** Emulated time in integer nanoseconds since the start of the run. */
export type Nanoseconds = number;

/** Emulated rates are bits per second. */
export type BitsPerSecond = number;

/**
 * A timer is a small non-negative integer chosen by the device (see each device's timer-id encoding); a live
 * device host arms negative ids of its own (device-host.ts readAt).
 */
export type TimerId = number;

export interface DeviceEnv {
  /**
   * Put `frame` on the wire of `port`. Devices model their own serialisation (see TxPort): `leftAt` is
   * when the frame's last bit leaves, which may be later than the `now` of the call the device is handling
   * (a port hands a frame over as its first bit leaves) or earlier (a port catching up after a late
   * wake-up sends frames whose time has passed); default that `now`. The runtime delivers it to the peer
   * at `leftAt` plus the link's propagation delay. Ownership of `frame` passes to the runtime: the device
   * must not touch it again (the next switch rewrites TTL, MACs and ECN in place).
   *
   * `verified` (default false): the frame's RoCE ICRC is known to match its bytes, because this device
   * built it and computed the ICRC, or received it with `verified` and changed nothing since but the
   * routing rewrite (MAC addresses, TTL, IPv4 checksum: fields the ICRC does not cover or masks). The
   * simulator carries it beside the frame to the receiver, which may then skip recomputing the ICRC
   * (docs/performance.md, "One CRC per frame"); a live port never does (a frame from a socket is checked).
   */
  transmit(port: number, frame: Uint8Array, leftAt?: Nanoseconds, verified?: boolean): void;
  /** Arm (or re-arm, replacing the previous expiry) `timer` to fire at emulated time `at`. */
  arm(timer: TimerId, at: Nanoseconds): void;
  /** Cancel `timer` if it is armed. */
  disarm(timer: TimerId): void;
  /** Report something that happened (the runtime stamps device name and time). */
  emit(event: TelemetryEvent): void;
  /** Uniform in [0, 1), from the run's seeded generator. */
  random(): number;
}

export interface Device<Command = unknown, Reply = unknown, Stats extends DeviceStats = DeviceStats> {
  readonly name: string;
  /** Called once, at time `now`, before any frame: arm initial timers. */
  start(now: Nanoseconds): void;
  /**
   * A frame arrived on `port` (its last bit, at `now`). The device owns `frame` from here on. `verified`:
   * the sender's `transmit` said its ICRC matches its bytes (see DeviceEnv.transmit); absent for frames
   * from a live port, from a device that does not say so, and for anything a fault touched.
   */
  receive(port: number, frame: Uint8Array, now: Nanoseconds, verified?: boolean): void;
  /** An armed timer expired. */
  fire(timer: TimerId, now: Nanoseconds): void;
  /** The carrier of `port` went down or came back (link failure injected, or peer restarted). */
  setLinkState(port: number, up: boolean, now: Nanoseconds): void;
  /** Control plane: change a parameter, start a workload, ... */
  command(cmd: Command, now: Nanoseconds): Reply;
  /** Counters and state, for reports, `rocelab stats` and the TUI. Cheap enough to call every few µs. */
  stats(now: Nanoseconds): Stats;
}

export const EventKind = {
  /** This device started pausing a peer: PFC XOFF sent on `port` for `priority`. */
  PfcXoff: "pfc-xoff",
  /** This device released a peer: PFC XON (zero quanta) sent. */
  PfcXon: "pfc-xon",
  /** A peer paused this device's egress on `port`/`priority`. */
  PausedOn: "paused-on",
  /** That pause ended (resume received or pause time ran out). */
  PausedOff: "paused-off",
  Drop: "drop",
  EcnMark: "ecn-mark",
  LinkDown: "link-down",
  LinkUp: "link-up",
  CnpSent: "cnp-sent",
  RateCut: "rate-cut",
  FlowDone: "flow-done",
  /** A work request completed with an error (detail: "<flow id> <status>", work-completion.ts). */
  FlowFailed: "flow-failed",
  /** A QP went to the error state (detail: the status that failed it). */
  QpError: "qp-error",
  /** A QP was created to replace one that failed (`qp`: the new QP; detail: "replaces <old QPN>"). */
  QpReconnect: "qp-reconnect",
  Info: "info",
  /** The PFC watchdog declared a PFC storm on `port`/`priority` (detail: its action, and "latched"). */
  PfcStorm: "pfc-storm",
  /** The PFC watchdog restored PFC on `port`/`priority`. */
  PfcStormRestored: "pfc-storm-restored",
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

export interface TelemetryEvent {
  readonly kind: EventKind;
  readonly port?: number;
  readonly priority?: number;
  readonly qp?: number;
  /** How many occurrences this event stands for (rate-limited events aggregate). */
  readonly count?: number;
  /** A number the event carries, in the unit its kind implies (bits/s for a rate cut). */
  readonly value?: number;
  /** A short reason or label: the drop reason, the flow id, ... */
  readonly detail?: string;
}

/** One counter table, flat: operators grep these names. */
export type Counters = Record<string, number>;

export interface QueueStats {
  readonly queue: number;
  /** Bytes queued right now. */
  readonly depthBytes: number;
  /** Whether a received PFC currently stops this queue. */
  readonly paused: boolean;
  readonly counters: Counters;
}

export interface PortStats {
  readonly port: number;
  readonly name: string;
  readonly up: boolean;
  readonly counters: Counters;
  readonly queues?: readonly QueueStats[];
}

/**
 * What every device's stats() has in common. Each device kind extends it with its own `kind` literal and
 * typed `detail` (switch/stats-types.ts, nic/stats-types.ts); the lab and the TUI read the union of those
 * (lab/device-stats.ts), so they narrow on `kind` instead of casting `detail`.
 */
export interface DeviceStatsBase {
  readonly kind: string;
  readonly name: string;
  readonly now: Nanoseconds;
  readonly counters: Counters;
  readonly ports: readonly PortStats[];
  /** Device-specific detail (per-QP DCQCN state on NICs), typed by the device kind's stats type. */
  readonly detail?: unknown;
}

/** Any device's stats, as the runtimes carry them without knowing the device kind. */
export type DeviceStats = DeviceStatsBase;
