// One RC queue pair: its requester and responder halves, its DCQCN reaction point and notification-point
// pacer, and the per-QP rate limiter that paces every data packet it sends (requests and READ responses
// alike) at the DCQCN current rate.

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";
import type { Ipv4Address } from "../../wire/bytes.js";
import type { QpCc } from "../cc/cc.js";
import { CC_TIMERS } from "../cc/cc.js";
import { CnpPacer } from "../cc/dcqcn-np.js";
import type { NpSettings } from "../cc/dcqcn-params.js";
import type { NicCounters } from "../counters.js";
import type { QpTransportLayer } from "../features/transport.js";
import { type FrameBuilder, IntEcho } from "./frames.js";
import type { CompletionSink } from "./message.js";
import { Requester } from "./requester.js";
import { Responder } from "./responder.js";
import type { QpLink, TransportSettings } from "./transport.js";
import { QpState, type WcStatus } from "./work-completion.js";

/** Told when a QP goes to the error state, before its work requests are flushed. */
export type QpErrorSink = (qp: QueuePair, status: WcStatus, now: Nanoseconds) => void;

/** A pacer lets a packet start up to this early (timers fire on whole ns; the schedule stays exact). */
export const PACE_SLACK_NS = 1;

/** What creates a QP (see the create-qp command). */
export interface QpInit {
  readonly slot: number;
  readonly qpn: number;
  readonly remoteQpn: number;
  readonly remoteIp: Ipv4Address;
  readonly udpSrcPort: number;
  /** Our requester's first PSN. */
  readonly startPsn: number;
  /** The peer requester's first PSN (what our responder expects). */
  readonly remoteStartPsn: number;
}

/** One RC queue pair with its DCQCN state and pacer. */
export class QueuePair implements QpLink {
  /** Position in the NIC's QP table (timer ids are built from it). */
  readonly slot: number;
  readonly qpn: number;
  readonly remoteQpn: number;
  readonly remoteIp: Ipv4Address;
  /** Changed at run time by set-source-port (path navigation, host mode). */
  udpSrcPort: number;
  readonly requester: Requester;
  readonly responder: Responder;
  readonly np: CnpPacer;
  /** Its congestion control (cc/cc.ts); null: line rate. */
  cc: QpCc | null = null;
  /** Earliest start of this QP's next data packet (pacing), fractional ns. */
  nextSendAt = 0;
  /** No data packet before this time (an RNR NAK's wait), ns. */
  private holdUntil = 0;
  /** The pacing base and bits of the last packet, to re-pace when the rate changes. */
  private paceBase = 0;
  private paceBits = 0;
  /** Alternates between responses and requests when both are waiting. */
  private responsesFirst = true;
  /** Sitting in the NIC's ACK queue. */
  inAckQueue = false;
  /** Connected (always, unless a CM role made it wait for the exchange on the wire: cm-agent.ts). */
  cmReady = true;
  /** Timer bookkeeping (absolute times armed, -1 none), so the NIC arms only on change. */
  readonly armedCc = new Array<number>(CC_TIMERS).fill(-1);
  armedCnp = -1;
  rtoArmed = false;
  cnpSent = 0;
  cnpIgnored = 0;
  /** CE-marked data packets received on this QP (the NP's input). */
  ecnMarked = 0;
  /** Its own QP attributes over the host's (`settings` is then its own object), or null. */
  attributes: QpTransportLayer | null = null;
  /** What the responder echoes in its ACKs: the last INT block received, CE seen since the last ACK. */
  readonly echo = new IntEcho();
  /** Packets in flight the congestion control's window allows (Infinity: no window). */
  ccWindowPackets = Number.POSITIVE_INFINITY;
  /** Ready to send, or in the error state (for good: this NIC does not reset QPs). */
  state: QpState = QpState.Rts;

  constructor(
    init: QpInit,
    readonly builder: FrameBuilder,
    readonly counters: NicCounters,
    readonly settings: TransportSettings,
    np: NpSettings,
    complete: CompletionSink,
    private readonly onError: QpErrorSink = () => {},
  ) {
    this.slot = init.slot;
    this.qpn = init.qpn;
    this.remoteQpn = init.remoteQpn;
    this.remoteIp = init.remoteIp;
    this.udpSrcPort = init.udpSrcPort;
    this.requester = new Requester(this, init.startPsn, complete);
    this.responder = new Responder(this, init.remoteStartPsn);
    this.np = new CnpPacer(np.cnpInterval, np.cnpMode);
  }

  qpError(status: WcStatus, now: Nanoseconds): void {
    if (this.state === QpState.Error) return;
    this.state = QpState.Error;
    this.onError(this, status, now);
    this.responder.enterError();
    this.requester.flush(status, now);
  }

  /** (Re)starts its congestion control (null: none, line rate). The rate goes back to the line rate. */
  setCc(cc: QpCc | null, lineRate: BitsPerSecond): void {
    this.cc = cc;
    this.syncWindow();
    this.repace(lineRate);
  }

  ackReqEvery(): number {
    return this.cc?.ackPerPacket === true ? 1 : this.settings.ackReqEvery;
  }

  inflightLimit(): number {
    return Math.min(this.settings.maxInflightPackets, this.ccWindowPackets);
  }

  /** Follows the congestion control's window (bytes) as a number of packets of the path MTU. */
  syncWindow(): void {
    const w = this.cc?.window ?? 0;
    this.ccWindowPackets = w > 0 ? Math.max(1, Math.ceil(w / this.settings.mtu)) : Number.POSITIVE_INFINITY;
  }

  /** The rate this QP is paced at. */
  rate(lineRate: BitsPerSecond): BitsPerSecond {
    return this.cc === null ? lineRate : this.cc.rate;
  }

  hasData(): boolean {
    return this.cmReady && (this.responder.hasResponses || this.requester.hasWork());
  }

  /** The next data frame (READ response or request), built at `now`, or null. */
  nextFrame(now: Nanoseconds): Uint8Array | null {
    let frame: Uint8Array | null;
    if (this.responsesFirst) frame = this.responder.nextResponse(now) ?? this.requester.next(now);
    else frame = this.requester.next(now) ?? this.responder.nextResponse(now);
    this.responsesFirst = !this.responsesFirst;
    return frame;
  }

  /** An RNR NAK: send nothing (requests nor READ responses) before `until`. */
  hold(until: Nanoseconds): void {
    this.holdUntil = until;
    if (this.nextSendAt < until) this.nextSendAt = until;
  }

  /** A packet of `bits` wire bits started at `now`: the next may start when they have left at RC. */
  paced(now: Nanoseconds, bits: number, lineRate: BitsPerSecond): void {
    const rate = this.rate(lineRate);
    if (rate >= lineRate) {
      // At line rate the port itself is the pacer.
      this.nextSendAt = 0;
      this.paceBits = 0;
      return;
    }
    // Start from the scheduled time when we are (slightly) early, so the long-run rate stays exact.
    this.paceBase = Math.max(this.nextSendAt, now);
    this.paceBits = bits;
    this.nextSendAt = this.paceBase + (bits * 1e9) / rate;
  }

  /** The rate changed: the gap after the last packet follows the new rate. */
  repace(lineRate: BitsPerSecond): void {
    if (this.paceBits === 0) return;
    const rate = this.rate(lineRate);
    const paced = rate >= lineRate ? 0 : this.paceBase + (this.paceBits * 1e9) / rate;
    this.nextSendAt = Math.max(paced, this.holdUntil);
  }
}
