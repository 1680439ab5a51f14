// A device of another partition, as a partition of a parallel run (run/sim-partition-run.ts) holds it: it
// takes every command the run's actions give it, as the real device does in its own partition, so both
// partitions count the same device calls (Simulator.emitKey), and keeps no state. The simulator never
// starts it, delivers to it or fires its timers (SimNode.local); its partition answers for it. Building
// only a partition's own devices halves a 2-worker run's memory and build time (docs/parallel-sim.md).

import type { Device, DeviceStats, Nanoseconds } from "../../device/contract.js";

export class GhostDevice implements Device<unknown, { ok: true }, DeviceStats> {
  constructor(readonly name: string) {}

  start(_now: Nanoseconds): void {}

  receive(): void {
    throw new Error(`${this.name} is simulated by another worker: a frame reached its stand-in`);
  }

  fire(): void {
    throw new Error(`${this.name} is simulated by another worker: a timer fired on its stand-in`);
  }

  setLinkState(): void {}

  /** Every command is taken: its reply is the real device's, in the partition that simulates it. */
  command(): { ok: true } {
    return { ok: true };
  }

  stats(): DeviceStats {
    throw new Error(`${this.name} is simulated by another worker: read its stats there`);
  }
}
