// The requester half of an RC queue pair: work requests (WRITE, SEND, READ) in PSN order, segmentation at
// the path MTU, ACK/NAK processing, go-back-N, the retransmission timeout and READ gap recovery, the
// retry counter (IBTA Vol. 1 9.7.6.1.3: retryCnt retries after a local ACK timeout or a PSN-sequence NAK
// without forward progress, reset by progress), error NAKs, and the flush of every outstanding work
// request when the QP goes to the error state.
//
// PSNs are tracked internally as unbounded packet indices v = 0, 1, 2, ... from the QP's start PSN; the
// wire PSN is (startPsn + v) mod 2^24, and a received 24-bit PSN is unwrapped against a nearby index
// (everything on the wire lies within maxInflightPackets of the acknowledged point, far inside 2^23), so
// no comparison anywhere has to care about wrap-around.
//
// Indices: every v < ackedV is acknowledged; sendV is the next PSN to (re)transmit; highV is one past the
// highest PSN ever transmitted (anything below it is a retransmission); nextV is one past the last PSN
// posted. A READ takes one PSN per response packet; its request carries the first of them.
//
// Frames are never kept: a retransmission is rebuilt from the message (opcode, offset, payload pattern)
// because a transmitted frame belongs to the runtime and switches rewrite it in place.

import type { Nanoseconds } from "../../device/contract.js";
import { Fifo } from "../../device/fifo.js";
import { PSN_MASK, psnDiff } from "../../wire/roce.js";
import { regionBase } from "./memory-region.js";
import { type CompletionSink, type Message, ResponseResult } from "./message.js";
import { RetryCounters } from "./retry.js";
import { MsgOp, packetLength, packetsFor, type QpLink, requestOpcode } from "./transport.js";
import { WcStatus } from "./work-completion.js";

/** Compact the message array when this many completed messages sit before the head. */
const COMPACT_AT = 1024;

/** The send side of one RC QP (see the file header for the PSN indices). */
export class Requester {
  private msgs: Message[] = [];
  private head = 0;
  /** Index in `msgs` of the message holding sendV (msgs.length when sendV == nextV). */
  private sendIdx = 0;
  private readonly reissue = new Fifo<Message>();
  nextV = 0;
  sendV = 0;
  highV = 0;
  ackedV = 0;
  /** Last time the requester made progress (ACK advance, response, first send after idle). */
  lastProgressAt: Nanoseconds = 0;
  bytesSent = 0;
  bytesAcked = 0;
  readBytesReceived = 0;
  retransmits = 0;
  readonly retries: RetryCounters;
  /** The QP is in the error state: every request completes flushed at once, nothing is sent. */
  dead = false;
  readonly vaBase: bigint;

  constructor(
    private readonly link: QpLink,
    /** Wire PSN of index 0 (the QP's initial send PSN). */
    readonly startPsn: number,
    private readonly complete: CompletionSink,
  ) {
    this.vaBase = regionBase(link.remoteQpn); // its own region of the peer's memory
    this.retries = new RetryCounters(link.settings);
  }

  /** Wire PSN of index `v`. */
  wire(v: number): number {
    return (this.startPsn + v) & PSN_MASK;
  }

  /** The index of wire PSN `psn` nearest to index `ref`. */
  private unwrap(psn: number, ref: number): number {
    return ref + psnDiff(psn, this.wire(ref));
  }

  get pendingMessages(): number {
    return this.msgs.length - this.head;
  }

  /** Packets sent and not yet acknowledged (what maxInflightPackets bounds). */
  get inflightPackets(): number {
    return Math.max(0, this.highV - this.ackedV);
  }

