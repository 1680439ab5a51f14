// The one timer a live device keeps for itself: it samples the event loop's lateness, settles a synced
// clock's link counters and reports events and health upward. It beats every ACTIVE_MS while the device
// moves frames or emits events and every IDLE_MS once it does not; the next frame or event wakes it.
//
// Why one adaptive timer: on a virtual machine each wake-up of an idle Node process costs ~70 µs of CPU
// (a bare 10 ms setInterval: 1,950 wake-ups, 140 ms of CPU). The idle device used to wake ~38 times a
// second for four fixed timers (a 50 ms event-loop delay monitor, a 100 ms report check, a 200 ms sync
// heartbeat and its setImmediate) and the default lab of 13 processes took 7.6 % of a core doing nothing.

import { createHistogram, type RecordableHistogram } from "node:perf_hooks";

/** Beat period while the device is busy: events and health go up this often, real ms. */
export const ACTIVE_MS = 100;
/** Beat period of an idle device: it still says it is alive (health) this often, real ms. */
export const IDLE_MS = 2000;

export interface HousekeepingOptions {
  readonly activeMs?: number;
  readonly idleMs?: number;
  /** Real ms (performance.now() by default; tests pass a fake). */
  readonly now?: () => number;
}

export class Housekeeping {
  /** How late each beat fired, ns (a beat that was woken early is not a sample). */
  readonly lag: RecordableHistogram = createHistogram();
  private timer: NodeJS.Timeout | null = null;
  private dueAt = 0;
  private sleeping = false;
  private stopped = false;
  private readonly activeMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(
    /** One beat; returns true when the device was busy since the last one (beat again soon). */
    private readonly beat: () => boolean,
    opts: HousekeepingOptions = {},
  ) {
    this.activeMs = opts.activeMs ?? ACTIVE_MS;
    this.idleMs = opts.idleMs ?? IDLE_MS;
    this.now = opts.now ?? (() => performance.now());
  }

  get isSleeping(): boolean {
    return this.sleeping;
  }

  start(): void {
    this.stopped = false;
    this.schedule(this.activeMs);
  }

  /**
   * Something happened (a frame, an event): beat within ACTIVE_MS. Called on every frame, so the awake
   * case is one field read.
   */
  wake(): void {
    if (!this.sleeping || this.stopped) return;
    this.sleeping = false;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(this.activeMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.dueAt = this.now() + ms;
    this.timer = setTimeout(this.fire, ms);
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = null;
    // Awake while beating: a wake() from inside the beat must not start a second chain of timers.
    this.sleeping = false;
    // Node timers have 1 ms resolution and a histogram takes integers >= 1.
    this.lag.record(Math.max(1, Math.round((this.now() - this.dueAt) * 1e6)));
    const busy = this.beat();
    if (this.stopped) return;
    this.sleeping = !busy;
    this.schedule(busy ? this.activeMs : this.idleMs);
  };
}
