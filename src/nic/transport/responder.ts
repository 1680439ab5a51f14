// The responder half of an RC queue pair: the expected PSN, in-order acceptance of WRITE and SEND packets,
// coalesced ACKs on AckReq, duplicate handling, and READ execution (streaming responses at the QP's own,
// DCQCN-paced, rate). An in-order request it cannot execute draws the error NAK of IBTA Vol. 1 9.9.3
// (responder class C errors, as Linux rxe's responder answers them): NAK Invalid Request (AETH 0x61) for
// an opcode out of sequence, an unsupported or reserved RC opcode, a length that does not fit the path
// MTU or the RETH, or a malformed packet that passed the ICRC; NAK Remote Access Error (0x62) for an R_Key
// or bounds violation (memory-region.ts). The PSN check comes first, as in rxe: an unsupported opcode
// behind the expected PSN is a duplicate, one ahead of it out of sequence. The QP then goes to the error
// state and drops every later request. Whether a PSN is in order, a duplicate or out of order (and NAKed) is decided by the
// QP's ReceiveOrder (receive-order.ts; go-back-N by default, out-of-order placement within a window when
// the NIC's reorder setting is on: reorder-window.ts).

import type { Nanoseconds } from "../../device/contract.js";
import { Fifo } from "../../device/fifo.js";
import { AethSyndrome, psnAdd, psnDiff } from "../../wire/roce.js";
import { Access } from "./memory-region.js";
import { Arrival, GoBackN, type ReceiveOrder } from "./receive-order.js";
import { ReorderWindow } from "./reorder-window.js";
import {
  KIND_READ_REQUEST,
  KIND_SEND,
  KIND_UNSUPPORTED,
  KIND_WRITE,
  opcodePosition,
  Position,
  packetLength,
  packetsFor,
  type QpLink,
  readResponseOpcode,
} from "./transport.js";
import { WcStatus } from "./work-completion.js";

/** What the responder did with a request packet. */
export const RequestResult = {
  /** In order: executed (payload delivered, READ queued). */
  Accepted: 0,
  Duplicate: 1,
  OutOfSequence: 2,
  /** In order but not a valid continuation (opcode sequence, length): NAK Invalid Request, QP error. */
  Invalid: 3,
  /** Ahead of the expected PSN, within the reorder window: kept until the gap closes. */
  Placed: 4,
  /** In order with a bad R_Key or outside the memory region: NAK Remote Access Error, QP error. */
  AccessError: 5,
  /** The QP is in the error state: dropped. */
  QpError: 6,
  /** A SEND with no receive posted: RNR NAK, the requester waits and resends. */
  ReceiverNotReady: 7,
} as const;
export type RequestResult = (typeof RequestResult)[keyof typeof RequestResult];

/** A READ being answered: response packets `sent` .. `npkts` − 1, PSNs from `psn`. */
interface ReadJob {
  readonly psn: number;
  readonly npkts: number;
  readonly bytes: number;
  sent: number;
}

const NONE = -1;

/** The receive side of one RC QP. */
export class Responder {
  /** The PSN expected next (24 bits). */
  ePsn: number;
  /** Messages completed (the AETH MSN), 24 bits. */
  msn = 0;
  /** An ACK is owed (sent from the control queue with the state at that moment). */
  ackPending = false;
  /** A NAK is owed for `nakPsn`. */
  nakPending = false;
  nakPsn = 0;
  /** The owed NAK's AETH syndrome (PSN sequence error, or an error NAK). */
  nakSyndrome: number = AethSyndrome.NakPsnSequenceError;
  /** The QP is in the error state: requests are dropped, nothing is acknowledged. */
  dead = false;
  /** Kind (KIND_WRITE / KIND_SEND) of the multi-packet message in progress, or NONE. */
  private inMessage = NONE;
  /** The order seam when it places out-of-order packets, else null. */
  private window: ReorderWindow | null;
  /** WRITE: bytes the RETH announced that have not arrived yet. */
  private writeRemaining = 0;
  private readonly jobs: ReadJob[] = [];
  /** Receives posted (Infinity: no receive queue, a receive is always there). */
  private recvPosted: number;
  /** When each used receive is posted again, in order (the application's re-post after its SEND landed). */
  private readonly reposts = new Fifo<number>();
  /** WRITE/SEND payload bytes accepted in order (each byte once). */
  bytesDelivered = 0;
  messagesDelivered = 0;
  /** READ response payload bytes sent (retransmissions included). */
  bytesSent = 0;

