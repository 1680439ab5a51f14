// PFC from the NIC (l2/rx-buffer.ts): a receive buffer drained at the host's ingest rate (PCIe); when the
// host cannot keep up, the NIC pauses its link partner on the data priority, as a ConnectX does when its
// receive buffer fills. Off unless a layer sets the section (`rxBuffer: {}` turns it on with defaults).

import { z } from "zod";
import type { BitsPerSecond } from "../../device/contract.js";
import { rate, size } from "../../device/setting-units.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly rxBuffer: RxBufferConfig;
  }
}

export interface RxBufferConfig {
  readonly enabled: boolean;
  /** Rate the host takes packets out of the buffer, bits/s (wire bytes of each frame). */
  readonly hostIngestRate: BitsPerSecond;
  /** Send XOFF when the buffer holds at least this many bytes. */
  readonly xoff: number;
  /** Send XON when it has drained to this many bytes or fewer. */
  readonly xon: number;
  /** Pause time of the XOFF frames, quanta (refreshed at half of it while still above XON). */
  readonly pauseQuanta: number;
  /**
   * What the buffer holds at most, bytes: a frame that does not fit is dropped and counted
   * (rx_discards_phy), as a real NIC's receive buffer of a few MB does when its partner ignores the pause.
   */
  readonly size: number;
}

/** Default receive buffer size: 2 MB (ConnectX-class NICs have a few MB of port buffer). */
export const DEFAULT_RX_BUFFER_BYTES = 2_000_000;

const settings = z
  .object({
    enabled: z.boolean().optional(),
    hostIngestRate: rate.optional(),
    xoff: size.optional(),
    xon: size.optional(),
    pauseQuanta: z.number().int().min(1).max(0xffff).optional(),
    /** What the buffer holds at most (default 2MB); what does not fit is dropped (rx_discards_phy). */
    size: size.optional(),
  })
  .strict();

export const rxBufferFeature = defineNicFeature({
  key: "rxBuffer",
  doc:
    "A receive buffer drained at the host's ingest rate: above xoff the NIC sends PFC XOFF on the data " +
    "priority (IEEE 802.1Qbb), at xon it resumes; what does not fit in size is dropped (rx_discards_phy).",
  settings,
  resolve: (s, ctx): RxBufferConfig => ({
    enabled: s === undefined ? false : (s.enabled ?? true),
    hostIngestRate: s?.hostIngestRate ?? ctx.rateBps,
    xoff: s?.xoff ?? 200_000,
    xon: s?.xon ?? 100_000,
    pauseQuanta: s?.pauseQuanta ?? 0xffff,
    size: s?.size ?? DEFAULT_RX_BUFFER_BYTES,
  }),
  check: (c) =>
    !c.enabled
      ? null
      : !(c.hostIngestRate > 0) || c.xon >= c.xoff || c.xon < 0
        ? "rxBuffer needs a positive hostIngestRate and 0 <= xon < xoff"
        : !(c.size > c.xoff)
          ? `rxBuffer.size ${c.size} bytes must be larger than its xoff threshold ${c.xoff}`
          : null,
});
