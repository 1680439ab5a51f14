// The transmit side of one port: serialises frames at the port's emulated line rate.
//
// Queues must build inside our devices (where ECN, PFC and the schedulers live), never in a kernel or a
// runtime, so every device owns the wire time of its ports. A TxPort holds at most one frame "on the
// wire"; when it is done the port asks its owner for the next one (`pull`), which is where a switch's
// scheduler or a NIC's QP arbiter decides, at the last possible moment, what goes next.
//
// A frame is handed to the runtime as its first bit leaves, stamped with the time its last bit leaves
// (DeviceEnv.transmit's `leftAt`); the runtime delivers it at that time plus the link's delay. The port's
// timer fires at a frame's end only when something should be pulled then: the owner said it has more
// (`pulledMore`), or kicked (or woke) the port while the frame was on the wire. A port whose queue
// empties thus costs one event per frame (its delivery) instead of two (docs/performance.md, "Serialisation
// end merged into delivery"). The tie rule is unchanged: a frame that ends at nanosecond t holds the wire
// until the port's timer slot at t, after t's frame deliveries, so what arrives at t competes for the wire.
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
  /**
   * The frame on the wire, already handed to the runtime (it arrives at its end + the link's delay), until
   * its end has been dealt with: by the port's timer, or by a kick after it. Kept only to report it lost
   * when the link goes down under it (`setUp`); its bytes are the runtime's.
   */
  private onWire: Uint8Array | null = null;
  /** The port's timer is armed, at the end of the frame on the wire: it pulls what follows. */
  private armed = false;
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
  /**
   * Set by the owner inside `pull` to false when, after the frame it returns, it has nothing else queued
   * for this port, so that no timer need pull at the frame's end; true before every pull (an owner that
   * never sets it gets a timer after every frame). An owner that says false must kick the port when
   * something new is queued, as it must for an idle port.
   */
  pulledMore = true;

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

  /**
   * Bytes sent by `now`: `txBytes` less the frame on the wire, which `txBytes` counts from its first bit
   * and which has left only once its end is past (or dealt with by the port's timer at that nanosecond).
   */
  sentBytes(now: Nanoseconds): number {
    return this.holdsWire(now) ? this.txBytes - this.onWire!.length : this.txBytes;
  }

  /** Nanoseconds `length` bytes occupy the wire, with padding, FCS, preamble and inter-frame gap. */
  serialisationNs(length: number): number {
    return (wireBytes(length) * 8e9) / this.rate;
  }

  /**
   * The owner has something new to send: start it if the wire is idle; if a frame is on the wire, pull at
   * its end. A frame whose end is this nanosecond still holds the wire until the port's timer at that
   * nanosecond, which runs after the nanosecond's frame deliveries (the simulator's tie rule): what
   * arrives at that nanosecond competes for the wire, as when the port's timer pulled after every frame.
   */
  kick(now: Nanoseconds): void {
    if (!this.up || this.pulling || this.armed || this.pullAtEnd(now)) return;
    this.onWire = null; // its end, if any, has passed
    this.notBefore(now);
    this.send(now);
  }

  /**
   * The owner queued something without a kick (it need not kick while the wire is busy): pull at the end
   * of the frame on the wire, as after a frame whose pull said more. An idle port stays idle.
   */
  wake(now: Nanoseconds): void {
    if (this.up && !this.armed) this.pullAtEnd(now);
  }

  /**
   * A frame on the wire at `now`: its end is at or after `now` (in its end's nanosecond it holds the wire
   * until the port's timer slot there, which comes after that nanosecond's deliveries and link changes).
   */
  private holdsWire(now: Nanoseconds): boolean {
    return this.onWire !== null && this.busyCeil() >= now;
  }

  /** Arms the port's timer for the end of the frame holding the wire, if one does; true then. */
  private pullAtEnd(now: Nanoseconds): boolean {
    if (!this.holdsWire(now)) return false;
    this.armed = true;
    this.env.arm(this.timer, this.busyCeil());
    return true;
  }

  /** The port's timer fired: the frame on the wire is done; send what follows. */
  onTimer(now: Nanoseconds): void {
    this.armed = false;
    this.onWire = null;
    if (this.up) this.send(now);
  }

  /**
   * Link state. Down: the frame on the wire is lost (returned so the owner can count it; the runtime drops
   * it too, as the link's generation changed) and the port stops pulling. Up: the port pulls again.
   */
  setUp(up: boolean, now: Nanoseconds): Uint8Array | null {
    this.up = up;
    if (up) {
      this.notBefore(now);
      this.kick(now);
      return null;
    }
    const lost = this.holdsWire(now) ? this.onWire : null;
    this.onWire = null;
    this.armed = false;
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

  /**
   * Pulls frames and puts them on the wire from the busy-until time, each handed to the runtime at once
   * with the time its last bit leaves (DeviceEnv.transmit's `leftAt`); frames whose end has already passed
   * (a live port woken late) follow at once. Arms the port's timer at the last one's end if the owner
   * has more for it.
   */
  private send(now: Nanoseconds): void {
    for (;;) {
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
      this.pulledMore = true;
      let frame: Uint8Array | null;
      try {
        frame = this.pull(Math.max(start, now));
      } finally {
        this.pulling = false;
      }
      if (frame === null) {
        this.notBefore(now);
        return;
      }
      const bits = wireBytes(frame.length) * 8;
      // ns × rate of this frame: below 2^53 for any frame up to 9,216 bytes at any rate up to 1.6 Tb/s.
      const rem = this.busyRem + bits * 1e9;
      const whole = Math.floor(rem / this.rate);
      this.busyNsWhole += whole;
      this.busyRem = rem - whole * this.rate;
      this.busyNs += (bits * 1e9) / this.rate;
      const end = this.busyCeil();
      this.txFrames++;
      this.txBytes += frame.length;
      this.env.transmit(this.port, frame, end, this.pulledVerified);
      if (!this.up) return; // the owner took the link down from the runtime's call
      if (end > now) {
        this.onWire = frame;
        if (this.pulledMore) {
          this.armed = true;
          this.env.arm(this.timer, end);
        }
        return;
      }
    }
  }
}

/** A line rate as whole bits per second (the exact wire time needs an integer), at least 1. */
function wholeRate(rate: BitsPerSecond): BitsPerSecond {
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new RangeError(`line rate ${rate} b/s is not a positive number`);
  return Math.max(1, Math.round(rate));
}
