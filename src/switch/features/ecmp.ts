// ECMP: which of a route's equal-cost next hops a packet takes. The hash input is the chosen fields in a
// fixed order (BMv2's load_balance order), hashed with CRC-16/ARC or CRC-32 and mixed with a per-switch
// seed (lb/ecmp-hash.ts); the strategy (lb/static-ecmp.ts) picks hash mod live members.

import { z } from "zod";
import { overlay } from "../../device/setting-units.js";
import {
  ALGORITHM_CRC16,
  ALGORITHM_CRC32,
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
} as const;
export type HashField = (typeof HashField)[keyof typeof HashField];

export const HashAlgorithm = {
  Crc16: "crc16",
  Crc32: "crc32",
} as const;
export type HashAlgorithm = (typeof HashAlgorithm)[keyof typeof HashAlgorithm];

const FIELD_BITS: Record<HashField, number> = {
  [HashField.SrcIp]: FIELD_SRC_IP,
  [HashField.DstIp]: FIELD_DST_IP,
  [HashField.Protocol]: FIELD_PROTOCOL,
  [HashField.SrcPort]: FIELD_SRC_PORT,
  [HashField.DstPort]: FIELD_DST_PORT,
};

const settings = z
  .object({
    fields: z
      .array(z.enum(["srcIp", "dstIp", "protocol", "srcPort", "dstPort"]))
      .min(1)
      .optional(),
    algorithm: z.enum(["crc16", "crc32"]).optional(),
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
    const e = cfg.ecmp;
    let fields = 0;
    for (const f of e.fields) fields |= FIELD_BITS[f];
    const algorithm = e.algorithm === HashAlgorithm.Crc16 ? ALGORITHM_CRC16 : ALGORITHM_CRC32;
    this.ctx.setStrategy(new StaticEcmp(fields, algorithm, e.seed));
  }
}

export const ecmpFeature = defineFeature({
  key: "ecmp",
  doc:
    "Static ECMP: CRC-16/ARC (BMv2's crc16) or CRC-32 over the chosen fields, the per-switch seed mixed in " +
    "through murmur3's fmix32 (a CRC is linear: XOR-ing a seed would polarise tiers); member = hash mod " +
    "live members, ordered by the peer's IP.",
  settings,
  defaults: ({ hashSeed }): EcmpConfig => ({
    fields: [HashField.SrcIp, HashField.DstIp, HashField.Protocol, HashField.SrcPort, HashField.DstPort],
    algorithm: HashAlgorithm.Crc32,
    seed: hashSeed,
  }),
  apply: (c: EcmpConfig, s) => overlay(c, s),
  create: (ctx) => new Ecmp(ctx),
});
