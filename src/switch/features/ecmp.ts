// ECMP: which of a route's equal-cost next hops a packet takes. The hash input is the chosen fields in a
// fixed order (BMv2's load_balance order, then the RoCEv2 Dest QP), hashed with CRC-16/ARC, CRC-32, an
// XOR fold or Toeplitz and mixed with a per-switch seed (lb/ecmp-hash.ts); the strategy
// (lb/static-ecmp.ts) picks hash mod live members. The load-balance feature (load-balance.ts) replaces
// the strategy when `lb.mode` is not ecmp, and keeps this hash as its fallback.

import { z } from "zod";
import { overlay } from "../../device/setting-units.js";
import {
  ALGORITHM_CRC16,
  ALGORITHM_CRC32,
  ALGORITHM_TOEPLITZ,
  ALGORITHM_XOR32,
  FIELD_DEST_QP,
  FIELD_DST_IP,
  FIELD_DST_PORT,
  FIELD_PROTOCOL,
  FIELD_SRC_IP,
  FIELD_SRC_PORT,
} from "../../lb/ecmp-hash.js";
import { StaticEcmp } from "../../lb/static-ecmp.js";
import type { SwitchConfig } from "../config.js";
import type { SwitchContext } from "../context.js";
import { defineFeature, type SwitchFeature } from "./feature.js";

export const HashField = {
  SrcIp: "srcIp",
  DstIp: "dstIp",
  Protocol: "protocol",
  SrcPort: "srcPort",
  DstPort: "dstPort",
  /** The RoCEv2 BTH Dest QP (24 bits): the "UDF Dest QP" hash factor. */
  DestQp: "destQp",
} as const;
export type HashField = (typeof HashField)[keyof typeof HashField];

export const HashAlgorithm = {
  Crc16: "crc16",
  Crc32: "crc32",
  Xor32: "xor32",
  Toeplitz: "toeplitz",
} as const;
export type HashAlgorithm = (typeof HashAlgorithm)[keyof typeof HashAlgorithm];

const FIELD_BITS: Record<HashField, number> = {
  [HashField.SrcIp]: FIELD_SRC_IP,
  [HashField.DstIp]: FIELD_DST_IP,
  [HashField.Protocol]: FIELD_PROTOCOL,
  [HashField.SrcPort]: FIELD_SRC_PORT,
  [HashField.DstPort]: FIELD_DST_PORT,
  [HashField.DestQp]: FIELD_DEST_QP,
};

const ALGORITHM_IDS = {
  [HashAlgorithm.Crc16]: ALGORITHM_CRC16,
  [HashAlgorithm.Crc32]: ALGORITHM_CRC32,
  [HashAlgorithm.Xor32]: ALGORITHM_XOR32,
  [HashAlgorithm.Toeplitz]: ALGORITHM_TOEPLITZ,
} as const;

/** The static ECMP strategy of an ecmp section (also the fallback of the dynamic strategies). */
export function staticEcmp(e: EcmpConfig): StaticEcmp {
  return hashStrategy(e.fields, e.algorithm, e.seed);
}

/** Static hashing over `fields` (a link aggregation group's member choice uses it too). */
export function hashStrategy(
  fields: readonly HashField[],
  algorithm: HashAlgorithm,
  seed: number,
): StaticEcmp {
  let bits = 0;
  for (const f of fields) bits |= FIELD_BITS[f];
  return new StaticEcmp(bits, ALGORITHM_IDS[algorithm], seed);
}

const settings = z
  .object({
    fields: z
      .array(z.enum(["srcIp", "dstIp", "protocol", "srcPort", "dstPort", "destQp"]))
      .min(1)
      .optional(),
    algorithm: z.enum(["crc16", "crc32", "xor32", "toeplitz"]).optional(),
    seed: z.number().int().min(0).max(0xffff_ffff).optional(),
  })
  .strict();

export interface EcmpConfig {
  readonly fields: readonly HashField[];
  readonly algorithm: HashAlgorithm;
  /** Per-switch seed mixed into the hash, so that tiers do not polarise. */
  readonly seed: number;
}

class Ecmp implements SwitchFeature {
  readonly name = "ecmp";

  constructor(private readonly ctx: SwitchContext) {}

  configure(cfg: SwitchConfig): void {
    this.ctx.setStrategy(staticEcmp(cfg.ecmp));
  }
}

// This module's resolved section of every switch's configuration (config.ts, SwitchTunables).
declare module "../config.js" {
  interface SwitchTunables {
    readonly ecmp: EcmpConfig;
  }
}

export const ecmpFeature = defineFeature({
  key: "ecmp",
  doc:
    "Static ECMP: CRC-16/ARC (BMv2's crc16), CRC-32, a 32-bit XOR fold or the Toeplitz hash (RSS's " +
    "default key) over the chosen fields (5-tuple and, for RoCEv2, the BTH Dest QP), the per-switch seed " +
    "mixed in through murmur3's fmix32 (these hashes are linear: XOR-ing a seed would polarise tiers); " +
    "member = hash mod live members, ordered by the peer's IP.",
  settings,
  defaults: ({ hashSeed }): EcmpConfig => ({
    fields: [HashField.SrcIp, HashField.DstIp, HashField.Protocol, HashField.SrcPort, HashField.DstPort],
    algorithm: HashAlgorithm.Crc32,
    seed: hashSeed,
  }),
  apply: (c: EcmpConfig, s) => overlay(c, s),
  create: (ctx) => new Ecmp(ctx),
});
