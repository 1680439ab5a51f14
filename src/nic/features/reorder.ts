// Out-of-order placement for sprayed traffic (transport/reorder-window.ts): the responder keeps requests up
// to `window` PSNs ahead of the expected one and NAKs only beyond it, as NICs that place out of order do
// (NVIDIA's adaptive routing support). 0: off, go-back-N as the IBTA RC service has it.

import { z } from "zod";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly reorder: ReorderConfig;
  }
}

export interface ReorderConfig {
  /** PSNs ahead of the expected one the responder keeps (0: off). */
  readonly window: number;
}

export const reorderFeature = defineNicFeature({
  key: "reorder",
  doc:
    "Out-of-order placement: the responder keeps requests up to window PSNs ahead of the expected one " +
    "and NAKs only beyond it (0: go-back-N, the IBTA RC default).",
  settings: z.object({ window: z.number().int().min(0).max(65536).optional() }).strict(),
  resolve: (s): ReorderConfig => ({ window: s?.window ?? 0 }),
  check: (c) =>
    !Number.isInteger(c.window) || c.window < 0 || c.window > 1 << 16
      ? `reorder.window ${c.window} is not in 0..65536`
      : null,
});
