// pcap-check's decoding of in-band telemetry trailers (docs/int.md, wire/int-trailer.ts): a RoCEv2 packet
// whose BTH has the INT flag must end with a well-formed trailer in front of its ICRC — version 1, a known
// mode, no more hops written than slots, 16-byte hops, every written hop with a link rate. The tally
// (frames with a trailer, hop records seen) goes into the capture's report.

import {
  emptyIntHop,
  INT_HOP_LENGTH,
  INT_SHIM_LENGTH,
  INT_VERSION,
  IntMode,
  intHopOffset,
  intShimOffset,
  readIntHop,
} from "../wire/int-trailer.js";

/** What the INT trailers of a capture add up to. */
export interface IntTally {
  /** Data packets collecting hop records (written by switches). */
  collect: number;
  /** ACKs echoing hop records back to the sender. */
  echo: number;
  /** Packets carrying a sender timestamp (TIMELY). */
  timestamp: number;
  /** Hop records written, over collecting and echoed packets. */
  hops: number;
}

export function emptyIntTally(): IntTally {
  return { collect: 0, echo: 0, timestamp: 0, hops: 0 };
}

const MODE_NAMES = ["collect", "timestamp", "echo"];
const hop = emptyIntHop();

/**
 * Checks the trailer of the RoCEv2 packet whose BTH (with the INT flag) is at `bth` and which ends, ICRC
 * included, at `end`; adds it to `tally`. Returns the trailer's length (0 when it does not add up).
 */
export function checkIntTrailer(
  frame: Uint8Array,
  bth: number,
  end: number,
  tally: IntTally,
  say: (m: string) => void,
): number {
  const shim = intShimOffset(end);
  if (shim < bth + 12) {
    say("int: the BTH says INT but there is no room for a trailer");
    return 0;
  }
  const v = frame[shim]!;
  const mode = v & 0x0f;
  if (v >>> 4 !== INT_VERSION || mode > IntMode.Echo) {
    say(`int shim: version ${v >>> 4} mode ${mode}, expected version 1 and mode 0..2`);
    return 0;
  }
  if (mode === IntMode.Timestamp) {
    tally.timestamp++;
    return INT_SHIM_LENGTH + 8;
  }
  const n = frame[shim + 1]!;
  const slots = frame[shim + 2]!;
  const length = INT_SHIM_LENGTH + slots * INT_HOP_LENGTH;
  if (frame[shim + 3]! * 4 !== INT_HOP_LENGTH || n > slots || shim + INT_SHIM_LENGTH - length < bth + 12) {
    say(
      `int shim (${MODE_NAMES[mode]}): ${n} hops in ${slots} slots of ${frame[shim + 3]! * 4} bytes does not fit`,
    );
    return 0;
  }
  for (let i = 0; i < n; i++) {
    readIntHop(frame, intHopOffset(frame, end, i), hop);
    if (hop.rateBps === 0) say(`int hop ${i} (switch ${hop.switchId}, port ${hop.egressPort}): link rate 0`);
  }
  if (mode === IntMode.Collect) tally.collect++;
  else tally.echo++;
  tally.hops += n;
  return length;
}

/** The tally as the summary shows it, or "" when the capture has no INT. */
export function describeIntTally(t: IntTally): string {
  if (t.collect + t.echo + t.timestamp === 0) return "";
  return `INT: ${t.collect} collecting, ${t.echo} echoing, ${t.timestamp} timestamped packets; ${t.hops} hop records`;
}
