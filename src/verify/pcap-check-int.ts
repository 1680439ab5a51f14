// pcap-check's decoding of in-band telemetry (docs/int.md, wire/int-md.ts): P4.org INT blocks found by
// their probe marker after a RoCEv2 packet's transport headers — INT-MD (collecting), Destination-type
// echoes and timestamps. A marker whose block does not add up (shim length, INT-MD version 2, Hop ML 7, no
// more hops than slots) is reported; every written hop must carry a link rate. The tally goes into the report.

import { readU32 } from "../wire/bytes.js";
import {
  emptyIntHop,
  INT_PROBE_HI,
  INT_PROBE_LENGTH,
  INT_PROBE_LO,
  IntMode,
  intExceeded,
  intHopCount,
  intHopOffset,
  intModeAt,
  readIntHop,
} from "../wire/int-md.js";

/** What the INT blocks of a capture add up to. */
export interface IntTally {
  /** Data packets collecting hop records (written by switches). */
  collect: number;
  /** ACKs echoing hop records back to the sender. */
  echo: number;
  /** Packets carrying a sender timestamp (TIMELY). */
  timestamp: number;
  /** Hop records written, over collecting and echoed packets. */
  hops: number;
  /** Collecting packets that met a hop with no slot left (INT-MD E bit). */
  exceeded: number;
}

export function emptyIntTally(): IntTally {
  return { collect: 0, echo: 0, timestamp: 0, hops: 0, exceeded: 0 };
}

const hop = emptyIntHop();

/**
 * Checks the INT block the decoder found (`length` bytes at `at`; 0: none) of a RoCEv2 packet whose
 * transport headers end at `payload`, and adds it to `tally`: a probe marker without a block that adds up
 * is reported, hop records must carry a link rate.
 */
export function checkIntBlock(
  frame: Uint8Array,
  payload: number,
  limit: number,
  at: number,
  length: number,
  tally: IntTally,
  say: (m: string) => void,
): void {
  if (length === 0) {
    const marked =
      payload + INT_PROBE_LENGTH <= limit &&
      readU32(frame, payload) === INT_PROBE_HI &&
      readU32(frame, payload + 4) === INT_PROBE_LO;
    if (marked)
      say("int: INT probe marker after the transport headers, but the shim and header do not add up");
    return;
  }
  const mode = intModeAt(frame, at);
  if (mode === IntMode.Timestamp) {
    tally.timestamp++;
    return;
  }
  const n = intHopCount(frame, at, length);
  for (let i = 0; i < n; i++) {
    readIntHop(frame, intHopOffset(at, length, i), hop);
    if (hop.rateBps === 0) say(`int hop ${i} (switch ${hop.switchId}, port ${hop.egressPort}): link rate 0`);
  }
  if (mode === IntMode.Collect) tally.collect++;
  else tally.echo++;
  if (intExceeded(frame, at)) tally.exceeded++;
  tally.hops += n;
}

/** The tally as the summary shows it, or "" when the capture has no INT. */
export function describeIntTally(t: IntTally): string {
  if (t.collect + t.echo + t.timestamp === 0) return "";
  const full = t.exceeded > 0 ? `; ${t.exceeded} packets found no slot left (E)` : "";
  return `INT: ${t.collect} collecting, ${t.echo} echoing, ${t.timestamp} timestamped packets; ${t.hops} hop records${full}`;
}
