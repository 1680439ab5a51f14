// Requests forged from A's QP 1 to B's QP 1001 with the wire codecs, and a tap on the ACK/NAKs B sends:
// the error tests put packets a real requester would never send on the wire and read the answers.

import type { Nanoseconds } from "../../../src/device/contract.js";
import { rkeyFor } from "../../../src/nic/transport/memory-region.js";
import { writeIcrcV2 } from "../../../src/wire/icrc.js";
import { Ecn } from "../../../src/wire/ipv4.js";
import { buildRoceV2Frame, type Opcode, type Reth } from "../../../src/wire/roce.js";
import { connect, IP_A, IP_B, MAC_A, MAC_B, type Pair, type PairOptions, pair, roceOf } from "./pair.js";

/** A and B through a middlebox, QP 1 on A to QP 1001 on B, with transport settings on both. */
export function boxed(transport: Record<string, unknown> = {}, opts: PairOptions = {}): Pair {
  const settings = { transport };
  const p = pair({ middlebox: true, ...opts, a: { settings }, b: { settings } });
  connect(p, 1);
  return p;
}

/** Every ACK/NAK B sends towards A, as [psn, syndrome, time]. */
export function acksFromB(p: Pair): [number, number, Nanoseconds][] {
  const seen: [number, number, Nanoseconds][] = [];
  const before = p.box!.dropIf;
  p.box!.dropIf = (frame, from, index, now) => {
    const h = roceOf(frame);
    if (from === 2 && h?.aeth) seen.push([h.bth.psn, h.aeth.syndrome, now]);
    return before(frame, from, index, now);
  };
  return seen;
}

/** A request from A's QP 1 to B's QP 1001, built with the wire codecs. */
export function forged(o: { opcode: Opcode; psn: number; length: number; reth?: Reth | null }): Uint8Array {
  return buildRoceV2Frame({
    srcMac: MAC_A,
    dstMac: MAC_B,
    srcIp: IP_A,
    dstIp: IP_B,
    dscp: 26,
    ecn: Ecn.Ect0,
    udpSrcPort: 0xc001,
    opcode: o.opcode,
    destQp: 1001,
    psn: o.psn,
    ackReq: true,
    reth: o.reth ?? null,
    payload: new Uint8Array(o.length),
  });
}

/** B's QP 1001's region starts at 1001 × 2^32 (memory-region.ts). */
export const REGION_B = 1001n << 32n;

/** A RETH for B's QP 1001: at `va` (default: its region's start) with `rkey` (default: the right one). */
export const reth = (length: number, rkey = rkeyFor(1001), va = REGION_B): Reth => ({
  va,
  rkey,
  dmaLength: length,
});

/**
 * `frame` (a forged request) with its BTH opcode replaced by `opcode`, the ICRC recomputed: an opcode the
 * codecs will not build (atomics, reserved) with everything else valid.
 */
export function withOpcode(frame: Uint8Array, opcode: number): Uint8Array {
  const f = frame.slice();
  f[14 + 20 + 8] = opcode;
  writeIcrcV2(f, 14, f.length);
  return f;
}
