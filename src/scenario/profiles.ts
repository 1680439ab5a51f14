// Built-in switch profiles. "default" is the switch's own defaults (config.ts). The three threshold presets
// are the threshold table of the DCQCN tuning article (§4.1; docs/references.md): ECN Kmin/Kmax on the
// lossless queue and a static PFC XOFF per priority group; XON sits `resumeOffset` below XOFF (the article's
// Huawei example pairs XOFF 3000 KB with XON 2500 KB, a 500 KB hysteresis; the other two scale it).
//
// Pmax is 100 %: the table gives no marking probability, and the only one the article writes down is its
// Huawei example's `probability 100`, on exactly the balanced thresholds (150 KB / 1500 KB). Measured on
// docs/experiments/threshold-table (seeds 1-3), 100 % instead of the switch default 20 % leaves the
// table's story unchanged (aggressive PFC-led, balanced and conservative ECN-led); balanced then serves
// its whole incast load (82-87.5 vs 73.5-77 Gb/s of 87.3 offered) and aggressive sends about 28 % fewer
// pause frames. docs/experiments/dcqcn-thresholds.md has the comparison.

import type { SwitchSettings } from "./schema.js";

/** Switch settings of each built-in profile (sizes in bytes, Pmax as a fraction), by profile name. */
export const BUILT_IN_PROFILE_SETTINGS: Readonly<Record<string, SwitchSettings>> = {
  default: {},
  aggressive: {
    ecn: { queues: { "3": { kmin: 50_000, kmax: 200_000, pmax: 1 } } },
    pfc: { xoff: 100_000, resumeOffset: 17_000 },
  },
  balanced: {
    ecn: { queues: { "3": { kmin: 150_000, kmax: 1_500_000, pmax: 1 } } },
    pfc: { xoff: 3_000_000, resumeOffset: 500_000 },
  },
  conservative: {
    ecn: { queues: { "3": { kmin: 500_000, kmax: 3_000_000, pmax: 1 } } },
    pfc: { xoff: 6_000_000, resumeOffset: 1_000_000 },
  },
};
