// Built-in switch profiles. "default" is the switch's own defaults (config.ts). The three threshold presets
// are seed 002's tuning table (§4.1): ECN Kmin/Kmax on the lossless queue and a static PFC XOFF per
// priority group; XON sits `resumeOffset` below XOFF (seed 002's Huawei example pairs XOFF 3000 KB with
// XON 2500 KB, a 500 KB hysteresis; the other two scale it). Pmax stays at the default 20 % so the presets
// differ only in what the table gives.

import type { SwitchSettings } from "./schema.js";

export const BUILT_IN_PROFILE_SETTINGS: Readonly<Record<string, SwitchSettings>> = {
  default: {},
  aggressive: {
    ecn: { queues: { "3": { kmin: 50_000, kmax: 200_000, pmax: 0.2 } } },
    pfc: { xoff: 100_000, resumeOffset: 17_000 },
  },
  balanced: {
    ecn: { queues: { "3": { kmin: 150_000, kmax: 1_500_000, pmax: 0.2 } } },
    pfc: { xoff: 3_000_000, resumeOffset: 500_000 },
  },
  conservative: {
    ecn: { queues: { "3": { kmin: 500_000, kmax: 3_000_000, pmax: 0.2 } } },
    pfc: { xoff: 6_000_000, resumeOffset: 1_000_000 },
  },
};
