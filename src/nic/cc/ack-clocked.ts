// What HPCC, TIMELY and DCTCP share as congestion controls clocked by ACKs (QpCc's onAck): a rate that
// starts at line rate and is its own target, and none of DCQCN's other inputs — no CNPs, no byte counter,
// no timers. Each algorithm adds its onAck, its window and, where it has one, its α.

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";

export abstract class AckClockedCc {
  rate: BitsPerSecond;
  readonly cnpHandled = 0;
  readonly maxRate: BitsPerSecond;
  /** Whether a new rate re-times the pacer's gap in progress (QpCc.repaceOnChange), per ns-3's algorithm. */
  abstract readonly repaceOnChange: boolean;

  constructor(lineRate: BitsPerSecond) {
    this.maxRate = lineRate;
    this.rate = lineRate;
  }

  get target(): BitsPerSecond {
    return this.rate;
  }
  onCnp(_now: Nanoseconds): boolean {
    return false;
  }
  onBytesSent(_bytes: number, _now: Nanoseconds): boolean {
    return false;
  }
  onTimer(_index: number, _now: Nanoseconds): boolean {
    return false;
  }
  timerAt(_index: number): Nanoseconds {
    return -1;
  }
  alpha(_now: Nanoseconds): number {
    return 0;
  }
}
