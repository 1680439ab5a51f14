// The transmit side of one port: serialises frames at the port's emulated line rate.
//
// Queues must build inside our devices (where ECN, PFC and the schedulers live), never in a kernel or a
// runtime, so every device owns the wire time of its ports. A TxPort holds at most one frame "on the
// wire"; when it is done the port asks its owner for the next one (`pull`), which is where a switch's
// scheduler or a NIC's QP arbiter decides, at the last possible moment, what goes next.
//
// Busy-until times are kept as fractional nanoseconds so a long run keeps the exact rate even though
// timers fire on integer nanoseconds. When a runtime fires the timer late (a live process that waited for
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
  /** When the frame on the wire (if any) has fully left, in fractional ns. */
  private busyUntil = 0;
  private onWire: Uint8Array | null = null;
  private up = true;
  /** Inside `pull`: an owner that kicks the port from there must not re-enter (the frame would go twice). */
  private pulling = false;
  txFrames = 0;
  txBytes = 0;
  /** Nanoseconds of wire time used (for utilisation). */
  busyNs = 0;
  /** Wire time lost because the runtime woke the port too late to make it up, ns. */
  stalledNs = 0;

  constructor(
    readonly port: number,
    private rate: BitsPerSecond,
    private readonly timer: TimerId,
    private readonly env: DeviceEnv,
    private readonly pull: PullFrame,
  ) {}

  get rateBps(): BitsPerSecond {
    return this.rate;
  }

  /** Change the line rate; takes effect from the next frame. */
  setRate(rate: BitsPerSecond): void {
    this.rate = rate;
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
    this.startNext(Math.max(now, this.busyUntil), now);
  }

  /** The port's timer fired: the frame on the wire is done; send what follows. */
  onTimer(now: Nanoseconds): void {
    while (this.onWire !== null) {
      const frame = this.onWire;
      this.onWire = null;
      this.txFrames++;
      this.txBytes += frame.length;
      this.env.transmit(this.port, frame, Math.min(now, Math.ceil(this.busyUntil)));
      if (!this.up) return;
      // The next frame starts when the previous one ended, even if we are running late.
      if (!this.startNext(this.busyUntil, now)) return;
      if (this.busyUntil > now) return;
    }
  }

  /**
   * Link state. Down: the frame on the wire is lost (returned so the owner can count it) and the port stops
   * pulling. Up: the port pulls again.
   */
  setUp(up: boolean, now: Nanoseconds): Uint8Array | null {
    this.up = up;
    if (up) {
      this.busyUntil = Math.max(this.busyUntil, now);
      this.kick(now);
      return null;
    }
    const lost = this.onWire;
    this.onWire = null;
    this.env.disarm(this.timer);
    return lost;
  }

  /** Pulls the next frame and puts it on the wire starting at `start`; false if there was none. */
  private startNext(requested: number, now: Nanoseconds): boolean {
    let start = requested;
    if (start < now - MAX_CATCH_UP_NS) {
      this.stalledNs += now - MAX_CATCH_UP_NS - start;
      start = now - MAX_CATCH_UP_NS;
    }
    this.pulling = true;
    let frame: Uint8Array | null;
    try {
      frame = this.pull(Math.max(Math.round(start), now));
    } finally {
      this.pulling = false;
    }
    if (frame === null) {
      this.busyUntil = Math.max(this.busyUntil, now);
      return false;
    }
    const ns = this.serialisationNs(frame.length);
    this.onWire = frame;
    this.busyUntil = start + ns;
    this.busyNs += ns;
    if (this.busyUntil > now) this.env.arm(this.timer, Math.ceil(this.busyUntil));
    return true;
  }
}
