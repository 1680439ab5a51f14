// The RC transport's knobs (transport/): how often the requester asks for an ACK, how long it waits for
// progress before it resends (go-back-N from the oldest unacknowledged PSN), how many PSNs it keeps in
// flight per QP, one NAK per gap, and the payload check.

import { z } from "zod";
import type { Nanoseconds } from "../../device/contract.js";
import { duration, overlay } from "../../device/setting-units.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly transport: TransportConfig;
  }
}

export interface TransportConfig {
  /** Set AckReq on every Nth packet of a QP (and on the last packet of every message). */
  readonly ackReqEvery: number;
  /**
   * Retransmission timeout: no ACK progress for this long makes the requester resend from the oldest
   * unacknowledged PSN. 4 ms, not less: behind PFC a lossless queue can hold a whole shared buffer (32 MB
   * drains in 2.7 ms at 100 Gb/s) and pauses cascade hop by hop, so a packet may wait milliseconds without
   * being lost; a shorter timeout would resend what is only queued, and go-back-N would add the whole
   * window again to the congestion that delayed it. Loss recovery is the NAK's job; the timeout only covers
   * a lost tail (the last packet or its ACK) or a lost NAK.
   */
  readonly rto: Nanoseconds;
  /** At most this many PSNs unacknowledged per QP. */
  readonly maxInflight: number;
  /** Send one NAK per gap and stay silent until the expected PSN arrives (avoids NAK floods). */
  readonly nakRetryGuard: boolean;
  /** Check every received payload against the pattern (count payload_mismatch). */
  readonly verifyPayload: boolean;
}

export const TRANSPORT_DEFAULTS: TransportConfig = {
  ackReqEvery: 8,
  rto: 4_000_000,
  maxInflight: 4096,
  nakRetryGuard: true,
  verifyPayload: true,
};

const settings = z
  .object({
    ackReqEvery: z.number().int().min(1).max(1024).optional(),
    rto: duration.refine((ns) => ns > 0, { message: "a duration > 0" }).optional(),
    maxInflight: z
      .number()
      .int()
      .min(1)
      .max(1 << 22)
      .optional(),
    nakRetryGuard: z.boolean().optional(),
    verifyPayload: z.boolean().optional(),
  })
  .strict();

export const transportFeature = defineNicFeature({
  key: "transport",
  doc:
    "The RC transport (IBTA RC service, go-back-N): AckReq every ackReqEvery packets, the retransmission " +
    "timeout rto, at most maxInflight PSNs per QP, one NAK per gap (nakRetryGuard), the payload check.",
  settings,
  resolve: (s): TransportConfig => overlay(TRANSPORT_DEFAULTS, s),
  check: (c) =>
    !Number.isInteger(c.ackReqEvery) || c.ackReqEvery < 1
      ? `transport.ackReqEvery ${c.ackReqEvery} must be an integer >= 1`
      : !(c.rto > 0)
        ? `transport.rto ${c.rto} must be positive`
        : !Number.isInteger(c.maxInflight) || c.maxInflight < 1 || c.maxInflight > 1 << 22
          ? `transport.maxInflight ${c.maxInflight} is not in 1..2^22`
          : null,
});
