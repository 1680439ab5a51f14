// The memory a responder QP exposes to its peer: one registered region per QP pair and direction, as an
// application that registers one buffer per connection would. Its R_Key is derived from the responder's
// QPN, and it spans 4 GiB from VA QPN × 2^32 (a RETH's DMA length is 32 bits, so every message the lab
// posts fits it). The responder's R_Key and bounds check of IBTA Vol. 1 9.7.5.1 (C9-88: a zero-length
// transfer checks neither) decides whether a WRITE or READ may touch it; a violation is NAK Remote Access
// Error (Linux rxe_resp.c check_rkey does the same two checks).

import { readU32 } from "../../wire/bytes.js";

/** The R_Key a requester uses towards responder QP `qpn` (the responder checks it). */
export function rkeyFor(qpn: number): number {
  return (Math.imul(qpn, 0x2545_f491) ^ 0x5eed_0000) >>> 0;
}

/** First VA of responder QP `qpn`'s region (its length is 2^32 bytes). */
export function regionBase(qpn: number): bigint {
  return BigInt(qpn) << 32n;
}

/** The outcome of a request's access check. */
export const Access = {
  /** R_Key and bounds are good (or a zero-length transfer). */
  Granted: 0,
  /** The R_Key is not the region's. */
  BadKey: 1,
  /** VA .. VA + length does not lie inside the region. */
  OutOfBounds: 2,
} as const;
export type Access = (typeof Access)[keyof typeof Access];

/**
 * The access check of a RETH for responder QP `qpn`: its R_Key `rkey`, the 64-bit VA at `vaOffset` in
 * `frame` and DMA length `length`. Reads the VA as two 32-bit halves (no bigint per packet): the region
 * is [qpn × 2^32, (qpn + 1) × 2^32), so the high half must be `qpn` and the low half plus the length must
 * not pass 2^32.
 */
export function checkAccess(
  qpn: number,
  rkey: number,
  frame: Uint8Array,
  vaOffset: number,
  length: number,
): Access {
  if (length === 0) return Access.Granted;
  if (rkey !== rkeyFor(qpn)) return Access.BadKey;
  const hi = readU32(frame, vaOffset);
  const lo = readU32(frame, vaOffset + 4);
  return hi === qpn && lo + length <= 2 ** 32 ? Access.Granted : Access.OutOfBounds;
}
