// A device clock that keeps pace with the device's neighbours: conservative synchronisation over the
// lab's clock table (clock-table.ts), with each link's propagation delay as the lookahead.
//
// The clock runs like the free-running one (dilated real time) except that it never reaches
//     min over neighbours n of (estimate of n's clock + delay of the link to n)
// (a frame may still arrive then; it stops one nanosecond short, so that the frames of one nanosecond are
// all read before any is taken: the tie rule, inbox.ts), nor passes the device's own next event (timer,
// frame due on a link) by more than a port may catch up.
// When it would, the clock holds: its offset behind real time grows by the time held, and it goes on from
// there. A device that the OS does not run (a busy machine) thus slows its neighbours, and theirs, instead
// of receiving frames they would not have sent had its PFC pause arrived in time: the lab runs slower than
// its dilation, and the emulated network stays what it would be on an idle machine. How long and how
// often the clock held, and how often a neighbour's silence outlasted the grace period (then the bound is
// only as good as the grace), are reported in the device's health.

import { MAX_CATCH_UP_NS } from "../../device/tx-port.js";
import type { DeviceClock, SyncStats } from "./clock.js";
import { type ClockTable, DeviceState, frameTag } from "./clock-table.js";
import { asTimeline, type Dilation, type DilationTimeline } from "./dilation.js";

/** How soon a held clock looks again at its neighbours, real ms (Node timers have 1 ms resolution). */
export const SYNC_POLL_MS = 1;
/**
 * How long a device reuses its neighbours' transitive bounds, real ns: a burst of frames handled at once
 * computes them once (at dilation 1000 this is 20 emulated ns).
 */
export const LOWER_REUSE_NS = 20_000;
/** How often a device settles its link counters (frames the kernel lost), real ms. */
export const SYNC_HEARTBEAT_MS = 200;

export interface SyncedPort {
  readonly port: number;
  /** Link index of frames arriving on this port (this device reads them). */
  readonly rxLink: number;
  /** Link index of frames leaving on this port (this device sends them). */
  readonly txLink: number;
  /** Device index of the neighbour. */
  readonly peer: number;
  readonly delayNs: number;
}

export class SyncedClock implements DeviceClock {
  readonly heartbeatMs = SYNC_HEARTBEAT_MS;
  readonly exact = true;
  private ownNext: () => number = () => Number.POSITIVE_INFINITY;
  private offset = 0;
  private last = 0;
  private lastReal = 0;
  private held = false;
  private holds = 0;
  private graceExceeded = 0;
  private worstSilenceNs = 0;
  private unstamped = 0;
  private readonly rxLink: Int32Array;
  private readonly txLink: Int32Array;
  private readonly peers: readonly SyncedPort[];
  /** Per incoming link: SENT and READ as the previous heartbeat saw them. */
  private readonly settleAt: Float64Array;
  private readonly readAt: Float64Array;
  /** Per neighbour (index into peers): whether its silence is past the grace period right now. */
  private readonly overdue: Uint8Array;
  /** Scratch for ClockTable.lowerBounds: one entry per device of the lab. */
  private readonly lower: Float64Array;
  private lowerAt = Number.NEGATIVE_INFINITY;
  private readonly timeline: DilationTimeline;

  constructor(
    /** Real ns since the lab's epoch (process.hrtime based in a device process; a fake in tests). */
    private readonly real: () => number,
    /** The epoch as a CLOCK_MONOTONIC ns value (kernel arrival times are converted with it). */
    private readonly epochNs: number,
    dilation: Dilation,
    private readonly table: ClockTable,
    private readonly self: number,
    ports: readonly SyncedPort[],
    /** Real ns a neighbour with work is assumed to keep running after its last publication. */
    private readonly graceNs: number,
  ) {
    this.timeline = asTimeline(dilation);
    const maxPort = Math.max(0, ...ports.map((p) => p.port));
    this.rxLink = new Int32Array(maxPort + 1).fill(-1);
    this.txLink = new Int32Array(maxPort + 1).fill(-1);
    for (const p of ports) {
      this.rxLink[p.port] = p.rxLink;
      this.txLink[p.port] = p.txLink;
    }
    this.peers = ports;
    this.settleAt = new Float64Array(table.links);
    this.readAt = new Float64Array(table.links).fill(-1);
    this.overdue = new Uint8Array(ports.length);
    this.lower = new Float64Array(table.devices);
    // Frames left on our incoming links by a previous process of this device are not ours to read.
    for (const p of ports) table.settle(p.rxLink, table.sent(p.rxLink));
    this.lastReal = this.real();
    // A restarted device starts where its neighbours are, not where the real clock is.
    const free = this.timeline.emulated(this.lastReal);
    this.last = Math.max(0, Math.min(free, this.bound(this.lastReal)));
    this.offset = free - this.last;
    table.publish(self, this.lastReal, this.last, this.offset, Number.POSITIVE_INFINITY);
    table.setState(self, DeviceState.Running);
  }

  /** The dilation in force now. */
  get dilation(): number {
    return this.timeline.factor(this.lastReal);
  }

  now(): number {
    const real = this.real();
    const t = this.timeline.emulated(real) - this.offset;
    this.lastReal = real;
    if (t <= this.last) return this.last;
    // Nor past the device's own next event by more than a port may catch up: a process that wakes late
    // fires its timers at their times (the lab slows) instead of losing wire time or bunching frames.
    const b = Math.min(this.bound(real), this.ownNext() + MAX_CATCH_UP_NS);
    if (t > b) {
      const to = Math.max(b, this.last);
      this.offset += t - to;
      // At once, not at the next publication: neighbours that take us to follow the real clock (idle) or
      // to have run since our work appeared would otherwise put us where the held time says we are not.
      this.table.setOffset(this.self, this.offset);
      if (!this.held) this.holds++;
      this.held = true;
      this.last = to;
      return to;
    }
    this.held = false;
    this.last = t;
    return t;
  }

