// The RDMA Extended Transport Header (RETH): where an RDMA WRITE or READ lands in the responder's memory.
// It follows the BTH on the first packet of a WRITE and on every READ request.

import { readU32, readU64, writeU32, writeU64 } from "./bytes.js";
import { need, ok, type Parsed } from "./result.js";
import { RETH_LENGTH } from "./roce-opcodes.js";

export interface Reth {
  /** Virtual address in the responder's registered memory region (64 bits). */
  readonly va: bigint;
  /** Remote key of the memory region. */
  readonly rkey: number;
  /** Total length of the whole message in bytes (not of this packet). */
  readonly dmaLength: number;
}

/** Reads a RETH whose 16 bytes the caller has checked are there. */
export function readReth(buf: Uint8Array, offset: number): Reth {
  return { va: readU64(buf, offset), rkey: readU32(buf, offset + 8), dmaLength: readU32(buf, offset + 12) };
}

export function parseReth(buf: Uint8Array, offset = 0): Parsed<Reth> {
  const short = need("reth", buf, offset, RETH_LENGTH);
  if (short) return short;
  return ok(readReth(buf, offset));
}

/** Writes the 16-byte RETH at `offset`; returns the offset just past it. */
export function serializeReth(h: Reth, buf: Uint8Array, offset = 0): number {
  writeU64(buf, offset, h.va);
  writeU32(buf, offset + 8, h.rkey);
  writeU32(buf, offset + 12, h.dmaLength);
  return offset + RETH_LENGTH;
}
