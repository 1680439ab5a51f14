// The AF_PACKET port backend: a PACKET_MMAP receive ring read in bounded batches (no system call per
// frame, the kernel's arrival time on every frame) and sends batched into one sendmmsg() per event-loop
// turn. The native side is native/src/packet.c; docs/live-lab.md ("Port I/O") says why this design.

import { type NativeAddon, nativeAddon, type PacketHandle, type PacketStats } from "./native.js";
import type { FrameHandler, PortIo } from "./port.js";

/** Frames handed to the device per wake-up: then the event loop gets its turn (timers, IPC, other ports). */
export const RX_BATCH = 64;
/** Frames gathered before a send is forced; normally the end of the turn flushes first. */
const TX_BATCH = 256;

/** Real seconds of back-to-back full-size frames at line rate the receive ring absorbs. */
export const RING_SECONDS = 0.2;
export const MIN_RING_BYTES = 1024 * 1024;
export const MAX_RING_BYTES = 32 * 1024 * 1024;

/**
 * Receive ring size for a port of `lineRateBps` at dilation `dilation`: RING_SECONDS of the dilated line
 * rate (a 100 Gb/s port at D = 1000 carries 12.5 MB/s, so 2.5 MB), within [1 MiB, 32 MiB].
 */
export function ringBytesFor(lineRateBps: number, dilation: number): number {
  const bytes = Math.ceil(((lineRateBps / dilation) * RING_SECONDS) / 8);
  return Math.min(MAX_RING_BYTES, Math.max(MIN_RING_BYTES, bytes));
}

export class RingPort implements PortIo {
  private readonly addon: NativeAddon;
  private readonly handle: PacketHandle;
  private readonly times = new Float64Array(RX_BATCH);
  /** lens[RX_BATCH] is the count of the last batch. */
  private readonly lens = new Uint32Array(RX_BATCH + 1);
  /** Frames waiting for the flush: the runtime owns what a device transmits, so they are not copied. */
  private readonly tx: (Uint8Array | undefined)[] = new Array(TX_BATCH).fill(undefined);
  private txCount = 0;
  private flushQueued = false;
  private handler: FrameHandler | null = null;
  private closed = false;
  sendErrors = 0;
  /** Batches read (wake-ups that found frames) and sends (system calls), cumulative. */
  batches = 0;
  flushes = 0;

  constructor(
    readonly ifname: string,
    ringBytes: number,
  ) {
    this.addon = nativeAddon();
    this.handle = this.addon.packetOpen(ifname, 0, ringBytes, this.times, this.lens, this.onReadable);
  }

  /**
   * Queues the frame, which must not change until it is sent (the device gave it away, see
   * DeviceEnv.transmit); it leaves with the rest of this turn's frames in one system call.
   */
  send(frame: Uint8Array): void {
    if (this.closed) return;
    if (this.txCount === TX_BATCH) this.flush();
    this.tx[this.txCount++] = frame;
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(this.flushTick);
    }
  }

  flush(): void {
    if (this.txCount === 0 || this.closed) return;
    this.sendErrors += this.addon.packetSend(this.handle, this.tx, this.txCount);
    this.flushes++;
    // Let go of the frames. The addon has taken those it received back: a receive chunk whose frames were
    // all sent serves the next batch (native/src/chunks.c); one that holds a frame a device kept waits for
    // the collector.
    this.tx.fill(undefined, 0, this.txCount);
    this.txCount = 0;
  }

  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }

  /** The kernel's view of this port's ring: drops when it was full, frames too long for a slot. */
  stats(): PacketStats {
    return this.addon.packetStats(this.handle);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.addon.packetClose(this.handle);
  }

  private readonly flushTick = (): void => {
    this.flushQueued = false;
    this.flush();
  };

  /** Called by the addon when the ring has frames: one bounded batch, then back to the event loop. */
  private readonly onReadable = (): void => {
    if (this.closed) return;
    const batch = this.addon.packetRecv(this.handle);
    if (batch === null) return;
    const n = this.lens[RX_BATCH]!;
    this.batches++;
    // One buffer per batch, frames back to back: each frame is a view the device owns (the contract:
    // switches queue what they receive) until it transmits it (DeviceEnv.transmit: ownership passes to the
    // runtime, and the chunk serves a later batch once all of its frames are sent). A kept frame keeps its
    // batch's chunk, at most RX_BATCH frames.
    const buf = batch.buffer;
    let off = batch.byteOffset;
    for (let i = 0; i < n; i++) {
      const len = this.lens[i]!;
      this.handler?.(new Uint8Array(buf, off, len), this.times[i]!);
      off += len;
    }
  };
}
