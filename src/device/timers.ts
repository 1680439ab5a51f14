// Timers by handler: a component registers a handler once and gets a timer kind; it arms `kind.id(index)`
// (a port, a (port, priority) pair, a QP slot) and the registry calls its handler with that index when the
// timer fires. No device encodes timer ids by hand or dispatches them with a `switch`.

import type { Nanoseconds, TimerId } from "./contract.js";

/** Indexes per kind: ids are kind × TIMER_STRIDE + index. */
export const TIMER_STRIDE = 1_000_000;

export type TimerHandler = (index: number, now: Nanoseconds) => void;

export interface TimerKind {
  readonly name: string;
  /** The id to arm for `index` (0 ≤ index < TIMER_STRIDE). */
  id(index: number): TimerId;
}

class Kind implements TimerKind {
  private readonly base: number;
  constructor(
    readonly name: string,
    kind: number,
  ) {
    this.base = kind * TIMER_STRIDE;
  }
  id(index: number): TimerId {
    return this.base + index;
  }
}

export class TimerRegistry {
  private readonly handlers: TimerHandler[] = [];
  private readonly kinds: Kind[] = [];

  /** Registers a handler; kinds are numbered in registration order. */
  register(name: string, handler: TimerHandler): TimerKind {
    if (this.kinds.some((k) => k.name === name)) throw new Error(`timer kind ${name} registered twice`);
    const kind = new Kind(name, this.handlers.length);
    this.handlers.push(handler);
    this.kinds.push(kind);
    return kind;
  }

  fire(timer: TimerId, now: Nanoseconds): void {
    const kind = Math.floor(timer / TIMER_STRIDE);
    this.handlers[kind]?.(timer - kind * TIMER_STRIDE, now);
  }
}
