// A whole RoCE packet from the BTH on: BTH, the extension headers its opcode calls for, payload, 0-3 pad
// bytes (count in BTH.PadCnt) and the 4-byte ICRC. The parser is shared by RoCEv2 (after UDP) and RoCEv1
// (after the GRH).

import { type Aeth, readAeth } from "./aeth.js";
import { type Bth, parseBth } from "./bth.js";
import { readU32 } from "./bytes.js";
import { ICRC_LENGTH, readIcrc } from "./icrc.js";
import { fail, ok, type Parsed, WireErrorCode } from "./result.js";
import { type Reth, readReth } from "./reth.js";
import {
  AETH_LENGTH,
  BTH_LENGTH,
  CNP_RESERVED_LENGTH,
  IMMDT_LENGTH,
  opcodeLayout,
  RETH_LENGTH,
} from "./roce-opcodes.js";

export interface RoceHeaders {
  readonly bth: Bth;
  readonly reth: Reth | null;
  readonly aeth: Aeth | null;
  /** Immediate data, an opaque 32-bit value handed to the receiver's completion. */
  readonly immDt: number | null;
  /**
   * A CNP's 16 reserved bytes as received (a copy), null for other opcodes. Senders zero them; receivers
   * accept any value, so a non-zero one is reported here rather than rejected.
   */
  readonly cnpReserved: Uint8Array | null;
  /** Offset of the payload in the buffer handed to `parseRoce`. */
  readonly payloadOffset: number;
  /** Payload bytes, pad excluded. */
  readonly payloadLength: number;
  /** Pad bytes after the payload (BTH.PadCnt). */
  readonly padCount: number;
  /** The ICRC as carried (the unsigned value whose least-significant byte comes first on the wire). */
  readonly icrc: number;
  /** BTH plus extension headers, in bytes. */
  readonly headerLength: number;
}

/**
 * Parses a RoCE packet whose BTH starts at `bthOffset` and which ends, ICRC included, at `end`: the end of
 * the UDP payload for RoCEv2, the end of the GRH's payload for RoCEv1. Does not check the ICRC (icrc.ts
 * does, given the network header). Nothing at or after `end` is read.
 */
export function parseRoce(buf: Uint8Array, bthOffset: number, end: number): Parsed<RoceHeaders> {
  if (end > buf.length) {
    return fail(
      "bth",
      WireErrorCode.Truncated,
      `packet ends at ${end} but the buffer holds ${buf.length}`,
      end,
    );
  }
  if (bthOffset < 0) {
    return fail("bth", WireErrorCode.Truncated, `BTH offset ${bthOffset} is before the buffer`, bthOffset);
  }
  if (end - bthOffset < BTH_LENGTH) {
    const have = Math.max(0, end - bthOffset);
    return fail("bth", WireErrorCode.Truncated, `header needs ${BTH_LENGTH} bytes, ${have} left`, bthOffset);
  }
  const parsedBth = parseBth(buf, bthOffset);
  if (!parsedBth.ok) return parsedBth;
  const bth = parsedBth.value;
  const layout = opcodeLayout(bth.opcode);
  if (!layout) {
    return fail(
      "bth",
      WireErrorCode.BadValue,
      `opcode 0x${bth.opcode.toString(16).padStart(2, "0")} is not one we speak`,
      bthOffset,
    );
  }

  // Walk the extension headers, checking each fits before `end` with room for the ICRC behind it.
  let off = bthOffset + BTH_LENGTH;
  const icrcOffset = end - ICRC_LENGTH;
  let reth: Reth | null = null;
  let aeth: Aeth | null = null;
  let immDt: number | null = null;
  let cnpReserved: Uint8Array | null = null;
  if (layout.reth) {
    if (off + RETH_LENGTH > icrcOffset) return truncatedExtension("reth", RETH_LENGTH, off, icrcOffset);
    reth = readReth(buf, off);
    off += RETH_LENGTH;
  }
  if (layout.aeth) {
    if (off + AETH_LENGTH > icrcOffset) return truncatedExtension("aeth", AETH_LENGTH, off, icrcOffset);
    aeth = readAeth(buf, off);
    off += AETH_LENGTH;
  }
  if (layout.immDt) {
    if (off + IMMDT_LENGTH > icrcOffset) return truncatedExtension("immdt", IMMDT_LENGTH, off, icrcOffset);
    immDt = readU32(buf, off);
    off += IMMDT_LENGTH;
  }
  if (layout.cnpReserved) {
    if (off + CNP_RESERVED_LENGTH > icrcOffset) {
      return truncatedExtension("cnp", CNP_RESERVED_LENGTH, off, icrcOffset);
    }
    cnpReserved = buf.slice(off, off + CNP_RESERVED_LENGTH);
    off += CNP_RESERVED_LENGTH;
  }
  if (off + ICRC_LENGTH > end) {
    return fail("icrc", WireErrorCode.Truncated, `ICRC needs ${ICRC_LENGTH} bytes, ${end - off} left`, off);
  }

  // What lies between the headers and the ICRC is payload plus pad.
  const padded = icrcOffset - off;
  if (bth.padCount > padded) {
    return fail(
      "bth",
      WireErrorCode.BadLength,
      `PadCnt ${bth.padCount} exceeds the ${padded} bytes between headers and ICRC`,
      bthOffset + 1,
    );
  }
  if (padded % 4 !== 0) {
    return fail(
      "bth",
      WireErrorCode.BadLength,
      `payload plus pad is ${padded} bytes, not a multiple of 4`,
      off,
    );
  }
  if (!layout.payload && padded !== 0) {
    return fail(
      "bth",
      WireErrorCode.BadLength,
      `${layout.name} carries no payload but ${padded} bytes precede the ICRC`,
      off,
    );
  }
  return ok({
    bth,
    reth,
    aeth,
    immDt,
    cnpReserved,
    payloadOffset: off,
    payloadLength: padded - bth.padCount,
    padCount: bth.padCount,
    icrc: readIcrc(buf, end),
    headerLength: layout.headerLength,
  });
}

function truncatedExtension(protocol: string, length: number, offset: number, icrcOffset: number) {
  return fail(
    protocol,
    WireErrorCode.Truncated,
    `header needs ${length} bytes, ${Math.max(0, icrcOffset - offset)} left before the ICRC`,
    offset,
  );
}
