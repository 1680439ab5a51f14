// A whole RoCE packet from the BTH on: BTH, the extension headers its opcode calls for, payload, 0-3 pad
// bytes (count in BTH.PadCnt) and the 4-byte ICRC. The parser is shared by RoCEv2 (after UDP) and RoCEv1
// (after the GRH). It is `decodeRoce` (roce-view.ts, the receive hot path's allocation-free decoder) with
// its result copied into fresh objects and its refusals worded as `WireError`s.

import type { Aeth } from "./aeth.js";
import type { Bth } from "./bth.js";
import { readU64 } from "./bytes.js";
import { ICRC_LENGTH } from "./icrc.js";
import { fail, ok, type Parsed, WireErrorCode } from "./result.js";
import type { Reth } from "./reth.js";
import { AETH_LENGTH, BTH_LENGTH, CNP_RESERVED_LENGTH, IMMDT_LENGTH, RETH_LENGTH } from "./roce-opcodes.js";
import { decodeRoce, RoceDecodeError, RoceView } from "./roce-view.js";

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
  /** Bytes of the in-band telemetry block between the headers and the payload (int-md.ts), 0: none. */
  readonly intLength: number;
}

/** The decoder's scratch view: `parseRoce` is synchronous and copies out of it before returning. */
const view = new RoceView();

/** Bytes of each extension header, by the name `RoceView.errorHeader` gives it. */
const EXTENSION_LENGTH: Readonly<Record<string, number>> = {
  reth: RETH_LENGTH,
  aeth: AETH_LENGTH,
  immdt: IMMDT_LENGTH,
  cnp: CNP_RESERVED_LENGTH,
};

/**
 * Parses a RoCE packet whose BTH starts at `bthOffset` and which ends, ICRC included, at `end`: the end of
 * the UDP payload for RoCEv2, the end of the GRH's payload for RoCEv1. Does not check the ICRC (icrc.ts
 * does, given the network header). Nothing at or after `end` is read.
 */
export function parseRoce(buf: Uint8Array, bthOffset: number, end: number): Parsed<RoceHeaders> {
  const v = view;
  if (!decodeRoce(v, buf, bthOffset, end)) return refusal(v, buf, bthOffset, end);
  const bth: Bth = {
    opcode: v.opcode,
    se: v.se,
    migReq: v.migReq,
    padCount: v.padCount,
    tver: v.tver,
    pkey: v.pkey,
    fecn: v.fecn,
    becn: v.becn,
    destQp: v.destQp,
    ackReq: v.ackReq,
    psn: v.psn,
  };
  const reth: Reth | null = v.hasReth
    ? { va: readU64(buf, v.rethOffset), rkey: v.rkey, dmaLength: v.dmaLength }
    : null;
  const aeth: Aeth | null = v.hasAeth ? { syndrome: v.syndrome, msn: v.msn } : null;
  const c = v.cnpReservedOffset;
  return ok({
    bth,
    reth,
    aeth,
    immDt: v.hasImmDt ? v.immDt : null,
    cnpReserved: c >= 0 ? buf.slice(c, c + CNP_RESERVED_LENGTH) : null,
    payloadOffset: v.payloadOffset,
    payloadLength: v.payloadLength,
    padCount: v.padCount,
    icrc: v.icrc,
    headerLength: v.layout!.headerLength,
    intLength: v.intLength,
  });
}

/** The `WireError` for the reason `decodeRoce` left in `v`. */
function refusal(v: RoceView, buf: Uint8Array, bthOffset: number, end: number): Parsed<never> {
  const at = v.offset;
  switch (v.error) {
    case RoceDecodeError.PastBuffer:
      return fail(
        "bth",
        WireErrorCode.Truncated,
        `packet ends at ${end} but the buffer holds ${buf.length}`,
        at,
      );
    case RoceDecodeError.NegativeOffset:
      return fail("bth", WireErrorCode.Truncated, `BTH offset ${bthOffset} is before the buffer`, at);
    case RoceDecodeError.BthTruncated: {
      const have = Math.max(0, end - bthOffset);
      return fail("bth", WireErrorCode.Truncated, `header needs ${BTH_LENGTH} bytes, ${have} left`, at);
    }
    case RoceDecodeError.BadTver:
      return fail("bth", WireErrorCode.BadVersion, `TVer ${v.tver}, expected 0`, at);
    case RoceDecodeError.UnknownOpcode: {
      const hex = v.opcode.toString(16).padStart(2, "0");
      return fail("bth", WireErrorCode.BadValue, `opcode 0x${hex} is not one we speak`, at);
    }
    case RoceDecodeError.ExtensionTruncated: {
      const left = Math.max(0, end - ICRC_LENGTH - at);
      const length = EXTENSION_LENGTH[v.errorHeader]!;
      const message = `header needs ${length} bytes, ${left} left before the ICRC`;
      return fail(v.errorHeader, WireErrorCode.Truncated, message, at);
    }
    case RoceDecodeError.IcrcTruncated:
      return fail("icrc", WireErrorCode.Truncated, `ICRC needs ${ICRC_LENGTH} bytes, ${end - at} left`, at);
    case RoceDecodeError.PadTooLong: {
      const message = `PadCnt ${v.padCount} exceeds the ${v.padded} bytes between headers and ICRC`;
      return fail("bth", WireErrorCode.BadLength, message, at);
    }
    case RoceDecodeError.NotAligned:
      return fail(
        "bth",
        WireErrorCode.BadLength,
        `payload plus pad is ${v.padded} bytes, not a multiple of 4`,
        at,
      );
    default: {
      const message = `${v.layout!.name} carries no payload but ${v.padded} bytes precede the ICRC`;
      return fail("bth", WireErrorCode.BadLength, message, at);
    }
  }
}
