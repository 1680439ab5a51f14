// Received frames waiting for their emulated arrival time, for a device host whose clock is exact
// (synced): the frames of each port in arrival order, and the earliest of all handed over first, in time
// order with the device's timers (LiveTimers merges the two).
//
// Frames of one emulated nanosecond go to the device lowest port number first, whichever port the process
// happened to read first: the simulator's tie rule (simulator.ts; docs/fidelity.md, "The tie rule"), which
// LiveTimers completes by taking frames before timers of the same time, and the synced clock by not
// reaching a time at which a frame may still arrive (synced-clock.ts).

import { Fifo } from "../../device/fifo.js";
import type { TimedInput } from "./timers.js";

interface Waiting {
  readonly at: number;
  readonly frame: Uint8Array;
  /** Whether `at` is its sender's stamp (else the kernel's arrival time, read late or not). */
  readonly stamped: boolean;
}

export class Inbox implements TimedInput {
  /** In port number order: of heads with equal times, the first found is the lowest port. */
  private readonly ports: { port: number; queue: Fifo<Waiting> }[] = [];

  constructor(
    private readonly deliver: (port: number, at: number, frame: Uint8Array, stamped: boolean) => void,
  ) {}

  add(port: number, at: number, frame: Uint8Array, stamped = true): void {
    let entry = this.ports.find((p) => p.port === port);
    if (entry === undefined) {
      entry = { port, queue: new Fifo<Waiting>() };
      let i = this.ports.length;
      while (i > 0 && this.ports[i - 1]!.port > port) i--;
      this.ports.splice(i, 0, entry);
    }
    entry.queue.push({ at, frame, stamped });
  }

  peekTime(): number {
    let t = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.ports.length; i++) {
      const head = this.ports[i]!.queue.peek();
      if (head !== undefined && head.at < t) t = head.at;
    }
    return t;
  }

  dispatchNext(): void {
    let best = -1;
    let t = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.ports.length; i++) {
      const head = this.ports[i]!.queue.peek();
      if (head !== undefined && head.at < t) {
        t = head.at;
        best = i;
      }
    }
    if (best < 0) return;
    const p = this.ports[best]!;
    const w = p.queue.shift()!;
    this.deliver(p.port, w.at, w.frame, w.stamped);
  }
}
