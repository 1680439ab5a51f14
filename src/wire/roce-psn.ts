// PSN arithmetic. PSNs are 24-bit sequence numbers; a PSN window is at most 2^23 packets, so the shorter
// way round the 24-bit circle decides which PSN comes first.

import { PSN_MASK } from "./roce-opcodes.js";

/** `a + n` modulo 2^24 (`n` may be negative; |a + n| < 2^31). */
export function psnAdd(a: number, n: number): number {
  return (a + n) & PSN_MASK;
}

/** Signed distance from `b` to `a` (a − b) in −2^23 .. 2^23−1: positive when `a` comes after `b`. */
export function psnDiff(a: number, b: number): number {
  // Shift the 24-bit difference into the top of an int32 and back, so bit 23 becomes the sign.
  return (((a - b) & PSN_MASK) << 8) >> 8;
}

/** True when `a` comes strictly before `b` in 24-bit sequence space. */
export function psnLessThan(a: number, b: number): boolean {
  return psnDiff(a, b) < 0;
}
