// A seeded frame mutator for fuzzing the codecs and the devices: it starts from valid frames (the frame
// catalog: one of every kind the lab puts on a wire) and breaks them the ways a bad NIC, a bit error, a
// buggy peer or an attacker would: truncation at every header boundary and at random lengths, bit flips,
// lengths that disagree (IPv4 total length, UDP length), bad IPv4 checksums and ICRCs, garbage in the BTH,
// RETH and AETH (with the checksums then recomputed, so that the garbage reaches the transport instead of
// dying at the ICRC check), odd PFC class-enable vectors and quanta, 802.1Q tags (one or two), zero-length
// and oversized frames. Deterministic: the same seed and seed frames give the same sequence.
//
// It lives in src (not test/) because `npm run fuzz` runs compiled from dist/, and the live-port fuzz
// injects the same frames on a veth.

import { createRandom, type Random } from "../device/prng.js";
import { internetChecksum, readU16, writeU16 } from "../wire/bytes.js";
import { EtherType } from "../wire/ethernet.js";
import { writeIcrcV2 } from "../wire/icrc.js";
import { opcodeLayout } from "../wire/roce.js";

export const Mutation = {
  /** Cut at a header boundary (Ethernet, tag, IPv4, UDP, BTH, extension headers, ICRC), ±1 byte. */
  TruncateBoundary: "truncate-boundary",
  TruncateRandom: "truncate-random",
  BitFlip: "bit-flip",
  /** Random bytes overwritten anywhere (checksums left as they fall). */
  ByteGarbage: "byte-garbage",
  Ipv4TotalLength: "ipv4-total-length",
  /** IHL and version nibble garbage. */
  Ipv4Header: "ipv4-header",
  /** TTL (0, 1, 2 or random), DSCP/ECN, flags and fragment offset, protocol; checksums recomputed. */
  Ipv4Fields: "ipv4-fields",
  UdpLength: "udp-length",
  Ipv4Checksum: "ipv4-checksum",
  Icrc: "icrc",
  /** Opcode, flags, PadCnt, TVer, P_Key, DestQP, AckReq, PSN garbage; checksums recomputed. */
  BthGarbage: "bth-garbage",
  /** RETH/AETH/ImmDt (whatever follows the BTH) garbage; checksums recomputed. */
  ExtGarbage: "ext-garbage",
  /** The frame rebuilt as a PFC frame with a random class-enable vector (reserved octet too) and quanta. */
  PfcVector: "pfc-vector",
  VlanSingle: "vlan-single",
  VlanDouble: "vlan-double",
  ZeroLength: "zero-length",
  /** Padded (zeros or garbage) past its length fields, up to a jumbo 9216 bytes or beyond 64 KB. */
  Oversized: "oversized",
  /** Two or three of the above in sequence. */
  Stacked: "stacked",
} as const;
export type Mutation = (typeof Mutation)[keyof typeof Mutation];

export const MUTATIONS: readonly Mutation[] = Object.values(Mutation);

export interface MutatedFrame {
  readonly frame: Uint8Array;
  readonly mutation: Mutation;
  /** Index of the seed frame it started from. */
  readonly source: number;
}

/** Where the headers of a frame are, as far as they can be found (-1: absent or not reachable). */
export interface FrameLayout {
  /** 14, 18 or 22: where the EtherType-identified payload starts. */
  readonly l3: number;
  readonly etherType: number;
  readonly ip: number;
  /** ip + IPv4 total length (may exceed the frame on a broken one). */
  readonly ipEnd: number;
  readonly udp: number;
  readonly bth: number;
}

/** Finds the headers of an Ethernet frame, looking through up to two 802.1Q tags. Never throws. */
export function frameLayout(f: Uint8Array): FrameLayout {
  let l3 = 14;
  let etherType = f.length >= 14 ? readU16(f, 12) : -1;
  for (let tags = 0; tags < 2 && etherType === EtherType.VLAN && f.length >= l3 + 4; tags++) {
    etherType = readU16(f, l3 + 2);
    l3 += 4;
  }
  let ip = -1;
  let ipEnd = -1;
  let udp = -1;
  let bth = -1;
  if (etherType === EtherType.IPv4 && f.length >= l3 + 20 && f[l3]! >>> 4 === 4) {
    ip = l3;
    ipEnd = ip + readU16(f, ip + 2);
    const ihl = (f[ip]! & 0x0f) * 4;
    if (ihl >= 20 && f[ip + 9] === 17 && f.length >= ip + ihl + 8) {
      udp = ip + ihl;
      if (readU16(f, udp + 2) === 4791 && f.length >= udp + 8 + 12) bth = udp + 8;
    }
  }
  return { l3, etherType, ip, ipEnd, udp, bth };
}

