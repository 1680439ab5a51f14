// The Invariant CRC (ICRC) that ends every RoCE packet: a CRC-32 over the packet with the fields routers
// may change forced to all ones, so that neither ECN marking, a TTL decrement nor a recomputed IP checksum
// invalidates it. RoCE has no Local Route Header; 8 bytes of 0xFF take its place at the start of the input.
//
// The polynomial, initial value and final inversion are those of Ethernet and zlib. The value is stored on
// the wire least-significant byte first, like the Ethernet FCS.
//
// Hot path: the masked headers are copied into one module-level scratch buffer (the code is synchronous,
// so one buffer is enough) and run through the JS slice-by-8 CRC (crc32.ts); the rest of the packet goes
// through it too when short (ACKs, CNPs), through node:zlib's native `crc32` (continued through its
// second argument) when long, whichever is faster for the length.

import { crc32 } from "node:zlib";
import { CRC32_JS_MAX, crc32Update } from "./crc32.js";

/** Bytes of ICRC at the end of every RoCE packet. */
export const ICRC_LENGTH = 4;

// Local copies of header sizes, so this module does not import roce.ts (which imports it).
const UDP_BYTES = 8;
const BTH_BYTES = 12;
const GRH_BYTES = 40;
/** Offset of the BTH byte holding FECN, BECN and Resv6 (all variant: congestion marks may be set en route). */
const BTH_VARIANT_BYTE = 4;

/** CRC state after the 8 bytes of 0xFF that stand for the absent LRH; every ICRC continues from here. */
const LRH_STAND_IN_CRC = crc32(new Uint8Array(8).fill(0xff));

/** Largest masked prefix: an IPv4 header with 40 bytes of options, UDP and BTH. */
const scratch = new Uint8Array(60 + UDP_BYTES + BTH_BYTES);

/** Continues `crc` over `frame[start..end)`, in JS or natively, whichever is faster for the length. */
function crcRest(frame: Uint8Array, start: number, end: number, crc: number): number {
  if (end - start <= CRC32_JS_MAX) return crc32Update(frame, start, Math.min(end, frame.length), crc);
  return crc32(frame.subarray(start, end), crc);
}

/** The ICRC as stored at `end - 4` (least-significant byte first), as an unsigned 32-bit number. */
export function readIcrc(frame: Uint8Array, end: number): number {
  const o = end - ICRC_LENGTH;
  return (frame[o]! | (frame[o + 1]! << 8) | (frame[o + 2]! << 16) | (frame[o + 3]! << 24)) >>> 0;
}

/** Stores `icrc` in the 4 bytes before `end`, least-significant byte first. */
function storeIcrc(frame: Uint8Array, end: number, icrc: number): void {
  const o = end - ICRC_LENGTH;
  frame[o] = icrc & 0xff;
  frame[o + 1] = (icrc >>> 8) & 0xff;
  frame[o + 2] = (icrc >>> 16) & 0xff;
  frame[o + 3] = icrc >>> 24;
}

/**
 * ICRC of a RoCEv2-over-IPv4 packet: the IPv4 header starts at `ipOffset` and the packet (ICRC included)
 * ends at `ipEnd` (`ipOffset` + IPv4 total length, so Ethernet padding is excluded). IPv4 options, when
 * IHL > 5, are covered as sent. Masked: TOS (DSCP and ECN), TTL, header checksum, UDP checksum and BTH
 * byte 4. The caller has checked that the headers fit (see `verifyIcrcV2` for a checked variant); on a
 * packet too short the result is meaningless but nothing throws (bytes past the buffer count as zero).
 */
export function computeIcrcV2(frame: Uint8Array, ipOffset: number, ipEnd: number): number {
  const ihl = frame[ipOffset]! & 0x0f;
  const ipHeaderLength = ihl * 4;
  const prefixLength = ipHeaderLength + UDP_BYTES + BTH_BYTES;
  // Indexing past the end of a typed array reads `undefined`, which stores as 0: safe on short input.
  for (let i = 0; i < prefixLength; i++) scratch[i] = frame[ipOffset + i]!;
  scratch[1] = 0xff; // TOS
  scratch[8] = 0xff; // TTL
  scratch[10] = 0xff; // header checksum
  scratch[11] = 0xff;
  scratch[ipHeaderLength + 6] = 0xff; // UDP checksum
  scratch[ipHeaderLength + 7] = 0xff;
  scratch[ipHeaderLength + UDP_BYTES + BTH_VARIANT_BYTE] = 0xff;
  const crc = crc32Update(scratch, 0, prefixLength, LRH_STAND_IN_CRC);
  return crcRest(frame, ipOffset + prefixLength, ipEnd - ICRC_LENGTH, crc);
}

/** Computes the RoCEv2 ICRC (see `computeIcrcV2`) and stores it in the last 4 bytes before `ipEnd`. */
export function writeIcrcV2(frame: Uint8Array, ipOffset: number, ipEnd: number): void {
  storeIcrc(frame, ipEnd, computeIcrcV2(frame, ipOffset, ipEnd));
}

/**
 * True when the packet at `ipOffset`..`ipEnd` carries a correct RoCEv2 ICRC. False, never a throw, when the
 * bounds are outside `frame`, IHL is below 5, or IPv4 + UDP + BTH + ICRC do not fit in the packet.
 */