  constructor(
    private readonly link: QpLink,
    /** The PSN the peer's requester starts at. */
    startPsn: number,
    private order: ReceiveOrder = receiveOrderFor(link),
  ) {
    this.ePsn = startPsn;
    this.recvPosted = link.settings.recvDepth ?? Number.POSITIVE_INFINITY;
    this.window = order instanceof ReorderWindow ? order : null;
  }

  /**
   * A new reorder window at run time (0: go-back-N). Packets placed by the old window are forgotten: the
   * gap before them draws a NAK and the requester resends them.
   */
  setReorderWindow(window: number): void {
    if ((this.window?.window ?? 0) === window) return;
    this.order = window > 0 ? new ReorderWindow(window) : new GoBackN(this.link.settings);
    this.window = this.order instanceof ReorderWindow ? this.order : null;
  }

  get hasResponses(): boolean {
    return this.jobs.length > 0;
  }

  /**
   * A request packet (WRITE, SEND or READ request, or KIND_UNSUPPORTED: an RC request opcode this NIC does
   * not execute) for this QP. `dmaLength` comes from its RETH (-1 when it has none), `access` is the RETH's
   * access check (memory-region.ts; Access.Granted when it has none).
   */
  onRequest(
    kind: number,
    opcode: number,
    psn: number,
    ackReq: boolean,
    length: number,
    dmaLength: number,
    access: Access,
    now: Nanoseconds,
  ): RequestResult {
    if (this.dead) return RequestResult.QpError;
    const counters = this.link.counters;
    const arrival = this.order.arrive(psn, this.ePsn);
    if (arrival === Arrival.Placed && this.window !== null) {
      const depth = psnDiff(psn, this.ePsn);
      this.window.place(psn, depth, kind, opcode, ackReq, length, dmaLength, access);
      counters.oooPlacedPackets[0]!++;
      if (depth > counters.oooMaxDepth[0]!) counters.oooMaxDepth[0]! = depth;
      return RequestResult.Placed;
    }
    if (arrival === Arrival.OutOfOrder || arrival === Arrival.OutOfOrderNak) {
      counters.outOfSequence[0]!++;
      if (arrival === Arrival.OutOfOrderNak) {
        this.nakPending = true;
        this.nakPsn = this.ePsn;
        this.nakSyndrome = AethSyndrome.NakPsnSequenceError;
      }
      return RequestResult.OutOfSequence;
    }
    if (arrival === Arrival.Duplicate) {
      counters.duplicateRequest[0]!++;
      if (kind === KIND_READ_REQUEST) this.restartRead(psn, dmaLength);
      else if (ackReq) this.ackPending = true;
      return RequestResult.Duplicate;
    }
    if (kind === KIND_SEND && this.inMessage === NONE && !this.takeReceive(now)) return this.notReady(psn);
    const result = this.execute(kind, opcode, psn, ackReq, length, dmaLength, access);
    if (result !== RequestResult.Accepted) return this.refuse(result, psn, now);
    if (kind === KIND_SEND && this.inMessage === NONE && this.recvPosted !== Number.POSITIVE_INFINITY)
      this.reposts.push(now + this.link.settings.recvRepostNs);
    if (this.window !== null && this.window.placed > 0) this.drain(now);
    return result;
  }

  /**
   * A request packet for this QP that is malformed although its ICRC passed (a length the headers do not
   * account for, a missing extension header): at the expected PSN it draws NAK Invalid Request.
   */
  onMalformed(psn: number, now: Nanoseconds): void {
    if (!this.dead && psn === this.ePsn) this.refuse(RequestResult.Invalid, psn, now);
  }