  post(op: MsgOp, bytes: number, flowId: string, now: Nanoseconds): Message {
    const npkts = packetsFor(bytes, this.link.settings.mtu);
    const m: Message = {
      flowId,
      op,
      bytes,
      npkts,
      startV: this.nextV,
      postedAt: now,
      firstSentAt: -1,
      donePkts: 0,
      retransmits: 0,
      reissueMark: -1,
      completed: false,
    };
    if (this.dead) {
      // A work request posted to a QP in the error state completes at once, flushed (IBTA 10.3.1).
      m.completed = true;
      this.complete(m, now, WcStatus.Flushed);
      return m;
    }
    this.msgs.push(m);
    this.nextV += npkts;
    return m;
  }

  /** Something to transmit now (ignoring pacing and PFC, which the NIC checks). */
  hasWork(): boolean {
    if (this.reissue.length > 0) return true;
    return this.sendV < this.nextV && this.sendV - this.ackedV < this.link.inflightLimit();
  }

  /** Any PSN transmitted and not yet acknowledged or answered (the retransmission timer runs). */
  get outstanding(): boolean {
    if (this.head >= this.msgs.length) return false;
    return this.highV > this.firstUnacked(this.msgs[this.head]!);
  }

  private firstUnacked(m: Message): number {
    return m.op === MsgOp.Read ? m.startV + m.donePkts : Math.max(m.startV, this.ackedV);
  }

  /** The next frame of this QP's requests, built at `now`, or null. */
  next(now: Nanoseconds): Uint8Array | null {
    const quiet = !this.outstanding;
    const frame = this.nextFrame(now);
    // The retransmission timer counts from the first send after a quiet period.
    if (frame !== null && quiet) this.lastProgressAt = now;
    return frame;
  }

  private nextFrame(now: Nanoseconds): Uint8Array | null {
    while (this.reissue.length > 0) {
      const m = this.reissue.shift()!;
      if (m.completed || m.reissueMark !== m.donePkts) continue;
      this.countRetransmit(m);
      return this.readRequest(m, m.donePkts, now);
    }
    while (this.sendV < this.nextV) {
      const m = this.msgs[this.sendIdx]!;
      const end = m.startV + m.npkts;
      if (m.op === MsgOp.Read) {
        const k = Math.max(this.sendV - m.startV, m.donePkts);
        this.sendV = end;
        this.sendIdx++;
        if (m.completed || k >= m.npkts) continue;
        if (m.startV + k < this.highV) this.countRetransmit(m);
        if (end > this.highV) this.highV = end;
        return this.readRequest(m, k, now);
      }
      if (this.sendV < this.ackedV) {
        // Acknowledged while we were going back: skip what the responder already has.
        this.sendV = Math.min(this.ackedV, end);
        if (this.sendV === end) this.sendIdx++;
        continue;
      }
      const v = this.sendV++;
      if (this.sendV === end) this.sendIdx++;
      if (v < this.highV) this.countRetransmit(m);
      else this.highV = v + 1;
      return this.dataPacket(m, v - m.startV, v, now);
    }
    return null;
  }

  private countRetransmit(m: Message): void {
    m.retransmits++;
    this.retransmits++;
    this.link.counters.retransmittedPackets[0]!++;
  }

  private dataPacket(m: Message, k: number, v: number, now: Nanoseconds): Uint8Array {
    const link = this.link;
    const s = link.settings;
    const length = packetLength(m.bytes, m.npkts, k, s.mtu);
    const last = k === m.npkts - 1;
    const ackReq = last || (v + 1) % link.ackReqEvery() === 0;
    // The RETH rides on the first (or only) packet of a WRITE.
    const rethLength = m.op === MsgOp.Write && k === 0 ? m.bytes : -1;
    if (m.firstSentAt < 0) m.firstSentAt = now;
    this.bytesSent += length;
    return link.builder.data(
      link.remoteIp,
      link.udpSrcPort,
      link.remoteQpn,
      requestOpcode(m.op, m.npkts, k),
      this.wire(v),
      ackReq,
      length,
      now,
      this.vaBase,
      rethLength,
      -1,
    );
  }

