// Hosts one device core in a live process: real ports, the dilated clock, timers on the event loop, the
// emulated propagation delay of each link, telemetry batching and health (event-loop lag, timer
// lateness, CPU), and the housekeeping beat that reports them (housekeeping.ts).

import type { Device, DeviceEnv, TelemetryEvent, TimerId } from "../../device/contract.js";
import { Fifo } from "../../device/fifo.js";
import type { Random } from "../../device/prng.js";
import type { DeviceClock } from "./clock.js";
import { FrameTimeLog, type FrameTimes } from "./frame-times.js";
import { Housekeeping } from "./housekeeping.js";
import { Inbox } from "./inbox.js";
import type { PortIo } from "./port.js";
import type { Health, TimedEvent } from "./protocol.js";
import { LiveTimers } from "./timers.js";

/** Below this much real time, a link's emulated delay is not worth a timer (Node timers are 1 ms). */
const MIN_DELAY_REAL_MS = 0.25;
/**
 * Where an event stands among those of its nanosecond (the simulator's tie rule, simulator.ts): a control
 * change first, then frames by arrival port number (a frame's rank is its port), then timers.
 */
const RANK_CONTROL = -1;
const RANK_TIMER = Number.POSITIVE_INFINITY;

interface DelayLine {
  readonly port: number;
  readonly io: PortIo;
  readonly delayNs: number;
  readonly queue: Fifo<{ due: number; frame: Uint8Array }>;
  timer: NodeJS.Timeout | null;
}

export class DeviceHost {
  readonly env: DeviceEnv;
  readonly timers: LiveTimers;
  private device: Device | null = null;
  private readonly lines = new Map<number, DelayLine>();
  /** The same lines, for loops on the hot path (no iterator per call). */
  private readonly lineList: DelayLine[] = [];
  private events: TimedEvent[] = [];
  /** Set by startReporting: what the beat reports; true when there was something to report. */
  private report: () => boolean = () => false;
  private readonly housekeeping = new Housekeeping(() => this.beat());
  /** When the synced clock last settled its link counters, real ms (performance.now()). */
  private tickedAt = 0;
  framesIn = 0;
  framesOut = 0;
  /** The latest emulated time given to the device with a frame or a timer: times never go backwards. */
  private lastGivenAt = 0;
  /** The highest tie rank (RANK_CONTROL, a port, RANK_TIMER) of what the device was given at lastGivenAt. */
  private lastGivenRank = RANK_CONTROL;
  /** The latest time a read-only request reported at (readNow). */
  private lastReadAt = 0;
  /** Ports whose frames' emulated times are being recorded (frame-times.ts), by port number. */
  private readonly timeLogs: (FrameTimeLog | undefined)[] = [];
  /** Received frames waiting for their emulated arrival time (exact clocks). */
  private readonly inbox = new Inbox((port, at, frame, stamped) => this.deliver(port, at, frame, stamped));
  /** Frames handed over after their arrival time (health.framesLate) and the worst lateness, ns. */
  private framesLate = 0;
  private framesLateMaxNs = 0;
  /** Reads of the device due at emulated times (readAt), earliest first. */
  private readonly reads: { at: number; take: (at: number) => void }[] = [];
  /** Timer ids of those reads' wake-ups: negative, where no device timer is (device ids are >= 0). */
  private nextReadTimer = -1;