/** Recomputes the IPv4 header checksum and the RoCEv2 ICRC where the frame's headers allow. */
export function fixChecksums(f: Uint8Array): void {
  const at = frameLayout(f);
  if (at.ip < 0) return;
  const ihl = (f[at.ip]! & 0x0f) * 4;
  if (ihl >= 20 && at.ip + ihl <= f.length) {
    writeU16(f, at.ip + 10, 0);
    writeU16(f, at.ip + 10, internetChecksum(f, at.ip, ihl));
  }
  if (at.bth >= 0 && at.ipEnd <= f.length && at.ipEnd >= at.bth + 12 + 4) writeIcrcV2(f, at.ip, at.ipEnd);
}

/** Header boundaries of a frame: the offsets a truncation is most likely to expose bugs at. */
function boundaries(f: Uint8Array): number[] {
  const at = frameLayout(f);
  const out = [0, 6, 12, 14, at.l3];
  if (at.ip >= 0) out.push(at.ip + 20, at.ipEnd - 4, at.ipEnd);
  if (at.udp >= 0) out.push(at.udp, at.udp + 8);
  if (at.bth >= 0) {
    out.push(at.bth + 12, at.bth + 16, at.bth + 28, at.bth + 32);
    const layout = opcodeLayout(f[at.bth]!);
    if (layout) out.push(at.bth + layout.headerLength);
  }
  return out;
}

function copyOf(f: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(f.subarray(0, Math.min(length, f.length)));
  return out;
}

/** A tag inserted after the MAC addresses (TPID 0x8100, random PCP/DEI/VID). */
function insertTag(f: Uint8Array, r: Random): Uint8Array {
  if (f.length < 12) return f;
  const out = new Uint8Array(f.length + 4);
  out.set(f.subarray(0, 12));
  writeU16(out, 12, EtherType.VLAN);
  writeU16(out, 14, r.int(0x10000));
  out.set(f.subarray(12), 16);
  return out;
}

/** Values that sit on the edges of a 16-bit length field. */
function oddLength(r: Random, actual: number): number {
  const picks = [0, 1, 7, 8, 19, 20, actual - 1, actual + 1, actual + 4, 0xffff, r.int(0x10000)];
  return picks[r.int(picks.length)]! & 0xffff;
}

export class FrameMutator {
  private readonly r: Random;

  constructor(
    seed: number | string,
    private readonly seeds: readonly Uint8Array[],
  ) {
    if (seeds.length === 0) throw new RangeError("the mutator needs at least one seed frame");
    this.r = createRandom(seed, "frame-mutator");
  }

  /** A uniform integer in [0, n) from the mutator's stream (for callers that interleave their choices). */
  int(n: number): number {
    return this.r.int(n);
  }

  /** The next mutated frame: a fresh copy (the seeds are never changed). */
  next(): MutatedFrame {
    const source = this.r.int(this.seeds.length);
    const mutation = MUTATIONS[this.r.int(MUTATIONS.length)]!;
    const seed = this.seeds[source]!;
    return { frame: this.apply(mutation, copyOf(seed, seed.length)), mutation, source };
  }