  /** An in-order request that cannot be executed: its error NAK, and the QP to the error state. */
  private refuse(result: RequestResult, psn: number, now: Nanoseconds): RequestResult {
    const counters = this.link.counters;
    this.nakPending = true;
    this.nakPsn = psn;
    if (result === RequestResult.AccessError) {
      counters.respRemoteAccessErrors[0]!++;
      this.nakSyndrome = AethSyndrome.NakRemoteAccessError;
    } else {
      counters.rxInvalidRequest[0]!++;
      this.nakSyndrome = AethSyndrome.NakInvalidRequest;
    }
    counters.respCqeError[0]!++;
    this.link.qpError(WcStatus.Flushed, now);
    return result;
  }

  /** A SEND opens a message: it takes a posted receive (those re-posted by `now` count); false when none. */
  private takeReceive(now: Nanoseconds): boolean {
    while (this.reposts.length > 0 && this.reposts.peek()! <= now) {
      this.reposts.shift();
      this.recvPosted++;
    }
    if (this.recvPosted === 0) return false;
    this.recvPosted--;
    return true;
  }

  /**
   * No receive for a SEND (IBTA 9.7.5.2.8): RNR NAK for its PSN with our RNR timer code; the SEND is not
   * executed and the packets behind it are a gap already NAKed (silent until the PSN comes again).
   */
  private notReady(psn: number): RequestResult {
    this.link.counters.outOfBuffer[0]!++;
    this.nakPending = true;
    this.nakPsn = psn;
    this.nakSyndrome = AethSyndrome.rnrNak(this.link.settings.minRnrTimer);
    this.order.naked();
    return RequestResult.ReceiverNotReady;
  }

  /** The QP went to the error state: queued READ responses and owed ACKs are dropped (an owed NAK stays). */
  enterError(): void {
    this.dead = true;
    this.ackPending = false;
    this.jobs.length = 0;
    this.window?.clear();
  }

  /** Executes the placed packets that now follow in order; a refused one fails the QP. */
  private drain(now: Nanoseconds): void {
    const w = this.window!;
    while (w.placed > 0 && w.take(this.ePsn)) {
      const psn = this.ePsn;
      const r = this.execute(w.kind, w.opcode, psn, w.ackReq, w.length, w.dmaLength, w.access as Access);
      if (r !== RequestResult.Accepted) {
        w.clear();
        this.refuse(r, psn, now);
        return;
      }
    }
  }

  /** An in-order request packet: execute it. */
  private execute(
    kind: number,
    opcode: number,
    psn: number,
    ackReq: boolean,
    length: number,
    dmaLength: number,
    access: Access,
  ): RequestResult {
    const counters = this.link.counters;
    if (kind === KIND_UNSUPPORTED) return RequestResult.Invalid;
    if (kind === KIND_READ_REQUEST) {
      if (this.inMessage !== NONE) return RequestResult.Invalid;
      if (access !== Access.Granted) return RequestResult.AccessError;
      const npkts = packetsFor(dmaLength, this.link.settings.mtu);
      this.jobs.push({ psn, npkts, bytes: dmaLength, sent: 0 });
      this.ePsn = psnAdd(this.ePsn, npkts);
      this.msn = (this.msn + 1) & 0xff_ffff;
      this.order.advanced();
      counters.rxReadRequests[0]!++;
      return RequestResult.Accepted;
    }
    const pos = opcodePosition(opcode);
    const mtu = this.link.settings.mtu;
    const opens = pos === Position.Only || pos === Position.First;
    if (opens ? this.inMessage !== NONE : this.inMessage !== kind) return RequestResult.Invalid;
    // Every packet but the last of a message is full; the last carries 1..mtu bytes.
    if (pos === Position.First || pos === Position.Middle ? length !== mtu : length > mtu)
      return RequestResult.Invalid;
    if (kind === KIND_WRITE) {
      if (opens) {
        if (access !== Access.Granted) return RequestResult.AccessError;
        this.writeRemaining = dmaLength;
      }
      const closes = pos === Position.Only || pos === Position.Last;
      if (length > this.writeRemaining || (closes && length !== this.writeRemaining))
        return RequestResult.Invalid;
      this.writeRemaining -= length;
    }
    this.ePsn = psnAdd(this.ePsn, 1);
    this.order.advanced();
    this.bytesDelivered += length;
    if (opens) {
      if (kind === KIND_WRITE) counters.rxWriteRequests[0]!++;
      else if (kind === KIND_SEND) counters.rxSendRequests[0]!++;
    }
    if (pos === Position.Only || pos === Position.Last) {
      this.inMessage = NONE;
      this.msn = (this.msn + 1) & 0xff_ffff;
      this.messagesDelivered++;
    } else {
      this.inMessage = kind;
    }
    if (ackReq) this.ackPending = true;
    return RequestResult.Accepted;
  }

