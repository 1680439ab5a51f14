// The InfiniBand Base Transport Header (BTH): the 12 bytes every RoCE packet carries after its network
// header. All fields are big-endian.

import { readU16, readU24, writeU16, writeU24 } from "./bytes.js";
import { fail, need, ok, type Parsed, WireErrorCode } from "./result.js";
import { BTH_LENGTH, DEFAULT_PKEY } from "./roce-opcodes.js";

export interface Bth {
  readonly opcode: number;
  /** Solicited Event: the responder should raise a completion event. */
  readonly se: boolean;
  /** MigReq: path-migration state (0 unless automatic path migration is used). */
  readonly migReq: boolean;
  /** Pad bytes (0..3) between the payload and the ICRC. */
  readonly padCount: number;
  /** Transport header version; always 0. */
  readonly tver: number;
  /** Partition key (0xFFFF by default). */
  readonly pkey: number;
  /** Forward ECN: congestion seen on the way to the destination (IB; RoCE uses IP ECN instead). */
  readonly fecn: boolean;
  /** Backward ECN: set on CNPs, telling the QP's sender to slow down. */
  readonly becn: boolean;
  /** Destination queue pair number, 24 bits. */
  readonly destQp: number;
  /** Acknowledge Request: the responder must acknowledge this packet. */
  readonly ackReq: boolean;
  /** Packet sequence number, 24 bits. */
  readonly psn: number;
}

export interface BthInit {
  readonly opcode: number;
  readonly destQp: number;
  readonly psn: number;
  readonly se?: boolean;
  readonly migReq?: boolean;
  readonly padCount?: number;
  /** Default 0; anything else makes a packet every receiver rejects. */
  readonly tver?: number;
  /** Default `DEFAULT_PKEY`. */
  readonly pkey?: number;
  readonly fecn?: boolean;
  readonly becn?: boolean;
  readonly ackReq?: boolean;
}

/** Parses the BTH at `offset`. Reserved bits are ignored, as receivers must; TVer must be 0. */
export function parseBth(buf: Uint8Array, offset = 0): Parsed<Bth> {
  const short = need("bth", buf, offset, BTH_LENGTH);
  if (short) return short;
  const flags = buf[offset + 1]!;
  const tver = flags & 0x0f;
  if (tver !== 0) return fail("bth", WireErrorCode.BadVersion, `TVer ${tver}, expected 0`, offset + 1);
  const ecnByte = buf[offset + 4]!;
  return ok({
    opcode: buf[offset]!,
    se: (flags & 0x80) !== 0,
    migReq: (flags & 0x40) !== 0,
    padCount: (flags >>> 4) & 0b11,
    tver,
    pkey: readU16(buf, offset + 2),
    fecn: (ecnByte & 0x80) !== 0,
    becn: (ecnByte & 0x40) !== 0,
    destQp: readU24(buf, offset + 5),
    ackReq: (buf[offset + 8]! & 0x80) !== 0,
    psn: readU24(buf, offset + 9),
  });
}

// Field-by-field writer shared by `serializeBth` and the frame builder (roce-frame.ts), which has the
// fields in its spec and should not build an intermediate object per packet. Reserved bits are written as
// zero.
export function writeBth(
  buf: Uint8Array,
  offset: number,
  opcode: number,
  se: boolean,
  migReq: boolean,
  padCount: number,
  tver: number,
  pkey: number,
  fecn: boolean,
  becn: boolean,
  destQp: number,
  ackReq: boolean,
  psn: number,
): number {
  buf[offset] = opcode & 0xff;
  buf[offset + 1] = (se ? 0x80 : 0) | (migReq ? 0x40 : 0) | ((padCount & 0b11) << 4) | (tver & 0x0f);
  writeU16(buf, offset + 2, pkey);
  buf[offset + 4] = (fecn ? 0x80 : 0) | (becn ? 0x40 : 0);
  writeU24(buf, offset + 5, destQp);
  buf[offset + 8] = ackReq ? 0x80 : 0;
  writeU24(buf, offset + 9, psn);
  return offset + BTH_LENGTH;
}

/** Writes the 12-byte BTH at `offset`; returns the offset just past it. */
export function serializeBth(h: BthInit, buf: Uint8Array, offset = 0): number {
  return writeBth(
    buf,
    offset,
    h.opcode,
    h.se ?? false,
    h.migReq ?? false,
    h.padCount ?? 0,
    h.tver ?? 0,
    h.pkey ?? DEFAULT_PKEY,
    h.fecn ?? false,
    h.becn ?? false,
    h.destQp,
    h.ackReq ?? false,
    h.psn,
  );
}
