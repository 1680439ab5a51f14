// The live runtime's clocks. Free-running: emulated ns = (monotonic ns − epoch) / dilation.
//
// Every device process of a lab uses the same epoch (CLOCK_MONOTONIC is system-wide, also across network
// namespaces), so their emulated times agree. Dilation D stretches emulated time: at D = 1000 a 100 Gb/s
// emulated link carries 100 Mb/s of real frames and a 1 µs emulated timer waits 1 ms of real time.
// synced-clock.ts adds the other kind: a clock that also waits for the device's neighbours.

import { asTimeline, type Dilation, type DilationTimeline } from "./dilation.js";

/** What the device host needs from a clock. */
export interface DeviceClock {
  /** The dilation in force now (it changes with `--dilation auto` or `rocelab dilation`). */
  readonly dilation: number;
  /**
   * Exact (synced) clocks: the device host hands timers and frames to the device at their own emulated
   * times, in time order; free-running ones at the time the process got to them.
   */
  readonly exact: boolean;
  /** Current emulated time, integer ns; never goes backwards. */
  now(): number;
  /**
   * Emulated time of a CLOCK_MONOTONIC instant (a process.hrtime.bigint() value, as ns): a frame's kernel
   * arrival time. Never later than now().
   */
  emulatedAt(hrtimeNs: number): number;
  /** Real milliseconds until emulated time `at` (<= 0 when it has passed). */
  realMsUntil(at: number): number;
  /** Real nanoseconds an emulated duration takes. */
  realNs(emulatedNs: number): number;
  /**
   * A frame left on `port`, due at the peer at emulated `due` / was read from `port`. Synchronised clocks
   * count them and stamp each frame's arrival time in the clock table: read() returns it (NaN when there
   * is none, and always for a free-running clock).
   */
  sent(port: number, due: number, frame: Uint8Array): void;
  /** The first frame held back for `port`'s link delay is due at the peer at `due` (+Inf: none). */
  holding(port: number, due: number): void;
  read(port: number, frame: Uint8Array): number;
  /** End of a turn of the event loop: the device next runs on its own at emulated `wakeAt` (+Inf: never). */
  publish(wakeAt: number): void;
  /** Where the host's next own event is (emulated; +Inf when none): a synced clock does not run past it. */
  followOwnEvents(next: () => number): void;
  /**
   * How often the host calls tick() while the device is busy or not settled(), real ms (null: never); an
   * idle, settled device ticks at its idle housekeeping beat (housekeeping.ts).
   */
  readonly heartbeatMs: number | null;
  tick(): void;
  /**
   * False while a neighbour has counted frames as sent to this device that it has not read (on their way,
   * or lost by the kernel until tick() settles them): the host keeps its heartbeat going until then.
   */
  settled(): boolean;
  /** What synchronisation cost (null for a free-running clock). */
  syncStats(): SyncStats | null;
  close(): void;
}

export interface SyncStats {
  /** Emulated ns the clock has held in total: how far it is behind the dilated real clock. */
  readonly heldNs: number;
  /** Times the clock was held back by a neighbour. */
  readonly holds: number;
  /** Times a neighbour with work had not published for longer than the grace period. */
  readonly graceExceeded: number;
  /** Longest such silence seen, real ms. */
  readonly worstSilenceMs: number;
  /**
   * Frames read whose arrival stamp was not found (overwritten, or never written): handled when read, so
   * their emulated arrival time is only as good as the process's promptness.
   */
  readonly unstamped: number;
}

export class LiveClock implements DeviceClock {
  readonly exact = false;
  private readonly timeline: DilationTimeline;
  constructor(
    /** process.hrtime.bigint() value that is emulated time 0. */
    readonly epoch: bigint,
    dilation: Dilation,
  ) {
    this.timeline = asTimeline(dilation);
    this.epochNs = Number(epoch);
  }

  private readonly epochNs: number;
  /** Real ns (since the epoch) at the last now(). */
  private lastReal = 0;
  /** What the last now() returned. */
  private lastNow = 0;

  /**
   * The dilation in force at the last now() (a change is announced CHANGE_LEAD_NS ahead, so this is the
   * one in force now unless the process slept through the lead). The device host asks for it with every
   * frame it sends, within the same run as a now() (the frame's or the timers'): a clock read of its own
   * cost a tenth of a switch's JavaScript.
   */
  get dilation(): number {
    return this.timeline.factor(this.lastReal);
  }

  now(): number {
    const real = this.real();
    this.lastReal = real;
    this.lastNow = this.timeline.emulated(real);
    return this.lastNow;
  }

  emulatedAt(hrtimeNs: number): number {
    const t = this.timeline.emulated(hrtimeNs - this.epochNs);
    // A frame read late arrived before the clock's last reading: no clock read needed to keep the
    // contract (at high frame rates that read was one of three per frame).
    return t <= this.lastNow ? t : Math.min(t, this.now());
  }

  realMsUntil(at: number): number {
    return (this.timeline.realAt(at) - this.real()) / 1e6;
  }

  realNs(emulatedNs: number): number {
    return emulatedNs * this.dilation;
  }

  private real(): number {
    return Number(process.hrtime.bigint() - this.epoch);
  }

  sent(): void {}
  holding(): void {}
  read(): number {
    return Number.NaN;
  }
  followOwnEvents(): void {}
  publish(): void {}
  readonly heartbeatMs = null;
  tick(): void {}
  settled(): boolean {
    return true;
  }
  syncStats(): null {
    return null;
  }
  close(): void {}
}