  constructor(
    readonly clock: DeviceClock,
    ports: ReadonlyMap<number, { io: PortIo; delayNs: number }>,
    random: Random,
  ) {
    this.timers = new LiveTimers(
      clock,
      (timer, now) => {
        this.takeReads(now);
        // A read's own wake-up (an idle device reaching its time) gives the device nothing.
        if (timer < 0) return;
        this.given(now, RANK_TIMER);
        this.device?.fire(timer, this.lastGivenAt);
      },
      () => this.publish(),
      clock.exact ? this.inbox : null,
    );
    for (const [port, { io, delayNs }] of ports) {
      this.lines.set(port, { port, io, delayNs, queue: new Fifo(), timer: null });
      io.onFrame((frame, arrivalNs) => {
        this.framesIn++;
        this.housekeeping.wake();
        // When the frame arrived on the emulated wire: its sender's stamp (synced clocks), else the kernel's
        // arrival time; not the time we got to it.
        const stamped = this.clock.read(port, frame);
        const arrived = Number.isNaN(stamped) ? this.clock.emulatedAt(arrivalNs) : stamped;
        this.timeLogs[port]?.record(false, arrived, frame);
        if (this.clock.exact) {
          // Taken in time order with the timers, once the whole batch is read and the clock is there.
          this.inbox.add(port, arrived, frame, !Number.isNaN(stamped));
          this.runSoon();
        } else {
          // Never later than now (emulatedAt's contract; a sender's stamp is checked here), never earlier
          // than a time the device was already given; due timers right after, so that ports keep their
          // wire time at any dilation (the catch-up bound is 2 µs).
          this.timers.defer();
          try {
            this.deliver(
              port,
              Number.isNaN(stamped) ? arrived : Math.min(arrived, this.clock.now()),
              frame,
              !Number.isNaN(stamped),
            );
          } finally {
            // Also after a throw: the timers armed meanwhile need their Node timer.
            this.timers.runDue();
          }
        }
      });
    }
    this.env = {
      transmit: (port, frame, leftAt) => this.transmit(port, frame, leftAt),
      // As the simulator arms it: on a whole nanosecond, and never before the event being handled, so a
      // timer armed for a time already given runs after the timers of that time armed before it.
      arm: (timer: TimerId, at) => this.timers.arm(timer, Math.max(Math.ceil(at), this.lastGivenAt)),
      disarm: (timer: TimerId) => this.timers.disarm(timer),
      // Stamped with the time the device was working at (its event's own time), not when the host ran.
      emit: (event: TelemetryEvent) => {
        this.events.push({ ...event, t: this.lastGivenAt });
        this.housekeeping.wake();
      },
      random: random.next,
    };
    this.lineList.push(...this.lines.values());
    clock.followOwnEvents(this.nextOwnEvent);
  }

  /**
   * Starts the housekeeping beat: `report` sends what there is to send and says whether the device was
   * busy (frames, events) since the last beat. An idle device beats every 2 s, a busy one every 100 ms.
   */
  startReporting(report: () => boolean): void {
    this.report = report;
    this.tickedAt = performance.now();
    this.housekeeping.start();
  }

  private beat(): boolean {
    const heartbeatMs = this.clock.heartbeatMs;
    if (heartbeatMs !== null) {
      const now = performance.now();
      // Beats are ACTIVE_MS apart and a little late: 10 ms of slack keeps the cadence at one tick per
      // heartbeat instead of one per heartbeat plus a beat.
      if (now - this.tickedAt >= heartbeatMs - 10) {
        this.tickedAt = now;
        // After the poll phase, like the timers: what arrived during a stall is read before the tick.
        setImmediate(this.tickNow);
      }
    }
    const busy = this.report();
    // Frames the kernel may have lost on the way to us keep the beat (and so the settling) going.
    return busy || !this.clock.settled();
  }

  private readonly tickNow = (): void => {
    this.clock.tick();
    this.timers.runDue();
  };

  /**
   * Runs due timers once the frames that are ready have all been read (setImmediate runs after the I/O
   * poll phase): a timer made due by a late wake-up must not transmit before a pause frame further down
   * the same batch has been seen.
   */
  private runSoon(): void {
    if (this.runScheduled) return;
    this.runScheduled = true;
    setImmediate(this.runScheduledNow);
  }

  private runScheduled = false;
  private readonly runScheduledNow = (): void => {
    this.runScheduled = false;
    this.timers.runDue();
  };

  attach(device: Device): void {
    this.device = device;
    device.start(this.givenNow());
    this.timers.runDue();
  }

