// Port quality for dynamic load balancing, as merchant silicon measures it (Broadcom's DLB: a port's
// quality is its recent load and its queue size, each quantised into eight bands): an exponentially
// weighted moving average of the bytes a port sent, sampled at most every `sampleNs`, as a fraction of
// its line rate, and its egress queue depth, each mapped to a band 0..7; the quality is their sum, 0
// (idle) .. 14 (saturated and queueing). Lower is better. Sampling is lazy (when a strategy asks), so the
// meter needs no timer: the average decays by the time elapsed since the last sample.

import type { Nanoseconds } from "../device/contract.js";

export interface PortQualitySettings {
  /** Shortest interval between two load samples of a port, ns. */
  readonly sampleNs: Nanoseconds;
  /** Time constant of the load average, ns. */
  readonly windowNs: Nanoseconds;
  /** Queue bytes per quality band (band 7 from 7 × this on). */
  readonly queueBandBytes: number;
}

/** What the meter reads of the switch's ports. */
export interface PortReadings {
  /** Bytes the port has sent by `now` (a counter that may be cleared). */
  txBytes(port: number, now: Nanoseconds): number;
  /** Bytes queued for the port, all queues. */
  queuedBytes(port: number): number;
  rateBps(port: number): number;
}

export const QUALITY_BANDS = 8;

export class PortQualityMeter {
  private readonly lastAt: Float64Array;
  private readonly lastTx: Float64Array;
  /** Average send rate, bits/s. */
  private readonly avgBps: Float64Array;

  constructor(
    numPorts: number,
    private readonly settings: PortQualitySettings,
    private readonly ports: PortReadings,
  ) {
    this.lastAt = new Float64Array(numPorts).fill(-1);
    this.lastTx = new Float64Array(numPorts);
    this.avgBps = new Float64Array(numPorts);
  }

  /** The port's load band 0..7 (average send rate over line rate). */
  loadBand(port: number, now: Nanoseconds): number {
    const at = this.lastAt[port]!;
    const tx = this.ports.txBytes(port, now);
    if (at < 0) {
      this.lastAt[port] = now;
      this.lastTx[port] = tx;
    } else if (now - at >= this.settings.sampleNs) {
      const dt = now - at;
      const sent = Math.max(0, tx - this.lastTx[port]!);
      const alpha = 1 - Math.exp(-dt / this.settings.windowNs);
      this.avgBps[port] = this.avgBps[port]! + ((sent * 8e9) / dt - this.avgBps[port]!) * alpha;
      this.lastAt[port] = now;
      this.lastTx[port] = tx;
    }
    const frac = this.avgBps[port]! / this.ports.rateBps(port);
    return Math.min(QUALITY_BANDS - 1, Math.floor(frac * QUALITY_BANDS));
  }

  /** The port's queue band 0..7. */
  queueBand(port: number): number {
    const bands = Math.floor(this.ports.queuedBytes(port) / this.settings.queueBandBytes);
    return Math.min(QUALITY_BANDS - 1, bands);
  }

  /** Quality 0 (best) .. 14: load band + queue band. */
  quality(port: number, now: Nanoseconds): number {
    return this.loadBand(port, now) + this.queueBand(port);
  }
}
