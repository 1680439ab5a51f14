// Drop accounting both devices share: a counter per reason (`drop_<reason>`, one declaration with a reason
// label) and a rate-limited `drop` telemetry event per (port, reason) carrying how many drops it stands for.

import type { DeviceEnv, Nanoseconds } from "./contract.js";
import { EventKind } from "./contract.js";
import { type CounterDef, CounterKind, type CounterSet, Label } from "./counters.js";
import type { EventLimiter } from "./event-limiter.js";

/** Keys per port in the limiter's key space (more than any device's number of reasons). */
const REASONS_PER_PORT = 64;

/** Packets dropped, by reason: `drop_<reason>` in a device's stats (readCounter(t, DROP_COUNTER, { reason })). */
export const DROP_COUNTER = {
  name: "drop",
  kind: CounterKind.Counter,
  unit: "packets",
  help: "packets dropped, by reason",
  labels: [Label.Reason],
  key: "drop_{reason}",
} as const satisfies CounterDef;

export class DropCounter<R extends string> {
  private readonly index = new Map<R, number>();
  private readonly byReason: Float64Array;
  private readonly keyBase: number;

  constructor(
    readonly reasons: readonly R[],
    counters: CounterSet,
    private readonly limiter: EventLimiter,
    private readonly env: DeviceEnv,
    ports: number,
  ) {
    for (let i = 0; i < reasons.length; i++) this.index.set(reasons[i]!, i);
    this.byReason = counters.add(DROP_COUNTER);
    this.keyBase = limiter.keys(Math.max(1, ports) * REASONS_PER_PORT);
  }

  /** Counts one drop and emits a (rate-limited) event; `queue` < 0 when no queue is involved. */
  count(reason: R, port: number, queue: number, now: Nanoseconds): void {
    const i = this.index.get(reason)!;
    this.byReason[i]!++;
    const count = this.limiter.admit(this.keyBase + port * REASONS_PER_PORT + i, now);
    if (count > 0) {
      this.env.emit({
        kind: EventKind.Drop,
        port,
        ...(queue >= 0 ? { priority: queue } : {}),
        count,
        detail: reason,
      });
    }
  }

  get(reason: R): number {
    return this.byReason[this.index.get(reason)!]!;
  }
}