  /**
   * A duplicate READ request: the requester missed responses from `psn` on (or the whole read). Answer
   * again from there, dropping what is still queued for the same PSNs, ahead of other reads.
   */
  private restartRead(psn: number, bytes: number): void {
    if (bytes < 0) return;
    const npkts = packetsFor(bytes, this.link.settings.mtu);
    const end = psnAdd(psn, npkts);
    for (let i = this.jobs.length - 1; i >= 0; i--) {
      const j = this.jobs[i]!;
      const from = psnAdd(j.psn, j.sent);
      const to = psnAdd(j.psn, j.npkts);
      if (psnDiff(to, psn) > 0 && psnDiff(end, from) > 0) this.jobs.splice(i, 1);
    }
    this.jobs.unshift({ psn, npkts, bytes, sent: 0 });
  }

  /** The next READ response packet, built at `now`, or null. */
  nextResponse(now: Nanoseconds): Uint8Array | null {
    const job = this.jobs[0];
    if (job === undefined) return null;
    const link = this.link;
    const k = job.sent++;
    if (job.sent === job.npkts) this.jobs.shift();
    const opcode = readResponseOpcode(job.npkts, k);
    const length = packetLength(job.bytes, job.npkts, k, link.settings.mtu);
    // First, last and only responses carry an AETH.
    const withAeth = job.npkts === 1 || k === 0 || k === job.npkts - 1;
    this.bytesSent += length;
    return link.builder.data(
      link.remoteIp,
      link.udpSrcPort,
      link.remoteQpn,
      opcode,
      psnAdd(job.psn, k),
      false,
      length,
      now,
      0n,
      -1,
      withAeth ? this.msn : -1,
    );
  }

  /** The owed NAK or ACK (NAK first), or null; clears what it sends. */
  takeAckFrame(): Uint8Array | null {
    const link = this.link;
    if (this.nakPending) {
      this.nakPending = false;
      link.counters.naksSent[0]!++;
      return link.builder.ack(
        link.remoteIp,
        link.udpSrcPort,
        link.remoteQpn,
        this.nakPsn,
        this.nakSyndrome,
        this.msn,
      );
    }
    if (this.ackPending && !this.dead) {
      this.ackPending = false;
      link.counters.acksSent[0]!++;
      // Coalesced: the ACK names the last PSN received in order, whatever asked for it.
      return link.builder.ack(
        link.remoteIp,
        link.udpSrcPort,
        link.remoteQpn,
        psnAdd(this.ePsn, -1),
        AethSyndrome.AckUnlimited,
        this.msn,
        link.echo,
      );
    }
    return null;
  }
}

/** Go-back-N, or out-of-order placement when the transport settings give a reorder window. */
function receiveOrderFor(link: QpLink): ReceiveOrder {
  const w = link.settings.reorderWindow ?? 0;
  return w > 0 ? new ReorderWindow(w) : new GoBackN(link.settings);
}
