// What an ACK tells a QP's congestion control (TIMELY, DCTCP, HPCC react per ACK, as in HPCC's ns-3
// RdmaHw::ReceiveAck): the receive path fills one of these per ACK (no allocation) and hands it on.
// Sequence numbers are the requester's unwrapped packet indices (requester.ts), so "an ACK beyond the
// sequence sent when the last update was made" (ns-3's ack_seq > m_lastUpdateSeq) compares packets.

import { ICRC_LENGTH } from "../../wire/icrc.js";
import {
  INT_SHIM_LENGTH,
  type IntHop,
  IntMode,
  intHopCount,
  intHopOffset,
  intMode,
  intTimestamp,
  readIntHop,
} from "../../wire/int-trailer.js";

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
    for (let i = 0; i < maxHops; i++)
      this.hops.push({ switchId: 0, egressPort: 0, rateBps: 0, ts: 0, txUnits: 0, qLen: 0 });
  }
}

/** How far a requester has got (its unwrapped packet indices). */
interface SentAndAcked {
  readonly ackedV: number;
  readonly highV: number;
}

/**
 * Fills `a` from an ACK ending at `end` with an INT trailer of `trailer` bytes (0: none), after `req` took
 * it: a Timestamp trailer gives the echoed send time, an Echo trailer the hop records.
 */
export function fillAckSample(
  a: AckSample,
  req: SentAndAcked,
  becn: boolean,
  frame: Uint8Array,
  end: number,
  trailer: number,
): void {
  a.acked = req.ackedV;
  a.sent = req.highV;
  a.ecnEcho = becn;
  a.echoedSentAt = -1;
  a.hopCount = 0;
  if (trailer === 0) return;
  const mode = intMode(frame, end);
  if (mode === IntMode.Timestamp) a.echoedSentAt = intTimestamp(frame, end);
  else if (mode === IntMode.Echo) {
    const n = Math.min(intHopCount(frame, end), a.hops.length);
    for (let i = 0; i < n; i++) readIntHop(frame, intHopOffset(frame, end, i), a.hops[i]!);
    a.hopCount = n;
  }
}

/** Keeps the INT trailer of a data packet ending at `end` for the next ACK (Collect goes back as Echo). */
export function keepEcho(echo: EchoBuffer, frame: Uint8Array, end: number, trailer: number): void {
  const stop = end - ICRC_LENGTH;
  const b = echo.bytes;
  for (let i = 0, j = stop - trailer; j < stop; i++, j++) b[i] = frame[j]!;
  echo.length = trailer;
  const shim = trailer - INT_SHIM_LENGTH;
  if ((b[shim]! & 0x0f) === IntMode.Collect) b[shim] = (b[shim]! & 0xf0) | IntMode.Echo;
}
