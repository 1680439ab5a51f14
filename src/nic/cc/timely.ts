// TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015) as HPCC's
// ns-3 implements it (rdma-hw.cc RdmaHw::UpdateRateTimely, defaults of RdmaHw's attributes and run.py). The
// RTT is the ACK's arrival time minus the send time the data packet carried and the ACK echoes (an INT
// block in Timestamp mode, wire/int-md.ts). Once per RTT (an ACK past the sequence that was next to
// send at the last update):
//   rttDiff  ← (1 − α) · rttDiff + α · (rtt − prevRtt);   gradient = rttDiff / minRtt
//   rtt < T_low                 increase
//   rtt > T_high                R ← R · (1 − β · (1 − T_high / rtt))
//   gradient ≤ 0                increase
//   otherwise                   R ← R · max(0, 1 − β · gradient)
//   increase: R ← R + δ (R_AI), or R + R_HAI once 5 increases in a row (HAI mode); capped at line rate.
// Decreases are floored at minRate and reset the increase count. The first RTT only records the RTT.
// ns-3's FastReactTimely does nothing, so ACKs between updates are ignored here too.

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";
import { AckClockedCc } from "./ack-clocked.js";
import type { AckSample } from "./ack-sample.js";

export interface TimelyParams {
  /** EWMA weight α of the RTT difference (ns-3 TimelyAlpha). */
  readonly alpha: number;
  /** Multiplicative decrease β (ns-3 TimelyBeta). */
  readonly beta: number;
  readonly tLow: Nanoseconds;
  readonly tHigh: Nanoseconds;
  /** Normaliser of the gradient (ns-3 TimelyMinRtt). */
  readonly minRtt: Nanoseconds;
  /** Additive step δ (ns-3 RateAI) and the HAI step (RateHAI), bits/s. */
  readonly rai: BitsPerSecond;
  readonly rhai: BitsPerSecond;
  /** Increases in a row before HAI. */
  readonly haiThreshold: number;
  readonly minRate: BitsPerSecond;
}

export class Timely extends AckClockedCc {
  /**
   * HPCC's ns-3 sets m_rate in UpdateRateTimely without ChangeRate: the gap in progress keeps its
   * rate, the new one applies from the next packet.
   */
  readonly repaceOnChange = false;
  readonly ackPerPacket = true;
  /** Latest RTT sample (ns) and the smoothed difference, for telemetry. */
  rtt = 0;
  rttDiff = 0;
  incStage = 0;
  updates = 0;
  private lastRtt = 0;
  private lastUpdateSeq = 0;

  constructor(
    readonly params: TimelyParams,
    lineRate: BitsPerSecond,
  ) {
    super(lineRate);
  }

  get window(): number {
    return 0;
  }

  /** An ACK (RdmaHw::HandleAckTimely); true when the rate changed. */
  onAck(a: AckSample, now: Nanoseconds): boolean {
    if (a.echoedSentAt < 0 || a.acked <= this.lastUpdateSeq) return false;
    const p = this.params;
    const rtt = now - a.echoedSentAt;
    this.rtt = rtt;
    const before = this.rate;
    if (this.lastUpdateSeq !== 0) {
      const diff = (1 - p.alpha) * this.rttDiff + p.alpha * (rtt - this.lastRtt);
      const gradient = diff / p.minRtt;
      let c = 1;
      let inc: boolean;
      if (rtt < p.tLow) inc = true;
      else if (rtt > p.tHigh) {
        c = 1 - p.beta * (1 - p.tHigh / rtt);
        inc = false;
      } else if (gradient <= 0) inc = true;
      else {
        c = Math.max(0, 1 - p.beta * gradient);
        inc = false;
      }
      if (inc) {
        this.rate = Math.min(this.maxRate, this.rate + (this.incStage < p.haiThreshold ? p.rai : p.rhai));
        this.incStage++;
      } else {
        this.rate = Math.max(p.minRate, this.rate * c);
        this.incStage = 0;
      }
      this.rttDiff = diff;
      this.updates++;
    }
    if (a.sent > this.lastUpdateSeq) {
      this.lastUpdateSeq = a.sent;
      this.lastRtt = rtt;
    }
    return this.rate !== before;
  }
}
