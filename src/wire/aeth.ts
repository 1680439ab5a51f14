// The ACK Extended Transport Header (AETH): the responder's ACK or NAK. Syndrome bits 7..5 give the kind,
// bits 4..0 a credit count (ACK), an RNR timer code (RNR NAK) or an error code (NAK).

import { readU24, writeU24 } from "./bytes.js";
import { need, ok, type Parsed } from "./result.js";
import { AETH_LENGTH } from "./roce-opcodes.js";

export interface Aeth {
  /** 8-bit syndrome (see `AethSyndrome`, `aethKind`). */
  readonly syndrome: number;
  /** Message sequence number: count of messages the responder has completed, 24 bits. */
  readonly msn: number;
}

/** Credit count meaning "no end-to-end flow control" (what RC receivers without an SRQ limit send). */
export const AETH_CREDITS_UNLIMITED = 0x1f;

/** Whole syndrome values, and builders for the ones that carry a 5-bit argument. */
export const AethSyndrome = {
  /** ACK with unlimited credits. */
  AckUnlimited: 0x1f,
  /** NAK: a PSN was skipped; the requester must resend from the PSN the NAK carries. */
  NakPsnSequenceError: 0x60,
  NakInvalidRequest: 0x61,
  NakRemoteAccessError: 0x62,
  NakRemoteOperationalError: 0x63,
  /** ACK with a 5-bit credit count (`AETH_CREDITS_UNLIMITED` for none). */
  ack: (credits: number): number => credits & 0x1f,
  /** Receiver-not-ready NAK with a 5-bit timer code (how long the requester waits before retrying). */
  rnrNak: (timerCode: number): number => 0x20 | (timerCode & 0x1f),
} as const;

export type AethKind = "ack" | "rnr-nak" | "nak" | "reserved";

/** Kind of an AETH syndrome. Bit 7 is reserved, so a syndrome with it set is "reserved" too. */
export function aethKind(syndrome: number): AethKind {
  switch (syndrome & 0xe0) {
    case 0x00:
      return "ack";
    case 0x20:
      return "rnr-nak";
    case 0x60:
      return "nak";
    default:
      return "reserved";
  }
}

/** The 5-bit argument of a syndrome: credit count, RNR timer code or NAK code, depending on the kind. */
export function aethValue(syndrome: number): number {
  return syndrome & 0x1f;
}

/** Reads an AETH whose 4 bytes the caller has checked are there. */
export function readAeth(buf: Uint8Array, offset: number): Aeth {
  return { syndrome: buf[offset]!, msn: readU24(buf, offset + 1) };
}

export function parseAeth(buf: Uint8Array, offset = 0): Parsed<Aeth> {
  const short = need("aeth", buf, offset, AETH_LENGTH);
  if (short) return short;
  return ok(readAeth(buf, offset));
}

/** Writes the 4-byte AETH at `offset`; returns the offset just past it. */
export function serializeAeth(h: Aeth, buf: Uint8Array, offset = 0): number {
  buf[offset] = h.syndrome & 0xff;
  writeU24(buf, offset + 1, h.msn);
  return offset + AETH_LENGTH;
}