  /** Takes the events emitted since the last call. */
  drainEvents(): TimedEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  health(): Health {
    const sync = this.clock.syncStats();
    const lag = this.housekeeping.lag;
    const sampled = lag.count > 0;
    const h: Health = {
      lagP50Ms: sampled ? lag.percentile(50) / 1e6 : 0,
      lagP99Ms: sampled ? lag.percentile(99) / 1e6 : 0,
      lagMaxMs: sampled ? lag.max / 1e6 : 0,
      timerLateMeanNs: this.timers.fired > 0 ? this.timers.latenessSum / this.timers.fired : 0,
      timerLateMaxNs: this.timers.latenessMax,
      timerLateRecentNs: this.timers.latenessRecent,
      framesIn: this.framesIn,
      framesOut: this.framesOut,
      sendErrors: [...this.lines.values()].reduce((a, l) => a + l.io.sendErrors, 0),
      cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
      rssBytes: process.memoryUsage.rss(),
      ...(sync !== null ? { sync } : {}),
      framesLate: this.framesLate,
      framesLateMaxNs: this.framesLateMaxNs,
    };
    lag.reset();
    this.timers.latenessRecent = 0;
    return h;
  }

  close(): void {
    this.housekeeping.stop();
    this.clock.close();
    this.timers.stop();
    for (const line of this.lines.values()) {
      if (line.timer) clearTimeout(line.timer);
      line.io.close();
    }
  }

  /** Starts (`on`) or stops recording the emulated times of `port`'s frames; a stop returns them. */
  frameTimes(port: number, on: boolean): FrameTimes | null {
    if (!this.lines.has(port)) throw new Error(`no port ${port}`);
    const log = this.timeLogs[port];
    if (on) {
      this.timeLogs[port] = new FrameTimeLog();
      return null;
    }
    this.timeLogs[port] = undefined;
    return log?.take() ?? { frames: [], truncated: false };
  }

  /**
   * Applies a control-plane change (a command, a link state) now: after everything already due, and
   * before anything later (no frame or timer is then given an earlier time).
   */
  control<T>(apply: (now: number) => T): T {
    this.timers.runDue();
    const result = apply(this.givenNow());
    this.timers.runDue();
    return result;
  }

  /**
   * The time a read-only request (stats, metrics) reports at: now, but not past the device's next own
   * event (a timer or frame the clock may already have passed by its catch-up bound) and never before an
   * earlier read. Counters computed from time (pause durations) then never go backwards between reads: a
   * pause read as running at now whose expiry at an earlier time is still to run would otherwise shrink
   * at the next read, which Prometheus's rate() takes for a counter reset.
   */
  readNow(): number {
    const t = Math.max(this.lastGivenAt, Math.min(this.clock.now(), this.nextOwnEvent()));
    if (t > this.lastReadAt) this.lastReadAt = t;
    return this.lastReadAt;
  }

  /**
   * Calls `take(at)` at emulated time `at`, once everything before it has run and before anything at or
   * past it does (a frame, a timer, a command): the device's state at the start of `at`. An idle device
   * takes it when its clock gets there. False, and nothing is called, when the device was already given a
   * time at or past `at` (the caller reads it now instead, and says it was late).
   */
  readAt(at: number, take: (at: number) => void): boolean {
    if (this.lastGivenAt >= at) return false;
    let i = this.reads.length;
    while (i > 0 && this.reads[i - 1]!.at > at) i--;
    this.reads.splice(i, 0, { at, take });
    this.timers.arm(this.nextReadTimer--, at);
    return true;
  }

  /** Takes the reads due before the device is given time `t`. */
  private takeReads(t: number): void {
    while (this.reads.length > 0 && this.reads[0]!.at <= t) {
      const r = this.reads.shift()!;
      r.take(r.at);
    }
  }

  private givenNow(): number {
    const now = this.clock.now();
    this.takeReads(now);
    this.given(now, RANK_CONTROL);
    return this.lastGivenAt;
  }

  /** The device is given an event of tie rank `rank` at `at` (or at lastGivenAt if that is later). */
  private given(at: number, rank: number): void {
    if (at > this.lastGivenAt) {
      this.lastGivenAt = at;
      this.lastGivenRank = rank;
    } else if (rank > this.lastGivenRank) {
      this.lastGivenRank = rank;
    }
  }

