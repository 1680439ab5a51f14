// Device timers on a real event loop. All armed timers sit in one heap; a single Node timer wakes the
// process for the earliest. Node timers have 1 ms resolution, so an emulated timer fires up to ~1 ms of
// real time late (1 µs emulated at dilation 1000): devices tolerate this by catching up (TxPort sends
// every frame whose wire time has passed). `lateness` records how late timers fire, in emulated ns.

import type { TimerId } from "../../device/contract.js";
import { EventQueue, type QueuedEvent } from "../../device/event-queue.js";
import type { DeviceClock } from "./clock.js";

/** Events from outside the timer heap (frames) that must be taken in time order with the timers. */
export interface TimedInput {
  /** Time of the earliest waiting event (+Inf: none). */
  peekTime(): number;
  /** Hands the earliest waiting event to the device. */
  dispatchNext(): void;
}

/** Node's timers fire on whole milliseconds of its loop clock, at least 1 ms after they are set. */
const TIMER_RESOLUTION_MS = 1;

interface Armed extends QueuedEvent {
  timer: TimerId;
  gen: number;
}

export class LiveTimers {
  private readonly heap = new EventQueue<Armed>();
  /**
   * Each timer's live arming (its `gen`; 0: not armed). Entries are overwritten, never deleted: a Map whose
   * keys are deleted and added again at every frame fills with deleted slots and rehashes into a new table
   * every few frames, in the old generation once the Map is old, which at high frame rates drove major
   * collections. The keys are the device's timer ids, a bounded set.
   */
  private readonly live = new Map<TimerId, number>();
  private gen = 0;
  /** Heap entries popped (fired or cancelled), reused by arm: nothing allocated per timer armed. */
  private readonly spare: Armed[] = [];
  private handle: NodeJS.Timeout | null = null;
  /** Emulated time of the earliest armed timer or waiting input (+Inf: none). */
  private wakeAt = Number.POSITIVE_INFINITY;
  /**
   * The earliest emulated time the pending Node timer was set (or kept) for: it fires no later than one
   * timer resolution after that time comes, so it serves any later wake-up as well.
   */
  private handleFor = Number.POSITIVE_INFINITY;
  /**
   * True while a runDue() is sure to follow before control returns to the event loop (during one, or
   * after defer()): arming then only records the timer, and that runDue sets the Node timer once for all.
   */
  private deferred = false;
  /** When the pending Node timer fires (performance.now() ms). */
  private handleDue = 0;
  /** Sum and max of how late timers fired (emulated ns), and how many. */
  latenessSum = 0;
  latenessMax = 0;
  /** Latest timer since the device host last reported its health (it resets this). */
  latenessRecent = 0;
  fired = 0;

  constructor(
    private readonly clock: DeviceClock,
    private readonly fire: (timer: TimerId, now: number) => void,
    /** Called at the end of every run of due timers (the device host publishes its clock there). */
    private readonly afterRun: () => void = () => {},
    /** Received frames waiting for their arrival time (exact clocks): merged with the timers in time order. */
    private readonly input: TimedInput | null = null,
  ) {}

  /** Emulated time of the earliest armed timer (+Inf when none). */
  get nextAt(): number {
    return this.wakeAt;
  }

  arm(timer: TimerId, at: number): void {
    const gen = ++this.gen;
    this.live.set(timer, gen);
    const e = this.spare.pop() ?? { t: 0, seq: 0, timer: 0, gen: 0 };
    e.t = at;
    e.timer = timer;
    e.gen = gen;
    this.heap.push(e);
    if (at < this.wakeAt) {
      this.wakeAt = at;
      if (!this.deferred) this.schedule();
    }
  }

  /**
   * The caller runs runDue() before it returns to the event loop: until then, arming a timer need not
   * set the Node timer (at high frame rates that was a clock read or three per frame).
   */
  defer(): void {
    this.deferred = true;
  }

  disarm(timer: TimerId): void {
    if (this.live.has(timer)) this.live.set(timer, 0);
  }

  private readonly runDueNow = (): void => this.runDue();

  /** Fires everything due; called by the Node timer, and after each burst of received frames. */
  runDue(): void {
    this.deferred = true;
    try {
      this.fireDue();
    } finally {
      this.deferred = false;
    }
    this.schedule();
    this.afterRun();
  }

  private fireDue(): void {
    const now = this.clock.now();
    // An exact clock (synced) gives each timer its own time, in order with the frames that arrived
    // before it; a free-running one fires what is due at now (its ports' catch-up bound then applies).
    const exact = this.clock.exact;
    for (;;) {
      this.dropCancelled();
      const tt = this.heap.peekTime();
      const ft = this.input !== null ? this.input.peekTime() : Number.POSITIVE_INFINITY;
      if (ft <= tt) {
        if (ft > now) break;
        this.input!.dispatchNext();
        continue;
      }
      if (tt > now) break;
      const e = this.heap.pop()!;
      const { t, timer } = e;
      this.live.set(timer, 0);
      this.spare.push(e);
      const late = now - t;
      this.latenessSum += late;
      if (late > this.latenessMax) this.latenessMax = late;
      if (late > this.latenessRecent) this.latenessRecent = late;
      this.fired++;
      this.fire(timer, exact ? t : now);
    }
  }

  /** Removes cancelled entries from the top of the heap. */
  private dropCancelled(): void {
    for (let top = this.heap.peek(); top !== undefined; top = this.heap.peek()) {
      if (this.live.get(top.timer) === top.gen) return;
      this.spare.push(this.heap.pop()!);
    }
  }

  stop(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = null;
  }

  private schedule(): void {
    // Skip cancelled entries at the top so they do not cause needless wake-ups.
    this.dropCancelled();
    const next = Math.min(
      this.heap.peekTime(),
      this.input !== null ? this.input.peekTime() : Number.POSITIVE_INFINITY,
    );
    this.wakeAt = next;
    // The pending Node timer serves a wake-up no earlier than its own (or none: it then wakes the process
    // once for nothing, cheaper than clearing it). At high frame rates the earliest event moves later by
    // nanoseconds per frame, and this spares the two clock reads below. Not for an exact (synced) clock:
    // while it is held, the same emulated time comes sooner in real time (it polls), so it is asked.
    if (this.handle && (next === this.handleFor || (next > this.handleFor && !this.clock.exact))) return;
    if (next === Number.POSITIVE_INFINITY) return;
    this.handleFor = next;
    const ms = Math.max(0, this.clock.realMsUntil(next));
    // Node timers have 1 ms resolution and cost a timer-list insert and removal each. Keep the pending
    // one when it fires no more than that resolution after the new wake-up (or before it: the early wake
    // finds nothing due and schedules again). At high frame rates the earliest event moves by nanoseconds
    // per frame; replacing the Node timer every time was a tenth of the switch process's CPU.
    const realNow = performance.now();
    const wanted = realNow + ms;
    if (this.handle && this.handleDue < wanted + TIMER_RESOLUTION_MS) return;
    if (this.handle) clearTimeout(this.handle);
    this.handleDue = realNow + Math.max(TIMER_RESOLUTION_MS, ms);
    this.handle = setTimeout(() => {
      this.handle = null;
      this.handleFor = Number.POSITIVE_INFINITY;
      // Inputs first: Node runs timers before it polls for I/O, so a process that was not scheduled for a
      // while would fire its timers (and transmit) before reading the frames that arrived meanwhile, a
      // PFC pause among them. setImmediate runs after the poll phase has delivered those frames.
      setImmediate(this.runDueNow);
    }, ms);
  }
}
