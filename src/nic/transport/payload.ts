// Real payload bytes for every data packet, cheap to make and to check.
//
// A payload of 8 bytes or more starts with the sender's emulated send time (u64 ns, big-endian), so the
// receiver measures the one-way delay NIC to NIC. The rest is a window of a fixed pseudo-random block,
// starting at an offset derived from the packet's (destination QPN, PSN): a packet that lands in the
// wrong place, or a stale retransmission built from the wrong state, shows up as a mismatch. Shorter
// payloads carry only the window.
//
// Hot path: the payload is assembled in a scratch area that shares one buffer with the pattern block, so
// the window is a native copyWithin, and the view handed to the frame builder is cached per length; no
// allocation per packet. Verification is one native range compare (Buffer#compare with offsets).

import { Buffer } from "node:buffer";
import { readU32, writeU32 } from "../../wire/bytes.js";

/** Bytes of send time at the start of every payload of at least this length. */
export const TIMESTAMP_LENGTH = 8;
/** Distinct window offsets; the block is this much longer than the largest payload. */
const OFFSETS = 256;

/** Where the pattern window of packet (qpn, psn) starts in the block, 0..255. */
export function patternOffset(qpn: number, psn: number): number {
  return (Math.imul(qpn, 0x9e37_79b1) ^ Math.imul(psn, 0x85eb_ca6b) ^ (psn >>> 8)) >>> 24;
}

/** The byte at position `i` of the pattern block (exported so tests can build expected payloads). */
export function patternByte(i: number): number {
  return (Math.imul(i, 0x6d) + Math.imul(i >>> 8, 0x3b) + 0xa5) & 0xff;
}

/** Makes and checks the payload of data packets for one path MTU (bytes). */
export class PayloadFactory {
  /** [scratch: mtu bytes | pattern block: mtu + 256 bytes]. */
  private readonly work: Buffer;
  private readonly patternBase: number;
  private readonly views = new Map<number, Uint8Array>();

  constructor(readonly mtu: number) {
    this.patternBase = mtu;
    this.work = Buffer.alloc(mtu + mtu + OFFSETS);
    for (let i = 0; i < mtu + OFFSETS; i++) this.work[this.patternBase + i] = patternByte(i);
  }

  /**
   * The payload of packet (qpn, psn) with `length` bytes (1..mtu), stamped with `sentAt` (ns). The returned
   * view is reused by the next call: copy it (the frame builder does) before asking for another.
   */
  fill(qpn: number, psn: number, length: number, sentAt: number): Uint8Array {
    const work = this.work;
    const from = this.patternBase + patternOffset(qpn, psn);
    if (length >= TIMESTAMP_LENGTH) {
      writeU32(work, 0, Math.floor(sentAt / 0x1_0000_0000));
      writeU32(work, 4, sentAt >>> 0);
      work.copyWithin(TIMESTAMP_LENGTH, from, from + length - TIMESTAMP_LENGTH);
    } else {
      work.copyWithin(0, from, from + length);
    }
    let view = this.views.get(length);
    if (view === undefined) {
      view = work.subarray(0, length);
      this.views.set(length, view);
    }
    return view;
  }

  /** True when the `length` payload bytes at `offset` of `frame` are those of packet (qpn, psn). */
  verify(frame: Uint8Array, offset: number, length: number, qpn: number, psn: number): boolean {
    if (length > this.mtu) return false;
    const from = this.patternBase + patternOffset(qpn, psn);
    const skip = length >= TIMESTAMP_LENGTH ? TIMESTAMP_LENGTH : 0;
    const n = length - skip;
    return this.work.compare(frame, offset + skip, offset + length, from, from + n) === 0;
  }
}

/** The send time carried by a payload of at least 8 bytes at `offset`. */
export function payloadSentAt(frame: Uint8Array, offset: number): number {
  return readU32(frame, offset) * 0x1_0000_0000 + readU32(frame, offset + 4);
}
