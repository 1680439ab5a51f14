// Frame I/O on real interfaces, behind one small interface so the backend can be swapped.
//
// Two backends, both raw Ethernet frames both ways, PFC, ARP and LLDP included (raw-socket cannot: it is
// IP-only):
//   ring  AF_PACKET with a PACKET_MMAP receive ring and batched sendmmsg() (ring-port.ts, native/), the
//         default: frames carry the kernel's arrival time, and reading yields to the event loop.
//   pcap  libpcap through the `cap` binding (AF_PACKET underneath, as BMv2 does), the fallback when the
//         native addon is not built; a frame's arrival time is when the process read it.
// Selected by `InitMessage.portIo`, else the ROCELAB_PORT_IO environment variable, else "ring".
//
// Traps of the cap binding measured on this machine and how this module avoids them:
//   1. cap keeps only a raw pointer to the receive buffer: we hold a reference for the handle's life.
//   2. a handle never sees the frames it sends, but a second handle on the same port would: each port is
//      opened once, without the `inbound` filter (which loses the first frame).
//   3. under saturation cap drains its ring without yielding: dilation keeps the load well below that,
//      and the device host measures event-loop lag to show when it is not.

import { createRequire } from "node:module";
import type { FrameHandler, PortIo } from "./port.js";
import { RingPort, ringBytesFor } from "./ring-port.js";

export const PortBackend = { Ring: "ring", Pcap: "pcap" } as const;
export type PortBackend = (typeof PortBackend)[keyof typeof PortBackend];

/** The backend asked for (init message first, then ROCELAB_PORT_IO), "ring" when neither says. */
export function portBackend(requested: string | undefined): PortBackend {
  const name = requested ?? process.env.ROCELAB_PORT_IO ?? PortBackend.Ring;
  if (name === PortBackend.Ring || name === PortBackend.Pcap) return name;
  throw new Error(`unknown port I/O backend "${name}" (ROCELAB_PORT_IO / portIo: ring or pcap)`);
}

/** Opens `ifname` with `backend`; the ring's size follows the port's dilated line rate (ring-port.ts). */
export function openPort(
  ifname: string,
  backend: PortBackend,
  lineRateBps: number,
  dilation: number,
): PortIo {
  if (backend === PortBackend.Pcap) return new CapPort(ifname);
  try {
    return new RingPort(ifname, ringBytesFor(lineRateBps, dilation));
  } catch (e) {
    throw new Error(
      `${ifname}: the ring port backend failed (${(e as Error).message}); build the addon with ` +
        "`npm run setup`, or choose the libpcap backend with ROCELAB_PORT_IO=pcap",
    );
  }
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
  private handler: FrameHandler | null = null;
  sendErrors = 0;

  constructor(readonly ifname: string) {
    const { Cap } = require("cap") as { Cap: new () => CapHandle };
    this.cap = new Cap();
    const linkType = this.cap.open(ifname, "", RING_BYTES, this.rxBuffer);
    if (linkType !== "ETHERNET") throw new Error(`${ifname}: link type ${linkType}, expected ETHERNET`);
    this.cap.on("packet", (nbytes, truncated) => {
      if (truncated || this.handler === null) return;
      // The receive buffer is overwritten by the next frame: the device gets its own copy. cap passes no
      // timestamp: the frame arrived, as far as we can tell, when we read it.
      this.handler(
        Uint8Array.prototype.slice.call(this.rxBuffer, 0, nbytes),
        Number(process.hrtime.bigint()),
      );
    });
  }

  send(frame: Uint8Array): void {
    try {
      this.cap.send(Buffer.from(frame.buffer, frame.byteOffset, frame.length), frame.length);
    } catch {
      this.sendErrors++;
    }
  }

  /** Nothing waits: every send() went out at once. */
  flush(): void {}

  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }

  close(): void {
    this.cap.close();
  }
}
