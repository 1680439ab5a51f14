// The project's native addon (native/, built by scripts/setup with node-gyp): what a live device process
// needs from the platform that Node does not offer. Loaded lazily, so the simulator and the CLI never
// need it.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { projectRoot } from "./project-root.js";

export interface NativeAddon {
  /** Maps `path` (created 0600 and grown to `bytes` when needed) MAP_SHARED into an ArrayBuffer. */
  mapShared(path: string, bytes: number): ArrayBuffer;
  // AF_PACKET ports (native/src/packet.c; used through RingPort in ring-port.ts, which documents them).
  packetOpen(
    ifname: string,
    snaplen: number,
    ringBytes: number,
    times: Float64Array,
    lens: Uint32Array,
    onReadable: () => void,
  ): PacketHandle;
  packetRecv(handle: PacketHandle): Buffer | null;
  packetSend(handle: PacketHandle, frames: readonly (Uint8Array | undefined)[], count: number): number;
  packetStats(handle: PacketHandle): PacketStats;
  packetClose(handle: PacketHandle): void;
}

/** An open AF_PACKET port inside the addon. */
export type PacketHandle = { readonly __packetHandle: unique symbol };

export interface PacketStats {
  /** Frames the kernel dropped because the receive ring was full (cumulative). */
  readonly drops: number;
  /** Frames longer than the ring's slots, skipped (cumulative). */
  readonly truncated: number;
  readonly slots: number;
  readonly slotBytes: number;
}

let loaded: NativeAddon | null = null;

export function nativeAddon(): NativeAddon {
  if (loaded) return loaded;
  // The same file whether this module runs from src/ (tests), dist/ or a chunk of dist/bundle/.
  const ADDON = join(projectRoot(), "native", "build", "Release", "rocelab_native.node");
  if (!existsSync(ADDON)) {
    throw new Error(`the native addon is not built (${ADDON}): run \`npm run setup\` (node scripts/setup)`);
  }
  loaded = createRequire(import.meta.url)(ADDON) as NativeAddon;
  return loaded;
}
