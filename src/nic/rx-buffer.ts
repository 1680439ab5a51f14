// The optional receive buffer (NicConfig.rxBuffer): frames wait here and drain at the host's ingest rate;
// above xoffBytes the NIC pauses its link partner with PFC on the data priority (refreshed before the
// pause runs out), at or below xonBytes it resumes it.

import type { Nanoseconds } from "../device/contract.js";
import { EventKind } from "../device/contract.js";
import { Fifo } from "../device/fifo.js";
import { wireBytes } from "../wire/ethernet.js";
import { buildPfcFrame, quantaToNs } from "../wire/pfc.js";
import { PRIORITIES } from "./config.js";
import { PORT, T_RX_DRAIN, T_XOFF_REFRESH, TIMER_KIND } from "./nic-ids.js";
import type { NicShared } from "./nic-shared.js";
import type { TxArbiter } from "./tx-arbiter.js";

/** Hands a frame that left the buffer to the receive path. */
export type Deliver = (frame: Uint8Array, now: Nanoseconds) => void;

export class RxBuffer {
  private readonly queue = new Fifo<Uint8Array>();
  bytes = 0;
  peakBytes = 0;
  xoff = false;
  private draining = false;
  private drainUntil = 0;
  /** PFC frames sent per priority: pauses and resumes. */
  readonly txPause = new Float64Array(PRIORITIES);
  readonly txResume = new Float64Array(PRIORITIES);

  constructor(
    private readonly s: NicShared,
    private readonly tx: TxArbiter,
    private readonly deliver: Deliver,
  ) {}

  push(frame: Uint8Array, now: Nanoseconds): void {
    this.queue.push(frame);
    this.bytes += frame.length;
    if (this.bytes > this.peakBytes) this.peakBytes = this.bytes;
    if (!this.xoff && this.bytes >= this.s.cfg.rxBuffer.xoffBytes) this.setXoff(true, now);
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
      Math.max(this.drainUntil, now) + (wireBytes(head.length) * 8e9) / this.s.cfg.rxBuffer.hostIngestRateBps;
    this.s.env.arm(T_RX_DRAIN * TIMER_KIND, Math.ceil(this.drainUntil));
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
    if (this.xoff && this.bytes <= this.s.cfg.rxBuffer.xonBytes) this.setXoff(false, now);
    this.startDrain(now);
  }

  /** The XOFF refresh timer fired. */
  onRefresh(now: Nanoseconds): void {
    if (!this.xoff) return;
    // Still above XON: pause again before the previous pause runs out.
    this.sendPfc(this.s.cfg.rxBuffer.pauseQuanta, now);
    this.armXoffRefresh(now);
  }

  /** The buffer was switched off: hand what it holds to the host now, and release the peer. */
  disable(now: Nanoseconds): void {
    while (this.queue.length > 0) {
      const frame = this.queue.shift()!;
      this.bytes -= frame.length;
      this.deliver(frame, now);
    }
    this.s.env.disarm(T_RX_DRAIN * TIMER_KIND);
    this.draining = false;
    if (this.xoff) this.setXoff(false, now);
  }

  clearCounters(): void {
    this.peakBytes = this.bytes;
    this.txPause.fill(0);
    this.txResume.fill(0);
  }

  private setXoff(on: boolean, now: Nanoseconds): void {
    const s = this.s;
    this.xoff = on;
    this.sendPfc(on ? s.cfg.rxBuffer.pauseQuanta : 0, now);
    if (on) {
      this.armXoffRefresh(now);
      s.env.emit({ kind: EventKind.PfcXoff, port: PORT, priority: s.dataPrio });
    } else {
      s.env.disarm(T_XOFF_REFRESH * TIMER_KIND);
      s.env.emit({ kind: EventKind.PfcXon, port: PORT, priority: s.dataPrio });
    }
  }

  private armXoffRefresh(now: Nanoseconds): void {
    const pauseNs = quantaToNs(this.s.cfg.rxBuffer.pauseQuanta, this.s.lineRate);
    this.s.env.arm(T_XOFF_REFRESH * TIMER_KIND, now + Math.max(1, Math.floor(pauseNs / 2)));
  }

  private sendPfc(quanta: number, now: Nanoseconds): void {
    const s = this.s;
    const times: (number | null)[] = [null, null, null, null, null, null, null, null];
    times[s.dataPrio] = quanta;
    this.tx.pushUrgent(buildPfcFrame({ src: s.cfg.port.mac, quanta: times }));
    if (quanta > 0) this.txPause[s.dataPrio]!++;
    else this.txResume[s.dataPrio]!++;
    this.tx.kick(now);
  }
}