  /** Hands a frame to the device at `at`, or at the latest time it was already given if that is later. */
  private deliver(port: number, at: number, frame: Uint8Array, stamped: boolean): void {
    // Only a stamped frame can be late: a frame nobody stamped (the host kernel's) carries the kernel's
    // arrival time, which is in the past whenever the process reads it late, and counts as unstamped.
    // Late is also a frame of the nanosecond the device is at, handed over after an event the tie rule
    // puts after it (a timer, a frame of a higher port): the simulator would have taken it first, and a
    // port that then starts at a whole nanosecond instead of going on from its busy-until time sends
    // everything after it a nanosecond apart (exact clocks only: a free-running one fires timers late).
    if (
      stamped &&
      (at < this.lastGivenAt || (this.clock.exact && at === this.lastGivenAt && this.lastGivenRank > port))
    ) {
      this.framesLate++;
      if (this.lastGivenAt - at > this.framesLateMaxNs) this.framesLateMaxNs = this.lastGivenAt - at;
    }
    this.takeReads(Math.max(this.lastGivenAt, at));
    this.given(at, port);
    this.device?.receive(port, frame, this.lastGivenAt);
  }

  /**
   * When this device next runs on its own: a device timer, a received frame waiting for its time or a
   * frame due on a link (emulated ns).
   */
  private readonly nextOwnEvent = (): number => {
    let wake = Math.min(this.timers.nextAt, this.inbox.peekTime());
    for (let i = 0; i < this.lineList.length; i++) {
      const head = this.lineList[i]!.queue.peek();
      if (head !== undefined && head.due < wake) wake = head.due;
    }
    return wake;
  };

  private publish(): void {
    this.clock.publish(this.nextOwnEvent());
  }

  private transmit(port: number, frame: Uint8Array, leftAt: number | undefined): void {
    const line = this.lines.get(port);
    if (!line) return;
    this.housekeeping.wake();
    // A port says when each frame's last bit leaves: after the time the device was given for the event it
    // is handling (a port hands a frame over as its first bit leaves, TxPort), or before it (catching up
    // after a late wake-up); so no clock read is needed for it (one per forwarded frame otherwise). The
    // frame waits out its wire time and the link's delay here, or goes at once when that is too short for
    // a timer.
    const due = (leftAt === undefined ? this.clock.now() : leftAt) + line.delayNs;
    this.timeLogs[port]?.record(true, due - line.delayNs, frame);
    const realMs = this.clock.realNs(due - this.lastGivenAt) / 1e6;
    if (realMs < MIN_DELAY_REAL_MS && line.queue.length === 0) {
      this.framesOut++;
      this.clock.sent(port, due, frame);
      line.io.send(frame);
      return;
    }
    if (line.queue.length === 0) this.clock.holding(port, due);
    line.queue.push({ due, frame });
    if (line.timer === null) this.scheduleFlush(line);
  }

  /**
   * Sends a link's held frames once the clock is at most `early` ns before they are due. An exact (synced)
   * clock sends them one nanosecond early: its receiver waits one nanosecond short of a held frame's time
   * (synced-clock.ts), so two devices holding frames for each other due in the same nanosecond would
   * otherwise each wait for the other; the receiver takes the frame at its time all the same.
   */
  private scheduleFlush(line: DelayLine): void {
    const head = line.queue.peek();
    if (!head) return;
    const early = this.clock.exact ? 1 : 0;
    line.timer = setTimeout(
      () => {
        line.timer = null;
        const now = this.clock.now() + early;
        while (line.queue.length > 0 && line.queue.peek()!.due <= now) {
          this.framesOut++;
          const { due, frame } = line.queue.shift()!;
          this.clock.sent(line.port, due, frame);
          line.io.send(frame);
        }
        this.clock.holding(line.port, line.queue.peek()?.due ?? Number.POSITIVE_INFINITY);
        this.scheduleFlush(line);
        this.publish();
      },
      Math.max(0, this.clock.realMsUntil(head.due - early)),
    );
  }
}
