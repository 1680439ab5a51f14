// Per port, the priorities on which PFC is switched off at run time by a feature (the PFC watchdog while
// it recovers a stormed queue, or after it latched): received pauses of those priorities are counted but
// not obeyed, and the port no longer pauses its peer on them. The PFC feature registers the handler that
// lets go of what is held at the moment a priority is switched off.

import type { Nanoseconds } from "../device/contract.js";

export interface PfcOffHandler {
  /** PFC was just switched off on (port, priority): end the pause we obey and the XOFF we assert. */
  pfcSwitchedOff(port: number, priority: number, now: Nanoseconds): void;
}

export class PfcOverride {
  /** Bit p of `off[port]`: PFC is off on that port and priority. */
  readonly off: Uint8Array;
  private handler: PfcOffHandler | null = null;

  constructor(numPorts: number) {
    this.off = new Uint8Array(numPorts);
  }

  setHandler(h: PfcOffHandler): void {
    this.handler = h;
  }

  isOff(port: number, priority: number): boolean {
    return ((this.off[port]! >> priority) & 1) === 1;
  }

  set(port: number, priority: number, off: boolean, now: Nanoseconds): void {
    if (off === this.isOff(port, priority)) return;
    if (!off) {
      this.off[port]! &= ~(1 << priority);
      return;
    }
    this.off[port]! |= 1 << priority;
    this.handler?.pfcSwitchedOff(port, priority, now);
  }
}
