// What an ACK tells a QP's congestion control (TIMELY, DCTCP, HPCC react per ACK, as in HPCC's ns-3
// RdmaHw::ReceiveAck): the receive path fills one of these per ACK (no allocation) and hands it on.
// Sequence numbers are the requester's unwrapped packet indices (requester.ts), so "an ACK beyond the
// sequence sent when the last update was made" (ns-3's ack_seq > m_lastUpdateSeq) compares packets.

import {
  copyIntEcho,
  emptyIntHop,
  type IntHop,
  IntMode,
  intHopCount,
  intHopOffset,
  intModeAt,
  intTimestamp,
  readIntHop,
} from "../../wire/int-md.js";

/** Where a receiver keeps the trailer it echoes (transport/frames.ts IntEcho). */
interface EchoBuffer {
  readonly bytes: Uint8Array;
  length: number;
}

export class AckSample {
  /** Packets acknowledged: every index below this one. */
  acked = 0;
  /** One past the highest packet index sent (ns-3's snd_nxt). */
  sent = 0;
  /** The ACK carried an ECN echo (BTH BECN: some data packet it covers arrived CE-marked). */
  ecnEcho = false;
  /** TIMELY: the send time the ACK echoes (ns), or -1. */
  echoedSentAt = -1;
  /** HPCC: the hop records the ACK echoes (the first `hopCount` of `hops`). */
  hopCount = 0;
  readonly hops: IntHop[];

  constructor(maxHops: number) {
    this.hops = [];
    for (let i = 0; i < maxHops; i++) this.hops.push(emptyIntHop());
  }
}

/** How far a requester has got (its unwrapped packet indices). */
interface SentAndAcked {
  readonly ackedV: number;
  readonly highV: number;
}

/**
 * Fills `a` from an ACK whose INT block (0 bytes: none) is `length` bytes at `at`, after `req` took it: a
 * Timestamp block gives the echoed send time, an Echo block the hop records (docs/int.md).
 */
export function fillAckSample(
  a: AckSample,
  req: SentAndAcked,
  becn: boolean,
  frame: Uint8Array,
  at: number,
  length: number,
): void {
  a.acked = req.ackedV;
  a.sent = req.highV;
  a.ecnEcho = becn;
  a.echoedSentAt = -1;
  a.hopCount = 0;
  if (length === 0) return;
  const mode = intModeAt(frame, at);
  if (mode === IntMode.Timestamp) a.echoedSentAt = intTimestamp(frame, at);
  else if (mode === IntMode.Echo) {
    const n = Math.min(intHopCount(frame, at, length), a.hops.length);
    for (let i = 0; i < n; i++) readIntHop(frame, intHopOffset(at, length, i), a.hops[i]!);
    a.hopCount = n;
  }
}

/** Keeps the INT block (`length` bytes at `at`) of a data packet for the next ACK (Collect goes back as Echo). */
export function keepEcho(echo: EchoBuffer, frame: Uint8Array, at: number, length: number): void {
  echo.length = copyIntEcho(echo.bytes, frame, at, length);
}
