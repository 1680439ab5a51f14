// The RoCE transport headers decoded into one reusable object, for the receive hot path: a NIC decodes
// every packet it receives, and `parseRoce`'s result objects (the BTH, RETH and AETH each an object, the
// packet one more, the result wrapper another) were the largest allocation of a simulated run. The rules
// are those of `parseRoce` (roce-packet.ts), which is built on this decoder: one set of checks, two ways
// to read the result. A `RoceView` is valid until the next `decodeRoce` into it; nothing may keep it.

import { readU16, readU24, readU32 } from "./bytes.js";
import { ICRC_LENGTH, readIcrc } from "./icrc.js";
import { intBlockAt } from "./int-md.js";
import {
  AETH_LENGTH,
  BTH_LENGTH,
  CNP_RESERVED_LENGTH,
  IMMDT_LENGTH,
  type OpcodeLayout,
  opcodeLayout,
  RETH_LENGTH,
} from "./roce-opcodes.js";

/** Why `decodeRoce` refused a packet (`RoceView.error`); `parseRoce` turns it into a `WireError`. */
export const RoceDecodeError = {
  None: 0,
  /** `end` lies past the buffer. */
  PastBuffer: 1,
  /** `bthOffset` < 0. */
  NegativeOffset: 2,
  /** Fewer than 12 bytes for the BTH. */
  BthTruncated: 3,
  /** TVer is not 0. */
  BadTver: 4,
  /** An opcode we do not speak. */
  UnknownOpcode: 5,
  /** An extension header (`RoceView.errorHeader`) does not fit before the ICRC. */
  ExtensionTruncated: 6,
  /** No room for the ICRC after the headers. */
  IcrcTruncated: 7,
  /** BTH.PadCnt exceeds what lies between the headers and the ICRC. */
  PadTooLong: 8,
  /** Payload plus pad is not a multiple of 4. */
  NotAligned: 9,
  /** Bytes between headers and ICRC for an opcode without payload. */
  UnexpectedPayload: 10,
} as const;
export type RoceDecodeError = (typeof RoceDecodeError)[keyof typeof RoceDecodeError];

export class RoceView {
  error: RoceDecodeError = RoceDecodeError.None;
  /** With `ExtensionTruncated`: "reth", "aeth", "immdt" or "cnp". */
  errorHeader = "";
  /** Where the check failed (a byte offset in the buffer), or where the payload starts on success. */
  offset = 0;
  /** The opcode's layout (null only after `UnknownOpcode` or earlier errors). */
  layout: OpcodeLayout | null = null;
  // BTH
  opcode = 0;
  se = false;
  migReq = false;
  padCount = 0;
  tver = 0;
  pkey = 0;
  fecn = false;
  becn = false;
  destQp = 0;
  ackReq = false;
  psn = 0;
  /** RETH present; its fields below (the 64-bit VA is left in the buffer at `rethOffset`). */
  hasReth = false;
  rethOffset = -1;
  rkey = 0;
  dmaLength = 0;
  /** AETH present; its fields below. */
  hasAeth = false;
  syndrome = 0;
  msn = 0;
  /** Immediate data present; its value below. */
  hasImmDt = false;
  immDt = 0;
  /** Offset of the CNP's 16 reserved bytes, -1 for other opcodes. */
  cnpReservedOffset = -1;
  payloadOffset = 0;
  /** Payload bytes, pad excluded. */
  payloadLength = 0;
  /** The in-band telemetry block after the headers (int-md.ts): its offset (-1: none) and length. */
  intOffset = -1;
  intLength = 0;
  /** Bytes between the headers and the ICRC (INT block, payload and pad). */
  padded = 0;
  icrc = 0;
}

/**
 * Decodes the RoCE packet whose BTH starts at `bthOffset` and which ends, ICRC included, at `end` into `v`;
 * false (and `v.error`) when `parseRoce` would refuse it. Does not check the ICRC. An in-band telemetry block
 * right after the headers (int-md.ts, found by its probe marker) is neither payload nor pad. Reads nothing at or
 * after `end`, allocates nothing.
 */