  /** A READ request for the part of `m` from response packet `k` on. */
  private readRequest(m: Message, k: number, now: Nanoseconds): Uint8Array {
    const link = this.link;
    const offset = k * link.settings.mtu;
    if (m.firstSentAt < 0) m.firstSentAt = now;
    return link.builder.readRequest(
      link.remoteIp,
      link.udpSrcPort,
      link.remoteQpn,
      this.wire(m.startV + k),
      this.vaBase + BigInt(offset),
      m.bytes - offset,
    );
  }

  /**
   * An ACK for wire PSN `psn`: everything up to and including it is acknowledged. An ACK for a PSN not sent
   * yet, or older than the acknowledged point, is ignored (IBTA 9.7.5.1: a response outside the
   * outstanding PSNs is a ghost or a duplicate, silently dropped).
   */
  onAck(psn: number, now: Nanoseconds): void {
    if (this.dead) return;
    const v = this.unwrap(psn, this.ackedV - 1);
    if (v >= this.highV || v < this.ackedV - 1) return; // nothing we have in flight
    this.advance(v + 1, now);
  }

  /**
   * A NAK PSN-sequence-error: the responder expects `psn`; go back and resend from there. It acknowledges
   * everything before `psn`; one that acknowledges nothing new costs a retry, and with none left the QP
   * fails (retry exceeded).
   */
  onNak(psn: number, now: Nanoseconds): void {
    if (this.dead) return;
    const v = this.unwrap(psn, this.ackedV);
    if (v >= this.highV || v < this.ackedV) return;
    if (v === this.ackedV && !this.spendRetry(now)) return;
    this.advance(v, now);
    this.lastProgressAt = now;
    if (v < this.sendV) this.rewind(v);
  }

  /**
   * An error NAK (invalid request, remote access or remote operational error) for wire PSN `psn`: the
   * requests before it are acknowledged, the one holding it fails with `status` and the QP goes to the
   * error state. False when `psn` is not outstanding (ignored).
   */
  onErrorNak(psn: number, status: WcStatus, now: Nanoseconds): boolean {
    if (this.dead) return false;
    const v = this.unwrap(psn, this.ackedV);
    if (v >= this.highV || v < this.ackedV) return false;
    this.advance(v, now);
    this.link.qpError(status, now);
    return true;
  }

  /**
   * An RNR NAK for `psn` (no receive for the SEND there): acknowledges what is before it; costs an RNR retry
   * (none left: rnr_retry_exceeded) and resends from it after `waitNs`. Returns when; -1: ignored or failed.
   */
  onRnrNak(psn: number, waitNs: Nanoseconds, now: Nanoseconds): Nanoseconds {
    if (this.dead) return -1;
    const v = this.unwrap(psn, this.ackedV);
    if (v >= this.highV || v < this.ackedV) return -1;
    this.advance(v, now);
    if (!this.retries.takeRnr()) {
      this.link.qpError(WcStatus.RnrRetryExceeded, now);
      return -1;
    }
    if (v < this.sendV) this.rewind(v);
    this.lastProgressAt = now + waitNs; // the retransmission timer counts from the resend
    return now + waitNs;
  }

  /** Takes one retry; with none left, fails the QP (retry exceeded) and returns false. */
  private spendRetry(now: Nanoseconds): boolean {
    if (this.retries.take()) return true;
    this.link.qpError(WcStatus.RetryExceeded, now);
    return false;
  }