  followOwnEvents(next: () => number): void {
    this.ownNext = next;
  }

  /**
   * A frame's kernel arrival time as this clock's emulated time: with the offset the clock has now (an
   * offset that grew since the frame arrived makes the time earlier, and the device host keeps times
   * from going backwards), and never later than now().
   */
  emulatedAt(hrtimeNs: number): number {
    return Math.min(this.timeline.emulated(hrtimeNs - this.epochNs) - this.offset, this.now());
  }

  realMsUntil(at: number): number {
    const ms = (this.realAt(at) - this.real()) / 1e6;
    return this.held ? Math.min(ms, SYNC_POLL_MS) : ms;
  }

  realNs(emulatedNs: number): number {
    return emulatedNs * this.dilation;
  }

  holding(port: number, due: number): void {
    const l = this.txLink[port] ?? -1;
    if (l >= 0) this.table.setHead(l, due);
  }

  sent(port: number, due: number, frame: Uint8Array): void {
    const l = this.txLink[port] ?? -1;
    if (l >= 0) this.table.noteSent(l, this.real(), due, frameTag(frame));
  }

  read(port: number, frame: Uint8Array): number {
    const l = this.rxLink[port] ?? -1;
    if (l < 0) return Number.NaN;
    const due = this.table.noteRead(l, frameTag(frame), this.dueReal);
    if (Number.isNaN(due)) this.unstamped++;
    return due;
  }

  /**
   * When a frame read now and arriving at emulated `due` (NaN: unstamped, handled now) is handled, real ns,
   * with the offset the table has for us (now() writes it as soon as it grows): neighbours read WAKE back
   * with it (clock-table.ts estimate).
   */
  private readonly dueReal = (due: number): number => (Number.isNaN(due) ? this.real() : this.realAt(due));

  publish(wakeAt: number): void {
    // A timer that is due but held back converts to a real time in the past: the device has work now.
    const wake = wakeAt === Number.POSITIVE_INFINITY ? wakeAt : this.realAt(wakeAt);
    // Not past an own event still to run: a host callback that read the clock (a delay line's flush) may
    // publish before the timers that fell due meanwhile have run, and what they send leaves at their time.
    this.table.publish(this.self, this.lastReal, Math.min(this.last, wakeAt), this.offset, wake);
  }

  /**
   * Called every few tens of real ms, after the event loop has polled the ports: frames counted as sent
   * to us before the previous call, on a link from which we have read nothing since, were lost by the
   * kernel (a full ring); stop counting them as unread. A link we did read from is left alone: its frames
   * are coming (after a stall the backlog is read before this runs), and settling them would make the
   * read count overtake the sent count and the device look idle while it has work.
   */
  tick(): void {
    for (const p of this.peers) {
      const l = p.rxLink;
      const read = this.table.read(l);
      const before = this.settleAt[l]!;
      if (read === this.readAt[l] && before > read) this.table.settle(l, before);
      this.readAt[l] = this.table.read(l);
      this.settleAt[l] = this.table.sent(l);
    }
  }

  settled(): boolean {
    for (const p of this.peers) if (this.table.read(p.rxLink) < this.table.sent(p.rxLink)) return false;
    return true;
  }

  /** The device stops: it constrains nobody any more. */
  close(): void {
    this.table.setState(this.self, DeviceState.Gone);
  }

  syncStats(): SyncStats {
    return {
      heldNs: this.offset,
      holds: this.holds,
      graceExceeded: this.graceExceeded,
      worstSilenceMs: this.worstSilenceNs / 1e6,
      unstamped: this.unstamped,
    };
  }

  /** Real ns at which this clock reads emulated `at`, with the offset it has now. */
  private realAt(at: number): number {
    return this.timeline.realAt(at + this.offset);
  }

  private bound(real: number): number {
    // Every device's bound, for the neighbours' to be the transitive ones (ClockTable.lowerBounds). They
    // grow with real time, so a set at most LOWER_REUSE_NS old is a little lower than a fresh one; the
    // exception is a busy neighbour trusted for the grace that publishes less progress than assumed,
    // and the reuse adds at most LOWER_REUSE_NS / dilation to that bet.
    if (!(real >= this.lowerAt && real - this.lowerAt < LOWER_REUSE_NS)) {
      this.table.lowerBounds(this.self, real, this.timeline, this.graceNs, this.lower);
      this.lowerAt = real;
    }
    let b = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.peers.length; i++) {
      const p = this.peers[i]!;
      const e = this.lower[p.peer]!;
      if (e + p.delayNs < b) b = e + p.delayNs;
      // Frames already on their way to us (unread, or held back by the sender for the link's delay) must
      // arrive before we pass their time.
      const next = this.table.nextArrival(p.rxLink);
      if (next < b) b = next;
      const silence = this.table.silence(p.peer, real);
      if (silence > this.worstSilenceNs) this.worstSilenceNs = silence;
      // A bet only with a grace: with none, a silent neighbour is taken to be where it published.
      if (this.graceNs > 0 && silence > this.graceNs) {
        if (!this.overdue[i]) this.graceExceeded++;
        this.overdue[i] = 1;
      } else {
        this.overdue[i] = 0;
      }
    }
    // One nanosecond short of it: a frame may still arrive at b itself, and the frames of one nanosecond
    // are taken in port order (the tie rule, inbox.ts), so the clock reaches a time only once every frame
    // of that time is read. Nor past the supervisor's gate (its timeline's next step, not yet handed over).
    const gate = this.table.gate();
    return gate < b - 1 ? gate : b - 1;
  }
}