  /** Applies `mutation` to `f` (which it may change in place) and returns the result. */
  apply(mutation: Mutation, f: Uint8Array): Uint8Array {
    const r = this.r;
    const at = frameLayout(f);
    switch (mutation) {
      case Mutation.TruncateBoundary: {
        const b = boundaries(f);
        const cut = b[r.int(b.length)]! + r.int(3) - 1;
        return f.slice(0, Math.max(0, Math.min(f.length, cut)));
      }
      case Mutation.TruncateRandom:
        return f.slice(0, r.int(f.length + 1));
      case Mutation.BitFlip: {
        const flips = 1 + r.int(4);
        for (let i = 0; i < flips && f.length > 0; i++) f[r.int(f.length)]! ^= 1 << r.int(8);
        return f;
      }
      case Mutation.ByteGarbage: {
        const n = 1 + r.int(8);
        for (let i = 0; i < n && f.length > 0; i++) f[r.int(f.length)] = r.int(256);
        return f;
      }
      case Mutation.Ipv4TotalLength:
        if (at.ip >= 0) {
          writeU16(f, at.ip + 2, oddLength(r, readU16(f, at.ip + 2)));
          if (r.int(2) === 0) fixChecksums(f);
        }
        return f;
      case Mutation.Ipv4Header:
        if (at.ip >= 0) {
          f[at.ip] = r.int(2) === 0 ? (f[at.ip]! & 0xf0) | r.int(16) : r.int(256);
          if (r.int(2) === 0) fixChecksums(f);
        }
        return f;
      case Mutation.Ipv4Fields:
        if (at.ip >= 0) {
          const ttls = [0, 1, 2, r.int(256)];
          const field = r.int(4);
          if (field === 0) f[at.ip + 8] = ttls[r.int(ttls.length)]!;
          else if (field === 1) f[at.ip + 1] = r.int(256);
          else if (field === 2) writeU16(f, at.ip + 6, r.int(0x10000));
          else f[at.ip + 9] = r.int(4) === 0 ? r.int(256) : [1, 6, 17][r.int(3)]!;
          fixChecksums(f);
        }
        return f;
      case Mutation.UdpLength:
        if (at.udp >= 0) {
          writeU16(f, at.udp + 4, oddLength(r, readU16(f, at.udp + 4)));
          if (r.int(2) === 0) fixChecksums(f);
        }
        return f;
      case Mutation.Ipv4Checksum:
        if (at.ip >= 0) f[at.ip + 10 + r.int(2)]! ^= 1 + r.int(255);
        return f;
      case Mutation.Icrc:
        if (at.ip >= 0 && at.ipEnd <= f.length && at.ipEnd >= 4)
          f[at.ipEnd - 1 - r.int(4)]! ^= 1 + r.int(255);
        return f;
      case Mutation.BthGarbage:
        if (at.bth >= 0) {
          const fields = 1 + r.int(3);
          for (let i = 0; i < fields; i++) {
            const byte = r.int(12);
            // Half the time a whole byte, else a single bit (opcode, flags, AckReq, PSN...).
            f[at.bth + byte] = r.int(2) === 0 ? r.int(256) : f[at.bth + byte]! ^ (1 << r.int(8));
          }
          if (r.int(4) !== 0) fixChecksums(f);
        }
        return f;
      case Mutation.ExtGarbage:
        if (at.bth >= 0 && f.length > at.bth + 12) {
          const span = Math.min(32, f.length - at.bth - 12);
          const n = 1 + r.int(6);
          for (let i = 0; i < n; i++) f[at.bth + 12 + r.int(span)] = r.int(256);
          if (r.int(4) !== 0) fixChecksums(f);
        }
        return f;
      case Mutation.PfcVector:
        return this.pfc(f);
      case Mutation.VlanSingle:
        return insertTag(f, r);
      case Mutation.VlanDouble:
        return insertTag(insertTag(f, r), r);
      case Mutation.ZeroLength:
        return new Uint8Array(0);
      case Mutation.Oversized: {
        const length = r.int(4) === 0 ? 65_536 + r.int(4096) : f.length + 1 + r.int(9216);
        const out = copyOf(f, length);
        if (r.int(2) === 0) for (let i = f.length; i < length; i++) out[i] = r.int(256);
        return out;
      }
      case Mutation.Stacked: {
        let out = f;
        const steps = 2 + r.int(2);
        for (let i = 0; i < steps; i++) {
          const m = MUTATIONS[r.int(MUTATIONS.length - 1)]!; // everything but Stacked itself
          out = this.apply(m, out);
        }
        return out;
      }
    }
  }

  /** A MAC Control frame at this frame's addresses: PFC or PAUSE opcode, odd vectors and quanta. */
  private pfc(f: Uint8Array): Uint8Array {
    const r = this.r;
    const out = new Uint8Array(r.int(8) === 0 ? 14 + r.int(22) : 60);
    out.set(f.subarray(0, Math.min(12, f.length)));
    // Mostly the reserved MAC Control address, so that the frame is taken as PFC.
    if (r.int(4) !== 0) out.set([0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
    writeU16(out, 12, EtherType.MacControl);
    if (out.length < 16) return out;
    const opcodes = [0x0101, 0x0101, 0x0101, 0x0001, r.int(0x10000)];
    writeU16(out, 14, opcodes[r.int(opcodes.length)]!);
    if (out.length < 18) return out;
    const vectors = [0x00, 0xff, 1 << r.int(8), r.int(256), 0x100 | r.int(256), r.int(0x10000)];
    writeU16(out, 16, vectors[r.int(vectors.length)]!);
    for (let p = 0; p < 8 && 18 + 2 * p + 2 <= out.length; p++) {
      const quanta = [0, 1, 0xffff, r.int(0x10000), r.int(64)];
      writeU16(out, 18 + 2 * p, quanta[r.int(quanta.length)]!);
    }
    return out;
  }
}
