// The transmit side of one port: serialises frames at the port's emulated line rate.
//
// Queues must build inside our devices (where ECN, PFC and the schedulers live), never in a kernel or a
// runtime, so every device owns the wire time of its ports. A TxPort holds at most one frame "on the
// wire"; when it is done the port asks its owner for the next one (`pull`), which is where a switch's
// scheduler or a NIC's QP arbiter decides, at the last possible moment, what goes next.
//
// Busy-until times are kept exactly, as whole nanoseconds plus a remainder in units of 1/rate ns (integers
// in a double, below 2^53), so a long run keeps the exact rate even though timers fire on integer
// nanoseconds, and a frame whose wire time ends on a whole nanosecond leaves on it. Fractional nanoseconds
// added up in floating point would round differently at different magnitudes of the clock: the simulator's
// clock starts at the scenario's 0, a live lab's hours earlier, and the two runtimes would then send the
// same frame a nanosecond apart (docs/fidelity.md, "Exact wire time"). When a runtime fires the timer late (a live process that waited for
// its millisecond timer, or for a CPU), `onTimer` catches up: frames whose wire time has passed are sent
// at once, so the average rate stays right. Catching up is bounded by MAX_CATCH_UP_NS: after a longer
// stall the wire time is lost, as if the link had idled, instead of leaving as a burst that no real port
// could send (a burst of milliseconds would overrun the PFC headroom downstream). `stalledNs` counts it.
// In the simulator timers are never late, so the bound never applies.

import { wireBytes } from "../wire/ethernet.js";
import type { BitsPerSecond, DeviceEnv, Nanoseconds, TimerId } from "./contract.js";

/** Wire time a late port may still make up, ns (two Node timer ticks at dilation 1000). */
export const MAX_CATCH_UP_NS = 2000;

/** Supplies the next frame to send at `now` (the moment the wire becomes free), or null if none. */
export type PullFrame = (now: Nanoseconds) => Uint8Array | null;

export class TxPort {
  /**
   * When the frame on the wire (if any) has fully left: `busyNsWhole` + `busyRem` / `rate` ns, with
   * 0 <= busyRem < rate. Never fractional in floating point (see the file's comment). Idle since
   * forever at first: a device may start before time 0 (the simulator's bring-up, run/bring-up.ts).
   */
  private busyNsWhole = Number.MIN_SAFE_INTEGER;
  private busyRem = 0;
  private onWire: Uint8Array | null = null;
  /** The frame on the wire's `verified` (DeviceEnv.transmit): what the owner's pull said of it. */
  private onWireVerified = false;
  private up = true;
  /** Inside `pull`: an owner that kicks the port from there must not re-enter (the frame would go twice). */
  private pulling = false;
  /** The line rate, whole bits per second. */
  private rate: BitsPerSecond;
  txFrames = 0;
  txBytes = 0;
  /** Nanoseconds of wire time used (for utilisation). */
  busyNs = 0;
  /** Wire time lost because the runtime woke the port too late to make it up, ns. */
  stalledNs = 0;
  /**
   * Set by the owner inside `pull` when the frame it returns has a known-good ICRC (DeviceEnv.transmit's
   * `verified`); false before every pull, so an owner that never sets it sends every frame unverified.
   */
  pulledVerified = false;

  constructor(
    readonly port: number,
    rate: BitsPerSecond,
    private readonly timer: TimerId,
    private readonly env: DeviceEnv,
    private readonly pull: PullFrame,
  ) {
    this.rate = wholeRate(rate);
  }

  get rateBps(): BitsPerSecond {
    return this.rate;
  }

  /** Change the line rate; takes effect from the next frame (the remainder is carried over, rounded up). */
  setRate(rate: BitsPerSecond): void {
    const next = wholeRate(rate);
    if (this.busyRem > 0) this.busyRem = Math.min(next - 1, Math.ceil((this.busyRem * next) / this.rate));
    this.rate = next;
  }

  get isUp(): boolean {
    return this.up;
  }

  get busy(): boolean {
    return this.onWire !== null;
  }

  /** Nanoseconds `length` bytes occupy the wire, with padding, FCS, preamble and inter-frame gap. */
  serialisationNs(length: number): number {
    return (wireBytes(length) * 8e9) / this.rate;
  }

  /** The owner has something new to send: start it if the wire is idle. */
  kick(now: Nanoseconds): void {
    if (this.onWire !== null || !this.up || this.pulling) return;
    this.notBefore(now);
    this.startNext(now);
  }

  /** The port's timer fired: the frame on the wire is done; send what follows. */
  onTimer(now: Nanoseconds): void {
    while (this.onWire !== null) {
      const frame = this.onWire;
      this.onWire = null;
      this.txFrames++;
      this.txBytes += frame.length;
      this.env.transmit(this.port, frame, Math.min(now, this.busyCeil()), this.onWireVerified);
      if (!this.up) return;
      // The next frame starts when the previous one ended, even if we are running late.
      if (!this.startNext(now)) return;
      if (this.busyCeil() > now) return;
    }
  }

  /**
   * Link state. Down: the frame on the wire is lost (returned so the owner can count it) and the port stops
   * pulling. Up: the port pulls again.
   */
  setUp(up: boolean, now: Nanoseconds): Uint8Array | null {
    this.up = up;
    if (up) {
      this.notBefore(now);
      this.kick(now);
      return null;
    }
    const lost = this.onWire;
    this.onWire = null;
    this.env.disarm(this.timer);
    return lost;
  }

  /** The first whole nanosecond at or after the busy-until time. */
  private busyCeil(): number {
    return this.busyRem > 0 ? this.busyNsWhole + 1 : this.busyNsWhole;
  }

  /** Busy-until = max(busy-until, now) for a whole `now`. */
  private notBefore(now: Nanoseconds): void {
    if (this.busyCeil() > now) return;
    this.busyNsWhole = now;
    this.busyRem = 0;
  }

  /** Pulls the next frame and puts it on the wire from the busy-until time; false if there was none. */
  private startNext(now: Nanoseconds): boolean {
    const floor = now - MAX_CATCH_UP_NS;
    if (this.busyNsWhole < floor) {
      this.stalledNs += floor - this.busyNsWhole - this.busyRem / this.rate;
      this.busyNsWhole = floor;
      this.busyRem = 0;
    }
    // The start rounded to the nearest whole nanosecond (the busy-until time when it is whole).
    const start = 2 * this.busyRem >= this.rate ? this.busyNsWhole + 1 : this.busyNsWhole;
    this.pulling = true;
    this.pulledVerified = false;
    let frame: Uint8Array | null;
    try {
      frame = this.pull(Math.max(start, now));
    } finally {
      this.pulling = false;
    }
    if (frame === null) {
      this.notBefore(now);
      return false;
    }
    const bits = wireBytes(frame.length) * 8;
    this.onWire = frame;
    this.onWireVerified = this.pulledVerified;
    // ns × rate of this frame: below 2^53 for any frame up to 9,216 bytes at any rate up to 1.6 Tb/s.
    const rem = this.busyRem + bits * 1e9;
    const whole = Math.floor(rem / this.rate);
    this.busyNsWhole += whole;
    this.busyRem = rem - whole * this.rate;
    this.busyNs += (bits * 1e9) / this.rate;
    const end = this.busyCeil();
    if (end > now) this.env.arm(this.timer, end);
    return true;
  }
}

/** A line rate as whole bits per second (the exact wire time needs an integer), at least 1. */
function wholeRate(rate: BitsPerSecond): BitsPerSecond {
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new RangeError(`line rate ${rate} b/s is not a positive number`);
  return Math.max(1, Math.round(rate));
}
