// The transmit arbiter: what the port sends next when its wire frees up. PFC and ARP replies first, then
// CNPs, then ACK/NAKs (each skipped while PFC pauses its priority), then host-stack frames and RDMA data
// taking turns. Data is round robin over QPs that have something to send, whose priority is not paused,
// that are inside maxInflightPackets and whose pacer allows; when QPs wait only on their pacers, one
// wake-up timer is armed at the earliest next-send time.

import type { Nanoseconds } from "../../device/contract.js";
import { Fifo } from "../../device/fifo.js";
import type { Kick, NicShared } from "../nic-shared.js";
import { PACE_SLACK_NS, type QueuePair } from "../transport/qp.js";
import type { HostPort } from "./host-port.js";
import type { PauseState } from "./pause-state.js";

/** Called for every data frame the arbiter hands to the wire (pacing, DCQCN byte counter, RTO). */
export type DataSent = (qp: QueuePair, frame: Uint8Array, now: Nanoseconds) => void;

export class TxArbiter {
  /** Frames never held by PFC: PFC and ARP replies. */
  private readonly urgent = new Fifo<Uint8Array>();
  private readonly cnps = new Fifo<Uint8Array>();
  /** QPs that owe an ACK or NAK (built when the wire takes it, so several requests coalesce into one). */
  private readonly ackQueue = new Fifo<QueuePair>();
  private rr = 0;
  private wakeAt = -1;
  /** Alternate between the host stack's frames and RDMA data, so neither starves the other. */
  private hostTurn = false;
  /**
   * Whether the frame `choose` returned last was built here with its ICRC (CNPs, CM datagrams, ACKs,
   * data), so the wire may carry it as verified (DeviceEnv.transmit); PFC, ARP and the host stack's
   * frames are not.
   */
  chosenVerified = false;

  constructor(
    private readonly s: NicShared,
    private readonly pause: PauseState,
    private readonly host: HostPort,
    readonly kick: Kick,
    private readonly dataSent: DataSent,
  ) {}

  /** Queue a PFC or ARP frame (the caller kicks the port). */
  pushUrgent(frame: Uint8Array): void {
    this.urgent.push(frame);
  }

  /** Queue a CNP (the caller kicks the port). */
  pushCnp(frame: Uint8Array): void {
    this.cnps.push(frame);
  }

  queueAck(qp: QueuePair, now: Nanoseconds): void {
    if (qp.inAckQueue) return;
    qp.inAckQueue = true;
    this.ackQueue.push(qp);
    this.kick(now);
  }

  /** The wake-up timer fired: the pacers may allow a QP now. */
  onWake(now: Nanoseconds): void {
    this.wakeAt = -1;
    this.kick(now);
  }

  /** The link went down: PFC, ARP replies and CNPs are not worth keeping (the transport resends data). */
  linkDown(): void {
    this.urgent.drain();
    this.cnps.drain();
  }

  /**
   * Whether anything is queued for the wire besides what `choose` just returned (TxPort.pulledMore): a QP
   * that may have data counts, though its window or pacer may hold it (the port's timer then finds
   * nothing, as it always did); without any, whatever comes next kicks the port.
   */
  hasMore(): boolean {
    return (
      this.urgent.length > 0 ||
      this.cnps.length > 0 ||
      this.ackQueue.length > 0 ||
      this.host.backlog > 0 ||
      this.s.txCandidates.next(0, this.s.qps.length) >= 0
    );
  }

  /** The next frame for the wire, or null (TxPort's pull). */
  choose(now: Nanoseconds): Uint8Array | null {
    const s = this.s;
    const paused = this.pause.paused;
    this.chosenVerified = false;
    const urgent = this.urgent.shift();
    if (urgent !== undefined) return urgent;
    if (!((paused >> s.cnpPrio) & 1)) {
      const cnp = this.cnps.shift();
      if (cnp !== undefined) {
        this.chosenVerified = true;
        return cnp;
      }
    }
    if (!((paused >> s.ackPrio) & 1)) {
      for (let qp = this.ackQueue.shift(); qp !== undefined; qp = this.ackQueue.shift()) {
        qp.inAckQueue = false;
        const frame = qp.responder.takeAckFrame();
        if (qp.responder.ackPending || qp.responder.nakPending) this.queueAck(qp, now);
        if (frame !== null) {
          this.chosenVerified = true;
          return frame;
        }
      }
    }
    // Host-stack frames and RDMA data take turns while both have something to send.
    if (this.hostTurn) {
      const host = this.host.take(this.pause.paused);
      if (host !== null) {
        this.hostTurn = false;
        return host;
      }
    }
    const data = this.pullData(now);
    if (data !== null) {
      this.hostTurn = true;
      this.chosenVerified = true;
      return data;
    }
    return this.host.take(this.pause.paused);
  }

  /**
   * Round robin over the QPs from `rr` on, wrapping: the first with data, inside its window and allowed by
   * its pacer sends. Only the candidates (NicShared.txCandidates) are visited, in the same order; a QP
   * without data would be skipped anyway, so the choice is the one a walk over every QP makes.
   */
  private pullData(now: Nanoseconds): Uint8Array | null {
    if ((this.pause.paused >> this.s.dataPrio) & 1) return null;
    const qps = this.s.qps;
    const n = qps.length;
    const candidates = this.s.txCandidates;
    const rr = this.rr < n ? this.rr : 0;
    let earliest = Number.POSITIVE_INFINITY;
    // Two passes: rr ..< n, then 0 ..< rr.
    for (let pass = 0; pass < 2; pass++) {
      const end = pass === 0 ? n : rr;
      for (
        let idx = candidates.next(pass === 0 ? rr : 0, end);
        idx >= 0;
        idx = candidates.next(idx + 1, end)
      ) {
        const qp = qps[idx]!;
        if (!qp.hasData()) {
          candidates.delete(idx);
          continue;
        }
        if (qp.nextSendAt > now + PACE_SLACK_NS) {
          if (qp.nextSendAt < earliest) earliest = qp.nextSendAt;
          continue;
        }
        const frame = qp.nextFrame(now);
        if (frame === null) continue;
        this.rr = (idx + 1) % n;
        this.dataSent(qp, frame, now);
        return frame;
      }
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.armWake(Math.ceil(earliest - PACE_SLACK_NS), now);
    return null;
  }

  private armWake(at: Nanoseconds, now: Nanoseconds): void {
    const t = Math.max(at, now + 1);
    if (this.wakeAt >= 0 && this.wakeAt <= t && this.wakeAt > now) return;
    this.wakeAt = t;
    this.s.env.arm(this.s.t.wake.id(0), t);
  }
}
