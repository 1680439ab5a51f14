// A captured frame's Ethernet FCS, when the capture kept it: checked by pcap-check at every level.

import { crc32 } from "node:zlib";
import { readIcrc } from "../wire/icrc.js";
import { hex } from "./frame-kind.js";

export const FCS_LENGTH = 4;

/** The 4 bytes after the first `length - 4` as the Ethernet FCS: a problem line when they are not. */
export function fcsProblem(frame: Uint8Array): string | null {
  const body = frame.length - FCS_LENGTH;
  const carried = readIcrc(frame, frame.length); // the FCS, like the ICRC, is stored LSB first
  const expected = crc32(frame.subarray(0, body)) >>> 0;
  return carried === expected ? null : `ethernet FCS: ${hex(carried, 8)}, expected ${hex(expected, 8)}`;
}