  /** A READ response for wire PSN `psn` with `length` payload bytes. */
  onReadResponse(psn: number, length: number, now: Nanoseconds): ResponseResult {
    const v = this.unwrap(psn, this.ackedV);
    const m = this.find(v);
    if (m === null || m.op !== MsgOp.Read || m.completed) return ResponseResult.Duplicate;
    const k = v - m.startV;
    if (k < m.donePkts) return ResponseResult.Duplicate;
    if (k > m.donePkts) {
      // A response went missing: ask again from the missing offset, once per gap.
      if (m.reissueMark !== m.donePkts) {
        m.reissueMark = m.donePkts;
        this.reissue.push(m);
        this.link.counters.impliedNakSeqErr[0]!++;
      }
      return ResponseResult.Gap;
    }
    if (length !== packetLength(m.bytes, m.npkts, k, this.link.settings.mtu)) return ResponseResult.Invalid;
    m.donePkts++;
    this.retries.reset();
    this.readBytesReceived += length;
    this.lastProgressAt = now;
    // A response implies the responder executed every request before this READ.
    const acked = m.donePkts === m.npkts ? m.startV + m.npkts : m.startV;
    if (acked > this.ackedV) this.ackedV = acked;
    this.completeHead(now);
    return ResponseResult.Accepted;
  }

  /**
   * The retransmission timer expired with no progress: resend from the oldest unacknowledged PSN, or, with
   * no retry left, fail the QP (retry exceeded).
   */
  onTimeout(now: Nanoseconds): void {
    if (this.head >= this.msgs.length || !this.spendRetry(now)) return;
    const m = this.msgs[this.head]!;
    const v = this.firstUnacked(m);
    m.reissueMark = -1;
    this.lastProgressAt = now;
    if (v < this.sendV) this.rewind(v);
  }

  /**
   * The QP went to the error state: every outstanding message completes in posting order, the oldest with
   * `status` (the error that failed the QP) and the others flushed (or `stopped` when the lab stopped
   * them); from now on nothing is sent. Returns how many messages it completed.
   */
  flush(status: WcStatus, now: Nanoseconds): number {
    const pending = this.msgs.slice(this.head);
    this.dead = true;
    this.msgs = [];
    this.head = 0;
    this.sendIdx = 0;
    while (this.reissue.length > 0) this.reissue.shift();
    this.nextV = this.highV;
    this.sendV = this.highV;
    const rest = status === WcStatus.Stopped ? WcStatus.Stopped : WcStatus.Flushed;
    pending.forEach((m, i) => {
      m.completed = true;
      this.complete(m, now, i === 0 ? status : rest);
    });
    return pending.length;
  }

  private rewind(v: number): void {
    this.sendV = v;
    this.sendIdx = this.locate(v);
  }

  private advance(acked: number, now: Nanoseconds): void {
    if (acked <= this.ackedV) return;
    this.ackedV = acked;
    this.lastProgressAt = now;
    this.retries.reset();
    this.completeHead(now);
  }

  /** Completes messages from the head, in order (a READ completes when its last response arrives). */
  private completeHead(now: Nanoseconds): void {
    const mtu = this.link.settings.mtu;
    while (this.head < this.msgs.length) {
      const m = this.msgs[this.head]!;
      if (m.op !== MsgOp.Read) {
        const acked = Math.min(m.npkts, Math.max(0, this.ackedV - m.startV));
        if (acked > m.donePkts) {
          this.bytesAcked += Math.min(m.bytes, acked * mtu) - Math.min(m.bytes, m.donePkts * mtu);
          m.donePkts = acked;
        }
        if (acked < m.npkts) break;
      } else if (m.donePkts < m.npkts) {
        break;
      }
      m.completed = true;
      this.head++;
      this.complete(m, now, WcStatus.Success);
    }
    if (this.head >= COMPACT_AT && this.head * 2 >= this.msgs.length) {
      this.msgs = this.msgs.slice(this.head);
      this.sendIdx -= this.head;
      this.head = 0;
    }
  }

  /** The pending message holding index `v`, or null. */
  private find(v: number): Message | null {
    const i = this.locate(v);
    const m = this.msgs[i];
    return m !== undefined && v >= m.startV ? m : null;
  }

  /** Index in `msgs` of the message holding `v` (msgs.length past the last one; head before the first). */
  private locate(v: number): number {
    let lo = this.head;
    let hi = this.msgs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.msgs[mid]!;
      if (m.startV + m.npkts <= v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
