// DCQCN's parameters (cc/dcqcn-params.ts): a named profile (`paper`, `nvidia` — ConnectX firmware
// defaults, the default —, `hpcc-ns3`) and the knobs users tune on top of it, under the names of the
// resolved DcqcnParams. `dcqcn: nvidia` is short for `dcqcn: { profile: nvidia }`.

import { z } from "zod";
import { duration, rate, ratio, size } from "../../device/setting-units.js";
import {
  DCQCN_PROFILES,
  type DcqcnParams,
  type DcqcnProfileName,
  dcqcnProfile,
  RateChange,
} from "../cc/dcqcn-params.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly dcqcn: DcqcnParams;
  }
}

/** DCQCN profile of hosts that do not choose one: ConnectX's firmware defaults, as shipped. */
export const DEFAULT_DCQCN_PROFILE: DcqcnProfileName = "nvidia";

const profile = z.enum(Object.keys(DCQCN_PROFILES) as [DcqcnProfileName, ...DcqcnProfileName[]]);

const knobs = z
  .object({
    profile: profile.optional(),
    /** NP: least time between two CNPs towards one QP. */
    cnpInterval: duration.optional(),
    /** RP: rate-increase timer T, byte counter B (null: none), R_AI, R_HAI, α gain g, rate floor. */
    rpTimer: duration.optional(),
    rpByteCounter: size.nullable().optional(),
    rai: rate.optional(),
    rhai: rate.optional(),
    g: ratio.optional(),
    minRate: rate.optional(),
    /** Pacer: a new RC re-times the gap after the last packet ("repace") or applies from the next one. */
    rateChange: z.enum([RateChange.Repace, RateChange.NextPacket]).optional(),
  })
  .strict();

export type DcqcnSettings = z.output<typeof knobs>;

export const dcqcnFeature = defineNicFeature({
  key: "dcqcn",
  doc:
    "DCQCN's notification and reaction points (Zhu et al., SIGCOMM 2015): a parameter profile — paper, " +
    "nvidia (ConnectX firmware defaults) or hpcc-ns3 (HPCC's ns-3 run.py) — and the knobs on top of it.",
  settings: z.union([profile.transform((p): DcqcnSettings => ({ profile: p })), knobs]),
  resolve: (s): DcqcnParams => {
    const { profile: name = DEFAULT_DCQCN_PROFILE, ...overrides } = s ?? {};
    const set = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
    return dcqcnProfile(name, set as Partial<DcqcnParams>);
  },
  onlyWhenChanged: true,
});
