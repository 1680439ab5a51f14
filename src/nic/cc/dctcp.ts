// DCTCP (Alizadeh et al., SIGCOMM 2010) adapted to RoCE as HPCC's ns-3 does (rdma-hw.cc RdmaHw::HandleAckDctcp,
// run.py's `dctcp` settings): a rate (and the window W · R / R_max) instead of a congestion window. The ACK's
// ECN echo (BTH BECN, set by the receiver when data it covers arrived CE-marked) is counted; once per RTT
// (an ACK past the sequence that was next to send at the last update)
//   α ← (1 − g) · α + g · F,   F = min(1, marked ACKs / packets in the batch)
// and a new batch starts. An ECN echo outside CWR cuts R ← max(minRate, R · (1 − α/2)) and enters CWR until
// an ACK passes what was sent at the cut. At the start of every batch outside CWR, R ← min(R_max, R + R_AI)
// (ns-3's DctcpRateAI: one MTU per RTT). α starts at 1 (ns-3 RdmaQueuePair).

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";
import { AckClockedCc } from "./ack-clocked.js";
import type { AckSample } from "./ack-sample.js";

export interface DctcpParams {
  /** α gain g (run.py: 1/16). */
  readonly g: number;
  /** Additive increase per RTT, bits/s (ns-3 DctcpRateAI). */
  readonly rai: BitsPerSecond;
  readonly minRate: BitsPerSecond;
  /** Window at line rate, bytes (0: none). */
  readonly window: number;
}

export class Dctcp extends AckClockedCc {
  /**
   * HPCC's ns-3 sets m_rate in HandleAckDctcp without ChangeRate: the gap in progress keeps its rate,
   * the new one applies from the next packet.
   */
  readonly repaceOnChange = false;
  readonly ackPerPacket = true;
  alphaValue = 1;
  cuts = 0;
  private ecnCount = 0;
  private batch = 0;
  private lastUpdateSeq = 0;
  private cwr = false;
  private highSeq = 0;

  constructor(
    readonly params: DctcpParams,
    lineRate: BitsPerSecond,
  ) {
    super(lineRate);
  }

  get window(): number {
    const w = this.params.window;
    return w > 0 ? Math.max(1, Math.floor((w * this.rate) / this.maxRate)) : 0;
  }
  override alpha(_now: Nanoseconds): number {
    return this.alphaValue;
  }

  /** An ACK (RdmaHw::HandleAckDctcp); true when the rate changed. */
  onAck(a: AckSample, _now: Nanoseconds): boolean {
    const p = this.params;
    const before = this.rate;
    let newBatch = false;
    if (a.ecnEcho) this.ecnCount++;
    if (a.acked > this.lastUpdateSeq) {
      newBatch = true;
      if (this.lastUpdateSeq === 0) {
        this.lastUpdateSeq = a.sent;
        this.batch = a.sent + 1;
      } else {
        const frac = Math.min(1, this.ecnCount / this.batch);
        this.alphaValue = (1 - p.g) * this.alphaValue + p.g * frac;
        this.lastUpdateSeq = a.sent;
        this.ecnCount = 0;
        this.batch = a.sent - a.acked + 1;
      }
    }
    if (this.cwr && a.acked > this.highSeq) this.cwr = false;
    if (a.ecnEcho && !this.cwr) {
      this.rate = Math.max(p.minRate, this.rate * (1 - this.alphaValue / 2));
      this.cuts++;
      this.cwr = true;
      this.highSeq = a.sent;
    }
    if (!this.cwr && newBatch) this.rate = Math.min(this.maxRate, this.rate + p.rai);
    return this.rate !== before;
  }
}
