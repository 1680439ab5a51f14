// Rate-limits telemetry: a congested switch marks or drops millions of packets, and an event log that
// lists each one is unreadable and slow. At most one event per key per interval leaves the device; it
// carries the number of occurrences it stands for (itself and those suppressed since the last one).
// Keys come from key spaces a component reserves once (`keys(n)`), so no two components share one.

import type { Nanoseconds } from "./contract.js";

export class EventLimiter {
  private readonly last = new Map<number, Nanoseconds>();
  private readonly suppressed = new Map<number, number>();
  private nextKey = 0;

  constructor(private readonly intervalNs: Nanoseconds) {}

  /** Reserves `n` keys and returns the first; key `base + i` stands for the component's item `i`. */
  keys(n: number): number {
    const base = this.nextKey;
    this.nextKey += n;
    return base;
  }

  /** Returns the count to report if an event for `key` may go out now, or 0 to stay quiet. */
  admit(key: number, now: Nanoseconds): number {
    const last = this.last.get(key);
    if (last !== undefined && now - last < this.intervalNs) {
      this.suppressed.set(key, (this.suppressed.get(key) ?? 0) + 1);
      return 0;
    }
    this.last.set(key, now);
    const count = (this.suppressed.get(key) ?? 0) + 1;
    this.suppressed.delete(key);
    return count;
  }
}
