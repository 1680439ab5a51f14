// The optional receive buffer (NicConfig.rxBuffer): frames wait here and drain at the host's ingest rate;
// above xoffBytes the NIC pauses its link partner with PFC on the data priority (refreshed before the
// pause runs out), at or below xonBytes it resumes it.

import type { Nanoseconds } from "../../device/contract.js";
import { Fifo } from "../../device/fifo.js";
import { PfcCounter } from "../../device/l2/pfc-counters.js";
import { type ControlFrameSink, PfcSender } from "../../device/l2/pfc-sender.js";
import { wireBytes } from "../../wire/ethernet.js";
import { PRIORITIES } from "../../wire/pfc.js";
import { PORT } from "../nic-ids.js";
import type { NicShared } from "../nic-shared.js";
import { PauseHolder, type PauseStall } from "./pause-stall.js";
import type { TxArbiter } from "./tx-arbiter.js";

/** Hands a frame that left the buffer to the receive path. */
export type Deliver = (frame: Uint8Array, now: Nanoseconds) => void;

/** The NIC's XOFF refresh comes after half the pause time. */
const REFRESH_FRACTION = 0.5;

export class RxBuffer implements ControlFrameSink {
  private readonly queue = new Fifo<Uint8Array>();
  bytes = 0;
  peakBytes = 0;
  private draining = false;
  private drainUntil = 0;
  /** XOFF/XON towards the link partner (the shared L2 piece, device/l2/pfc-sender.ts). */
  private readonly pfc: PfcSender;
  /** Above XOFF and not yet drained to XON: the buffer wants its partner paused (whether or not it is). */
  private wantPause = false;

  constructor(
    private readonly s: NicShared,
    private readonly tx: TxArbiter,
    private readonly stall: PauseStall,
    private readonly deliver: Deliver,
  ) {
    const c = s.counterSet;
    const xoffNs = new Float64Array((PORT + 1) * PRIORITIES);
    const counters = {
      txPause: c.add(PfcCounter.txPause),
      txResume: c.add(PfcCounter.txResume),
      xoffNs,
      base: PORT * PRIORITIES,
    };
    c.computed(
      PfcCounter.txPauseDuration,
      (i, now) =>
        i >= counters.base && i < counters.base + PRIORITIES ? this.pfc.xoffNsAt(i - counters.base, now) : 0,
      () => xoffNs.fill(0),
    );
    this.pfc = new PfcSender(PORT, s.cfg.port.mac, s.lineRate, s.env, s.t.xoffRefresh, 0, counters, this);
  }

  /** Whether we hold the link partner paused. */
  get xoff(): boolean {
    return this.pfc.xoff !== 0;
  }

  sendControlFrame(frame: Uint8Array, now: Nanoseconds): boolean {
    this.tx.pushUrgent(frame);
    this.tx.kick(now);
    return true;
  }

  push(frame: Uint8Array, now: Nanoseconds): void {
    if (this.bytes + frame.length > this.s.cfg.rxBuffer.size) {
      // The partner did not stop in time (or ignores our pause): a full buffer drops, as hardware does.
      this.s.counters.rxDiscardsPhy[0]!++;
      return;
    }
    this.queue.push(frame);
    this.bytes += frame.length;
    if (this.bytes > this.peakBytes) this.peakBytes = this.bytes;
    if (!this.wantPause && this.bytes >= this.s.cfg.rxBuffer.xoff) this.setXoff(true, now);
    if (!this.draining) this.startDrain(now);
  }

  private startDrain(now: Nanoseconds): void {
    const head = this.queue.peek();
    if (head === undefined) {
      this.draining = false;
      return;
    }
    this.draining = true;
    this.drainUntil =
      Math.max(this.drainUntil, now) + (wireBytes(head.length) * 8e9) / this.s.cfg.rxBuffer.hostIngestRate;
    this.s.env.arm(this.s.t.rxDrain.id(0), Math.ceil(this.drainUntil));
  }

  /** The drain timer fired: the head frame has reached the host. */
  onDrained(now: Nanoseconds): void {
    const frame = this.queue.shift();
    if (frame === undefined) {
      this.draining = false;
      return;
    }
    this.bytes -= frame.length;
    this.deliver(frame, now);
    if (this.wantPause && this.bytes <= this.s.cfg.rxBuffer.xon) this.setXoff(false, now);
    this.startDrain(now);
  }

  /** The XOFF refresh timer fired (for priority `p`). */
  onRefresh(p: number, now: Nanoseconds): void {
    // Still above XON: pause again before the previous pause runs out.
    this.pfc.refresh(p, now);
  }

  /** The buffer was switched off: hand what it holds to the host now, and release the peer. */
  disable(now: Nanoseconds): void {
    while (this.queue.length > 0) {
      const frame = this.queue.shift()!;
      this.bytes -= frame.length;
      this.deliver(frame, now);
    }
    this.s.env.disarm(this.s.t.rxDrain.id(0));
    this.draining = false;
    if (this.wantPause) this.setXoff(false, now);
  }

  /** PFC stall prevention: no more pause frames (the partner resumes when the last pause runs out). */
  stopPausing(now: Nanoseconds): void {
    for (let p = 0; p < PRIORITIES; p++) this.pfc.release(p, now, false);
  }

  clearCounters(): void {
    this.peakBytes = this.bytes;
  }

  private setXoff(on: boolean, now: Nanoseconds): void {
    this.wantPause = on;
    if (on) {
      this.stall.hold(PauseHolder.RxBuffer, now);
      if (this.stall.stopped) return;
      this.pfc.configure(this.s.cfg.rxBuffer.pauseQuanta, REFRESH_FRACTION);
      this.pfc.assert(this.s.dataPrio, now);
      return;
    }
    for (let p = 0; p < PRIORITIES; p++) this.pfc.release(p, now, true);
    this.stall.release(PauseHolder.RxBuffer);
  }
}
