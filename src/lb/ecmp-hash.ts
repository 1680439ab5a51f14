// ECMP hashing: pick one of N equal-cost next hops from a packet's flow fields.
//
// The key is the chosen fields in a fixed order (src IP, dst IP, protocol, src port, dst port: BMv2's
// load_balance exercise order), hashed with CRC-16/ARC (BMv2's "crc16") or CRC-32 (zlib/IEEE). A CRC is
// linear: two switches that only XOR a different seed into it make correlated choices (polarisation), so
// the seed is mixed in through a non-linear finaliser (murmur3's fmix32) after the CRC.

import { fmix32 } from "../device/prng.js";

export const FIELD_SRC_IP = 1;
export const FIELD_DST_IP = 2;
export const FIELD_PROTOCOL = 4;
export const FIELD_SRC_PORT = 8;
export const FIELD_DST_PORT = 16;

export const ALGORITHM_CRC16 = 0;
export const ALGORITHM_CRC32 = 1;

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

/** A reusable hasher: fields and algorithm fixed, one scratch buffer, no allocation per packet. */
export class FlowHasher {
  private readonly key = new Uint8Array(13);

  constructor(
    /** Bit set of FIELD_* constants. */
    readonly fields: number,
    readonly algorithm: typeof ALGORITHM_CRC16 | typeof ALGORITHM_CRC32,
    readonly seed: number,
  ) {}

  /** A 32-bit hash of the flow. */
  hash(srcIp: number, dstIp: number, protocol: number, srcPort: number, dstPort: number): number {
    const k = this.key;
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
    const crc = this.algorithm === ALGORITHM_CRC16 ? crc16(k, n) : crc32(k, n);
    return fmix32(crc ^ this.seed);
  }

  /** Index of the member (0..n-1) this flow takes. */
  select(
    n: number,
    srcIp: number,
    dstIp: number,
    protocol: number,
    srcPort: number,
    dstPort: number,
  ): number {
    return n <= 1 ? 0 : this.hash(srcIp, dstIp, protocol, srcPort, dstPort) % n;
  }
}
