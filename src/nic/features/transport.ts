// The RC transport's knobs (transport/): how often the requester asks for an ACK, the QP attributes of the
// verbs API that decide when a QP gives up (timeout, retryCnt, rnrRetry, minRnrTimer: ibv_modify_qp(3)),
// how many PSNs it keeps in flight per QP, one NAK per gap, and the payload check.

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
   * The local ACK timeout attribute (IBTA 9.7.6.1.3, `ibv_qp_attr.timeout`): 4.096 µs × 2^timeout,
   * 0 = infinite. What `rto` is derived from when a layer sets `timeout` and no layer sets `rto`.
   */
  readonly timeout: number;
  /**
   * The retransmission timeout in force, ns (Infinity: never): no ACK progress for this long makes the
   * requester resend from the oldest unacknowledged PSN. A layer's `rto` sets it exactly; otherwise a
   * layer's `timeout` derives it; with neither it is the lab's 4 ms (LAB_RTO_NS, docs/nic.md).
   */
  readonly rto: Nanoseconds;
  /** Retries after a local ACK timeout or a PSN-sequence NAK without progress before the QP fails, 0..7. */
  readonly retryCnt: number;
  /** Retries after an RNR NAK before the QP fails, 0..7; 7 = retry for ever (IBTA). */
  readonly rnrRetry: number;
  /** The responder's RNR timer code, 0..31 (IBTA table 45: rnrTimerNs). */
  readonly minRnrTimer: number;
  /**
   * Receives each responder QP keeps posted (a SEND consumes one; with none posted it answers RNR NAK);
   * null: a receive is always posted (no RNR), as before receive queues existed.
   */
  readonly recvDepth: number | null;
  /** How long the application takes to post a receive again after a SEND landed in it. */
  readonly recvRepost: Nanoseconds;
  /** At most this many PSNs unacknowledged per QP. */
  readonly maxInflight: number;
  /** Send one NAK per gap and stay silent until the expected PSN arrives (avoids NAK floods). */
  readonly nakRetryGuard: boolean;
  /** Check every received payload against the pattern (count payload_mismatch). */
  readonly verifyPayload: boolean;
}

/**
 * The lab's retransmission timeout when no layer sets `timeout` or `rto`: 4 ms, not less. Behind PFC a
 * lossless queue can hold a whole shared buffer (32 MB drains in 2.7 ms at 100 Gb/s) and pauses cascade
 * hop by hop, so a packet may wait milliseconds without being lost; a shorter timeout would resend what is
 * only queued, and go-back-N would add the whole window again to the congestion that delayed it. Loss
 * recovery is the NAK's job; the timeout only covers a lost tail (the last packet or its ACK) or a lost
 * NAK. A ConnectX set up by perftest or rdma_cm uses timeout 14 (67 ms): set `timeout: 14` for that.
 */
export const LAB_RTO_NS = 4_000_000;

/** The local ACK timeout of `timeout` (IBTA: 4.096 µs × 2^timeout), ns; 0 is infinite. */
export function localAckTimeoutNs(timeout: number): Nanoseconds {
  return timeout === 0 ? Number.POSITIVE_INFINITY : 4096 * 2 ** timeout;
}

/** IBTA Vol. 1 table 45 (RNR NAK timer field), the wait each 5-bit code stands for, µs. */
const RNR_TIMER_US = [
  655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840, 5_120,
  7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520,
] as const;

/** How long an RNR NAK with timer code `code` (0..31) makes the requester wait, ns. */
export function rnrTimerNs(code: number): Nanoseconds {
  return RNR_TIMER_US[code & 0x1f]! * 1000;
}

/** Defaults: perftest's and rdma_cm's QP attributes on a ConnectX (timeout 14, retry 7, RNR retry 7 and timer 12). */
export const TRANSPORT_DEFAULTS: TransportConfig = {
  ackReqEvery: 8,
  timeout: 14,
  rto: LAB_RTO_NS,
  retryCnt: 7,
  rnrRetry: 7,
  minRnrTimer: 12,
  recvDepth: null,
  recvRepost: 0,
  maxInflight: 4096,
  nakRetryGuard: true,
  verifyPayload: true,
};

const code = (max: number) => z.number().int().min(0).max(max);

const settings = z
  .object({
    ackReqEvery: z.number().int().min(1).max(1024).optional(),
    timeout: code(31).optional(),
    rto: duration.refine((ns) => ns > 0, { message: "a duration > 0" }).optional(),
    retryCnt: code(7).optional(),
    rnrRetry: code(7).optional(),
    minRnrTimer: code(31).optional(),
    recvDepth: z.number().int().min(0).max(1_000_000).nullable().optional(),
    recvRepost: duration.optional(),
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

type TransportSettingsLayer = z.output<typeof settings>;

/**
 * The QP attributes a workload may set for its own QPs (scenario `workloads[].transport`): the same names,
 * ranges and units as the host section, over the host's values for those QPs only (transport/qp-attributes.ts).
 */
export const qpTransportSettings = settings.pick({
  timeout: true,
  rto: true,
  retryCnt: true,
  rnrRetry: true,
  minRnrTimer: true,
  recvDepth: true,
  recvRepost: true,
});
export type QpTransportLayer = z.output<typeof qpTransportSettings>;

/** The section from merged layers: `rto` when given, else derived from a given `timeout`, else LAB_RTO_NS. */
export function resolveTransport(s: TransportSettingsLayer | undefined): TransportConfig {
  const out = overlay(TRANSPORT_DEFAULTS, s);
  const rto = s?.rto ?? (s?.timeout !== undefined ? localAckTimeoutNs(s.timeout) : LAB_RTO_NS);
  return { ...out, rto };
}

const inRange = (v: number, max: number) => Number.isInteger(v) && v >= 0 && v <= max;

export const transportFeature = defineNicFeature({
  key: "transport",
  doc:
    "The RC transport (IBTA RC service, go-back-N): AckReq every ackReqEvery packets; the verbs QP attributes " +
    "timeout (local ACK timeout 4.096 us x 2^timeout, 0 infinite), retryCnt, rnrRetry (7: infinite) and " +
    "minRnrTimer; receive queues of recvDepth posted receives re-posted recvRepost after use; rto, an exact retransmission timeout that wins over timeout (4 ms when neither is set); " +
    "at most maxInflight PSNs per QP, one NAK per gap (nakRetryGuard), the payload check.",
  settings,
  resolve: (s): TransportConfig => resolveTransport(s),
  check: (c) =>
    !Number.isInteger(c.ackReqEvery) || c.ackReqEvery < 1
      ? `transport.ackReqEvery ${c.ackReqEvery} must be an integer >= 1`
      : !(c.rto > 0)
        ? `transport.rto ${c.rto} must be positive`
        : !inRange(c.timeout, 31) || !inRange(c.minRnrTimer, 31)
          ? `transport.timeout ${c.timeout} and minRnrTimer ${c.minRnrTimer} must be integers in 0..31`
          : !inRange(c.retryCnt, 7) || !inRange(c.rnrRetry, 7)
            ? `transport.retryCnt ${c.retryCnt} and rnrRetry ${c.rnrRetry} must be integers in 0..7`
            : !Number.isInteger(c.maxInflight) || c.maxInflight < 1 || c.maxInflight > 1 << 22
              ? `transport.maxInflight ${c.maxInflight} is not in 1..2^22`
              : null,
});
