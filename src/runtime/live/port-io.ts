// Frame I/O on real interfaces, behind one small interface so the backend can be swapped.
//
// The backend is libpcap through the `cap` binding (AF_PACKET underneath, as BMv2 does): raw Ethernet
// frames both ways, PFC, ARP and LLDP included (raw-socket cannot: it is IP-only). Traps measured on
// this machine (reference/tooling.md) and how this module avoids them:
//   1. cap keeps only a raw pointer to the receive buffer: we hold a reference for the handle's life.
//   2. a handle never sees the frames it sends, but a second handle on the same port would: each port is
//      opened once, without the `inbound` filter (which loses the first frame).
//   3. under saturation cap drains its ring without yielding: dilation keeps the load well below that,
//      and the device host measures event-loop lag to show when it is not.

import { createRequire } from "node:module";

export interface PortIo {
  readonly ifname: string;
  /** Puts a frame on the wire now (synchronous copy into the kernel). */
  send(frame: Uint8Array): void;
  /** Frames received; `frame` is a fresh copy the callee owns. */
  onFrame(handler: (frame: Uint8Array) => void): void;
  close(): void;
  /** Frames the kernel refused to send (ENOBUFS and the like). */
  readonly sendErrors: number;
}

interface CapHandle {
  open(device: string, filter: string, bufferSize: number, buffer: Buffer): string;
  on(event: "packet", listener: (nbytes: number, truncated: boolean) => void): void;
  send(buffer: Buffer, length?: number): void;
  close(): void;
}

const require = createRequire(import.meta.url);

/**
 * libpcap ring per port. 8 MB holds more than half a second of a 100 Gb/s link at dilation 1000 (12.5 MB/s
 * real), far beyond any stall of a process that drains it continuously; bigger rings only cost memory
 * (every switch port maps its own).
 */
const RING_BYTES = 8 * 1024 * 1024;
const SNAPLEN = 65536;

export class CapPort implements PortIo {
  private readonly cap: CapHandle;
  /** Must stay referenced while the handle is open (trap 1). */
  private readonly rxBuffer = Buffer.alloc(SNAPLEN);
  private handler: ((frame: Uint8Array) => void) | null = null;
  sendErrors = 0;

  constructor(readonly ifname: string) {
    const { Cap } = require("cap") as { Cap: new () => CapHandle };
    this.cap = new Cap();
    const linkType = this.cap.open(ifname, "", RING_BYTES, this.rxBuffer);
    if (linkType !== "ETHERNET") throw new Error(`${ifname}: link type ${linkType}, expected ETHERNET`);
    this.cap.on("packet", (nbytes, truncated) => {
      if (truncated || this.handler === null) return;
      // The receive buffer is overwritten by the next frame: the device gets its own copy.
      this.handler(Uint8Array.prototype.slice.call(this.rxBuffer, 0, nbytes));
    });
  }

  send(frame: Uint8Array): void {
    try {
      this.cap.send(Buffer.from(frame.buffer, frame.byteOffset, frame.length), frame.length);
    } catch {
      this.sendErrors++;
    }
  }

  onFrame(handler: (frame: Uint8Array) => void): void {
    this.handler = handler;
  }

  close(): void {
    this.cap.close();
  }
}
