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
  /** The same for a file open as descriptor `fd` (which stays open). */
  mapSharedFd(fd: number, bytes: number): ArrayBuffer;
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
  packetChunks(): ChunkStats;
  packetClose(handle: PacketHandle): void;
}

/** The process's receive chunks (native/src/chunks.c): one per batch read, reused once its frames are sent. */
export interface ChunkStats {
  /** Chunks mapped now (lent to a batch or free). */
  readonly mapped: number;
  readonly free: number;
  /** Batches whose chunk came back because every frame was sent (cumulative). */
  readonly backAtSend: number;
  /** Batches whose chunk came back because the collector freed the batch's Buffer (cumulative). */
  readonly backCollected: number;
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

/**
 * A shared table a device maps: a path, or `fd:N` for a file its supervisor opened and handed over as
 * descriptor N (a device that runs as an unprivileged user cannot open the lab's root-only files).
 */
export function mapTable(table: string, bytes: number): ArrayBuffer {
  const fd = /^fd:(\d+)$/.exec(table);
  return fd ? nativeAddon().mapSharedFd(Number(fd[1]), bytes) : nativeAddon().mapShared(table, bytes);
}

let loaded: NativeAddon | null = null;

/** The addon's file: the same whether this module runs from src/ (tests), dist/ or a chunk of dist/bundle/. */
export function nativeAddonPath(): string {
  return join(projectRoot(), "native", "build", "Release", "rocelab_native.node");
}

export function nativeAddon(): NativeAddon {
  if (loaded) return loaded;
  const ADDON = nativeAddonPath();
  if (!existsSync(ADDON)) {
    throw new Error(`the native addon is not built (${ADDON}): run \`npm run setup\` (node scripts/setup)`);
  }
  loaded = createRequire(import.meta.url)(ADDON) as NativeAddon;
  return loaded;
}
