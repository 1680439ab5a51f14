// PFC stall prevention (l2/pause-stall.ts), as a ConnectX NIC has it: when the NIC has held its link
// partner paused without a break for longer than `timeout`, it stops sending pause frames, so that a
// stalled receive pipeline (or a PFC storm, the failure the DCQCN-era deployments met: Guo et al., "RDMA
// over Commodity Ethernet at Scale", SIGCOMM 2016, §4.3) cannot freeze the fabric behind it. Set on Linux
// with `ethtool --set-tunable <if> pfc-prevention-tout <ms>|auto`; the mlx5 driver's range is 80-8000 ms,
// `auto` is 100 ms, the firmware's default 8 s (linux commit "net/mlx5e: PFC stall prevention support").

import { z } from "zod";
import { duration } from "../../device/setting-units.js";
import { defineNicFeature } from "./feature.js";

declare module "../config.js" {
  interface NicTunables {
    readonly pfcStallPrevention: PfcStallPreventionConfig;
  }
}

export interface PfcStallPreventionConfig {
  /** Continuous pause sending after which the NIC stops sending pause frames, ns; 0: never (off). */
  readonly timeout: number;
}

const MS = 1_000_000;
/** mlx5: MLX5E_PFC_PREVEN_TOUT_MIN_MSEC, _MAX_MSEC and _AUTO_TOUT_MSEC. */
export const STALL_TIMEOUT_MIN = 80 * MS;
export const STALL_TIMEOUT_MAX = 8000 * MS;
export const STALL_TIMEOUT_AUTO = 100 * MS;
/** The firmware's default when nothing set it: 8 s. */
export const STALL_TIMEOUT_DEFAULT = 8000 * MS;

const settings = z
  .object({
    /** A duration in 80ms..8s, `auto` (100 ms) or `off`. */
    timeout: z.union([z.literal("auto"), z.literal("off"), duration]).optional(),
  })
  .strict();

export const pfcStallPreventionFeature = defineNicFeature({
  key: "pfcStallPrevention",
  doc:
    "PFC stall prevention (mlx5 pfc-prevention-tout): after timeout of continuous pause sending the NIC " +
    "stops sending pause frames until it stops wanting to pause (80ms..8s, auto = 100ms, off; default 8s).",
  settings,
  resolve: (s): PfcStallPreventionConfig => {
    const t = s?.timeout;
    return {
      timeout:
        t === undefined ? STALL_TIMEOUT_DEFAULT : t === "auto" ? STALL_TIMEOUT_AUTO : t === "off" ? 0 : t,
    };
  },
  check: (c) =>
    c.timeout !== 0 && (c.timeout < STALL_TIMEOUT_MIN || c.timeout > STALL_TIMEOUT_MAX)
      ? `pfcStallPrevention.timeout ${c.timeout / MS} ms is not in 80..8000 ms (or auto, off), as mlx5 allows`
      : null,
});