export function decodeRoce(v: RoceView, buf: Uint8Array, bthOffset: number, end: number): boolean {
  v.layout = null;
  if (end > buf.length) return refuse(v, RoceDecodeError.PastBuffer, end);
  if (bthOffset < 0) return refuse(v, RoceDecodeError.NegativeOffset, bthOffset);
  // With `end` inside the buffer, this also keeps the BTH inside it.
  if (end - bthOffset < BTH_LENGTH) return refuse(v, RoceDecodeError.BthTruncated, bthOffset);
  const flags = buf[bthOffset + 1]!;
  const tver = flags & 0x0f;
  v.tver = tver;
  if (tver !== 0) return refuse(v, RoceDecodeError.BadTver, bthOffset + 1);
  const opcode = buf[bthOffset]!;
  const ecnByte = buf[bthOffset + 4]!;
  v.opcode = opcode;
  v.se = (flags & 0x80) !== 0;
  v.migReq = (flags & 0x40) !== 0;
  v.padCount = (flags >>> 4) & 0b11;
  v.pkey = readU16(buf, bthOffset + 2);
  v.fecn = (ecnByte & 0x80) !== 0;
  v.becn = (ecnByte & 0x40) !== 0;
  v.destQp = readU24(buf, bthOffset + 5);
  v.ackReq = (buf[bthOffset + 8]! & 0x80) !== 0;
  v.psn = readU24(buf, bthOffset + 9);
  const layout = opcodeLayout(opcode);
  if (layout === null) return refuse(v, RoceDecodeError.UnknownOpcode, bthOffset);
  v.layout = layout;

  // The extension headers, each checked to fit before `end` with room for the ICRC behind it.
  let off = bthOffset + BTH_LENGTH;
  const icrcOffset = end - ICRC_LENGTH;
  v.hasReth = layout.reth;
  v.rethOffset = -1;
  if (layout.reth) {
    if (off + RETH_LENGTH > icrcOffset) return refuseExtension(v, "reth", off);
    v.rethOffset = off;
    v.rkey = readU32(buf, off + 8);
    v.dmaLength = readU32(buf, off + 12);
    off += RETH_LENGTH;
  }
  v.hasAeth = layout.aeth;
  if (layout.aeth) {
    if (off + AETH_LENGTH > icrcOffset) return refuseExtension(v, "aeth", off);
    v.syndrome = buf[off]!;
    v.msn = readU24(buf, off + 1);
    off += AETH_LENGTH;
  }
  v.hasImmDt = layout.immDt;
  if (layout.immDt) {
    if (off + IMMDT_LENGTH > icrcOffset) return refuseExtension(v, "immdt", off);
    v.immDt = readU32(buf, off);
    off += IMMDT_LENGTH;
  }
  v.cnpReservedOffset = -1;
  if (layout.cnpReserved) {
    if (off + CNP_RESERVED_LENGTH > icrcOffset) return refuseExtension(v, "cnp", off);
    v.cnpReservedOffset = off;
    off += CNP_RESERVED_LENGTH;
  }
  if (off + ICRC_LENGTH > end) return refuse(v, RoceDecodeError.IcrcTruncated, off);

  // What lies between the headers and the ICRC is the INT block, if any, then payload plus pad.
  const int = intBlockAt(buf, off, icrcOffset);
  v.intOffset = int > 0 ? off : -1;
  v.intLength = int;
  const padded = icrcOffset - off - int;
  v.padded = padded;
  if (v.padCount > padded) return refuse(v, RoceDecodeError.PadTooLong, bthOffset + 1);
  if (padded % 4 !== 0) return refuse(v, RoceDecodeError.NotAligned, off);
  if (!layout.payload && padded !== 0) return refuse(v, RoceDecodeError.UnexpectedPayload, off);
  v.error = RoceDecodeError.None;
  v.offset = off;
  v.payloadOffset = off + int;
  v.payloadLength = padded - v.padCount;
  v.icrc = readIcrc(buf, end);
  return true;
}

function refuse(v: RoceView, error: RoceDecodeError, offset: number): false {
  v.error = error;
  v.offset = offset;
  return false;
}

function refuseExtension(v: RoceView, header: string, offset: number): false {
  v.errorHeader = header;
  return refuse(v, RoceDecodeError.ExtensionTruncated, offset);
}
