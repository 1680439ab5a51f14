// ECMP hashing: pick one of N equal-cost next hops from a packet's flow fields.
//
// The key is the chosen fields in a fixed order (src IP, dst IP, protocol, src port, dst port: BMv2's
// load_balance exercise order; then the RoCEv2 BTH Dest QP, 24 bits, for RoCE packets: the "UDF Dest QP"
// extra hash factor), hashed with CRC-16/ARC (BMv2's "crc16"), CRC-32 (zlib/IEEE), a 32-bit XOR fold of
// the key (merchant silicon's XOR32 hash function) or the Toeplitz hash (Microsoft's RSS hash, with the
// RSS specification's default 40-byte key). All four are linear: two switches that only XOR a different
// seed into them make correlated choices (polarisation), so the seed is mixed in through a non-linear
// finaliser (murmur3's fmix32) after the hash.

import { fmix32 } from "../device/prng.js";
import type { FlowFields } from "./strategy.js";

export const FIELD_SRC_IP = 1;
export const FIELD_DST_IP = 2;
export const FIELD_PROTOCOL = 4;
export const FIELD_SRC_PORT = 8;
export const FIELD_DST_PORT = 16;
/** The BTH Dest QP (RoCEv2 packets only; other packets hash as if the field were not chosen). */
export const FIELD_DEST_QP = 32;

export const ALGORITHM_CRC16 = 0;
export const ALGORITHM_CRC32 = 1;
export const ALGORITHM_XOR32 = 2;
export const ALGORITHM_TOEPLITZ = 3;
export type HashAlgorithmId =
  | typeof ALGORITHM_CRC16
  | typeof ALGORITHM_CRC32
  | typeof ALGORITHM_XOR32
  | typeof ALGORITHM_TOEPLITZ;

/** Longest key: 4 + 4 + 1 + 2 + 2 + 3 bytes. */
const KEY_BYTES = 16;

/** CRC-16/ARC: reflected polynomial 0x8005 (0xA001), init 0, no final XOR. */
const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa001 : c >>> 1;
    table[i] = c;
  }
  return table;
})();

export function crc16(buf: Uint8Array, len = buf.length): number {
  let crc = 0;
  for (let i = 0; i < len; i++) crc = (crc >>> 8) ^ CRC16_TABLE[(crc ^ buf[i]!) & 0xff]!;
  return crc;
}

/** CRC-32 (IEEE 802.3, zlib's): reflected polynomial 0x04C11DB7 (0xEDB88320), init and final XOR 0xffffffff. */
const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** zlib's crc32 of the first `len` bytes, table-driven in JS: a flow key is 13 bytes at most, too short
 * for a native call to pay off, and no view of the key buffer is made per packet. */
export function crc32(buf: Uint8Array, len = buf.length): number {
  let crc = 0xffffffff;
  for (let i = 0; i < len; i++) crc = (crc >>> 8) ^ CRC32_TABLE[(crc ^ buf[i]!) & 0xff]!;
  return (crc ^ 0xffffffff) >>> 0;
}

/** The 32-bit XOR fold of the key taken as big-endian words (a short last word padded with zeros). */
export function xor32(buf: Uint8Array, len = buf.length): number {
  let h = 0;
  for (let i = 0; i < len; i++) h ^= buf[i]! << (24 - 8 * (i & 3));
  return h >>> 0;
}

/** The RSS default Toeplitz key (Microsoft, "Verifying the RSS Hash Calculation"), long enough for 16 bytes. */
const TOEPLITZ_KEY = Uint8Array.from([
  0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca,
  0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b,
  0xbe, 0xac, 0x01, 0xfa,
]);

/** The Toeplitz hash of the first `len` (<= 36) bytes: for each set input bit, XOR the key's 32-bit window. */
export function toeplitz(buf: Uint8Array, len = buf.length): number {
  const k = TOEPLITZ_KEY;
  let h = 0;
  // The 32-bit window of the key starting at the current bit, and the key bits still to shift in.
  let window = ((k[0]! << 24) | (k[1]! << 16) | (k[2]! << 8) | k[3]!) >>> 0;
  for (let i = 0; i < len; i++) {
    const b = buf[i]!;
    const nextByte = k[i + 4] ?? 0;
    for (let bit = 7; bit >= 0; bit--) {
      if ((b >> bit) & 1) h ^= window;
      window = ((window << 1) | ((nextByte >> bit) & 1)) >>> 0;
    }
  }
  return h >>> 0;
}

/**
 * The scratch key every hasher writes and hashes at once. Hashing is a leaf computation (nothing runs
 * between writing the key and reading it), so one buffer serves every switch of a fabric and stays in
 * cache, where one per switch would be a cold line on every hop.
 */
const KEY = new Uint8Array(KEY_BYTES);

/** A reusable hasher: fields and algorithm fixed, a shared scratch key, no allocation per packet. */
export class FlowHasher {
  constructor(
    /** Bit set of FIELD_* constants. */
    readonly fields: number,
    readonly algorithm: HashAlgorithmId,
    readonly seed: number,
  ) {}

  /** A 32-bit hash of the flow; `destQp` (-1: not a RoCEv2 packet) counts when FIELD_DEST_QP is chosen. */
  hash(
    srcIp: number,
    dstIp: number,
    protocol: number,
    srcPort: number,
    dstPort: number,
    destQp = -1,
  ): number {
    const k = KEY;
    let n = 0;
    const f = this.fields;
    if (f & FIELD_SRC_IP) {
      k[n++] = srcIp >>> 24;
      k[n++] = srcIp >>> 16;
      k[n++] = srcIp >>> 8;
      k[n++] = srcIp;
    }
    if (f & FIELD_DST_IP) {
      k[n++] = dstIp >>> 24;
      k[n++] = dstIp >>> 16;
      k[n++] = dstIp >>> 8;
      k[n++] = dstIp;
    }
    if (f & FIELD_PROTOCOL) k[n++] = protocol;
    if (f & FIELD_SRC_PORT) {
      k[n++] = srcPort >>> 8;
      k[n++] = srcPort;
    }
    if (f & FIELD_DST_PORT) {
      k[n++] = dstPort >>> 8;
      k[n++] = dstPort;
    }
    if (f & FIELD_DEST_QP && destQp >= 0) {
      k[n++] = destQp >>> 16;
      k[n++] = destQp >>> 8;
      k[n++] = destQp;
    }
    return fmix32(this.raw(k, n) ^ this.seed);
  }

  private raw(k: Uint8Array, n: number): number {
    switch (this.algorithm) {
      case ALGORITHM_CRC16:
        return crc16(k, n);
      case ALGORITHM_CRC32:
        return crc32(k, n);
      case ALGORITHM_XOR32:
        return xor32(k, n);
      default:
        return toeplitz(k, n);
    }
  }

  /** Index of the member (0..n-1) this flow takes. */
  select(
    n: number,
    srcIp: number,
    dstIp: number,
    protocol: number,
    srcPort: number,
    dstPort: number,
    destQp = -1,
  ): number {
    return n <= 1 ? 0 : this.hash(srcIp, dstIp, protocol, srcPort, dstPort, destQp) % n;
  }

  /** `select` over a packet's flow fields. */
  selectFlow(n: number, m: FlowFields): number {
    return this.select(n, m.srcIp, m.dstIp, m.protocol, m.srcPort, m.dstPort, m.destQp);
  }
}
