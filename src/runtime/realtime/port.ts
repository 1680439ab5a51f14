// What a device host sees of one real interface: frames out, frames in with their arrival time. The
// backends behind it are in port-io.ts (which picks one) and ring-port.ts.

/**
 * A received frame (the callee owns it) and when it arrived: CLOCK_MONOTONIC ns, the base of
 * process.hrtime.bigint() (LiveClock.emulatedAt turns it into emulated time). Frames of one port come in
 * arrival order.
 */
export type FrameHandler = (frame: Uint8Array, arrivalNs: number) => void;

export interface PortIo {
  readonly ifname: string;
  /**
   * Puts a frame on the wire. The frame is the port's from here on (DeviceEnv.transmit's ownership rule):
   * the ring backend sends it, without copying, at the end of the current event-loop callback
   * (process.nextTick) with every other frame queued meanwhile, in one system call; pcap sends at once.
   */
  send(frame: Uint8Array): void;
  /** Sends what send() queued, now. */
  flush(): void;
  onFrame(handler: FrameHandler): void;
  close(): void;
  /** Frames the kernel refused to send (ENOBUFS and the like). */
  readonly sendErrors: number;
}