export function verifyIcrcV2(frame: Uint8Array, ipOffset: number, ipEnd: number): boolean {
  if (ipOffset < 0 || ipEnd > frame.length || ipOffset >= ipEnd) return false;
  const ihl = frame[ipOffset]! & 0x0f;
  if (ihl < 5 || ipOffset + ihl * 4 + UDP_BYTES + BTH_BYTES + ICRC_LENGTH > ipEnd) return false;
  return computeIcrcV2(frame, ipOffset, ipEnd) === readIcrc(frame, ipEnd);
}

/**
 * ICRC of a RoCEv1 packet: the 40-byte GRH starts at `grhOffset`, the BTH follows it, and the packet (ICRC
 * included) ends at `end` (`grhOffset` + 40 + GRH payload length). This is IBTA's ICRC for a packet with a
 * GRH: Traffic Class, Flow Label and Hop Limit masked (the IP version nibble is kept), BTH byte 4 masked.
 * Same preconditions as `computeIcrcV2`.
 */
export function computeIcrcV1(frame: Uint8Array, grhOffset: number, end: number): number {
  const prefixLength = GRH_BYTES + BTH_BYTES;
  for (let i = 0; i < prefixLength; i++) scratch[i] = frame[grhOffset + i]!;
  scratch[0] = scratch[0]! | 0x0f; // upper half of Traffic Class; the IP version nibble is kept
  scratch[1] = 0xff; // lower half of Traffic Class, upper bits of Flow Label
  scratch[2] = 0xff;
  scratch[3] = 0xff;
  scratch[7] = 0xff; // Hop Limit
  scratch[GRH_BYTES + BTH_VARIANT_BYTE] = 0xff;
  const crc = crc32Update(scratch, 0, prefixLength, LRH_STAND_IN_CRC);
  return crcRest(frame, grhOffset + prefixLength, end - ICRC_LENGTH, crc);
}

/** Computes the RoCEv1 ICRC (see `computeIcrcV1`) and stores it in the last 4 bytes before `end`. */
export function writeIcrcV1(frame: Uint8Array, grhOffset: number, end: number): void {
  storeIcrc(frame, end, computeIcrcV1(frame, grhOffset, end));
}

/** True when the RoCEv1 packet carries a correct ICRC; false when GRH + BTH + ICRC do not fit. */
export function verifyIcrcV1(frame: Uint8Array, grhOffset: number, end: number): boolean {
  if (grhOffset < 0 || end > frame.length || grhOffset + GRH_BYTES + BTH_BYTES + ICRC_LENGTH > end) {
    return false;
  }
  return computeIcrcV1(frame, grhOffset, end) === readIcrc(frame, end);
}

/** CRC-32 of n zero bytes, for n up to `ICRC_PATCH_MAX` (the affine part of `patchIcrc`). */
export const ICRC_PATCH_MAX = 512;
const ZERO_CRC = new Uint32Array(ICRC_PATCH_MAX + 1);
{
  const zeros = new Uint8Array(ICRC_PATCH_MAX);
  for (let n = 1; n <= ICRC_PATCH_MAX; n++) ZERO_CRC[n] = crc32Update(zeros, 0, n, 0);
}

// Appending z zero bytes to a message multiplies the linear part of its CRC by x^(8z) modulo the CRC-32
// polynomial (reflected): zlib's crc32_combine arithmetic (multmodp, x2nmodp in zlib's crc32.c).
const POLY = 0xedb88320;

function multmodp(a: number, b: number): number {
  let m = 0x8000_0000;
  let p = 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] = x^(2^k) modulo the polynomial. */
const X2N = new Uint32Array(32);
{
  let p = 0x4000_0000; // x^1
  X2N[0] = p;
  for (let n = 1; n < 32; n++) X2N[n] = p = multmodp(p, p);
}

/** x^(n·2^k) modulo the polynomial. */
function x2nmodp(n: number, k: number): number {
  let p = 0x8000_0000; // x^0
  while (n !== 0) {
    if ((n & 1) !== 0) p = multmodp(X2N[k & 31]!, p);
    n >>>= 1;
    k++;
  }
  return p;
}

/** The operator for each distance up to a jumbo frame, computed the first time it is asked for. */
const SHIFT_CACHED = 16_384;
const shiftOps = new Uint32Array(SHIFT_CACHED);
const shiftKnown = new Uint8Array(SHIFT_CACHED);

function shiftOp(zeros: number): number {
  if (zeros >= SHIFT_CACHED) return x2nmodp(zeros, 3);
  if (shiftKnown[zeros] === 0) {
    shiftOps[zeros] = x2nmodp(zeros, 3);
    shiftKnown[zeros] = 1;
  }
  return shiftOps[zeros]!;
}

/**
 * Updates the ICRC that ends at `end` after the n bytes at `from` changed by `diff[0..n)` (old XOR new),
 * n ≤ ICRC_PATCH_MAX, wherever they are in front of the ICRC: the difference's CRC is carried over the
 * unchanged bytes behind it by one multiplication (crc32_combine's operator), so the cost does not grow
 * with the payload. How a switch that writes an INT hop record keeps the ICRC valid (docs/int.md).
 */
export function patchIcrcAt(frame: Uint8Array, end: number, from: number, diff: Uint8Array, n: number): void {
  const zeros = end - ICRC_LENGTH - from - n;
  let delta = (crc32Update(diff, 0, n, 0) ^ ZERO_CRC[n]!) >>> 0;
  if (zeros > 0) delta = multmodp(shiftOp(zeros), delta);
  storeIcrc(frame, end, (readIcrc(frame, end) ^ delta) >>> 0);
}
