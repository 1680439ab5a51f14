// Egress scheduling over a port's 8 queues: strict priority for the configured queues (highest queue
// number first), then deficit-weighted round robin (Shreedhar & Varghese's DRR with per-queue weights)
// among the others. Paused queues (PFC) are skipped without losing their place. The scheduler picks a
// queue; the packet stays in its QueueRing until the caller takes it.

import { PRIORITIES } from "../wire/pfc.js";
import { QueueRing } from "./queue-ring.js";

export class EgressScheduler {
  readonly queues: QueueRing[] = [];
  /** Packets in each queue, side by side (the rings keep their lengths here). */
  private readonly counts = new Int32Array(PRIORITIES);
  private readonly deficit = new Float64Array(PRIORITIES);
  private current = -1;
  private strictMask = 0;
  private weights: readonly number[] = [];
  private quantum = 0;

  /** Serves every queue by DWRR until `configure` says otherwise. */
  constructor() {
    for (let q = 0; q < PRIORITIES; q++) this.queues.push(new QueueRing(16, this.counts, q));
  }

  configure(strictQueues: readonly number[], weights: readonly number[], quantumBytes: number): void {
    this.strictMask = 0;
    for (const q of strictQueues) this.strictMask |= 1 << q;
    this.weights = weights;
    this.quantum = quantumBytes;
  }

  /** Packets waiting in all queues. */
  get backlog(): number {
    let n = 0;
    for (let q = 0; q < PRIORITIES; q++) n += this.counts[q]!;
    return n;
  }

  /**
   * The queue whose head packet goes next, given the queues a received PFC has paused (bit q set =
   * paused), or -1. The caller must then take that packet (`queues[q].shift`).
   */
  next(pausedMask: number): number {
    for (let q = PRIORITIES - 1; q >= 0; q--) {
      if ((this.strictMask >> q) & 1 && !((pausedMask >> q) & 1) && this.counts[q]! > 0) return q;
    }
    // Each visit to a queue adds weight × quantum to its deficit; with a quantum of at least one frame, two
    // passes over the queues always find a packet if any queue is eligible.
    for (let visits = 0; visits <= 2 * PRIORITIES + 1; visits++) {
      const c = this.current;
      if (c >= 0 && this.eligible(c, pausedMask)) {
        const bytes = this.queues[c]!.headLength();
        if (this.deficit[c]! >= bytes) {
          this.deficit[c]! -= bytes;
          if (this.counts[c] === 1) this.deficit[c] = 0;
          return c;
        }
      }
      let next = -1;
      for (let step = 1; step <= PRIORITIES; step++) {
        const q = ((((c < 0 ? -1 : c) + step) % PRIORITIES) + PRIORITIES) % PRIORITIES;
        if (this.eligible(q, pausedMask)) {
          next = q;
          break;
        }
      }
      if (next < 0) return -1;
      this.current = next;
      this.deficit[next]! += (this.weights[next] ?? 1) * this.quantum;
    }
    return -1;
  }

  private eligible(q: number, pausedMask: number): boolean {
    return !((this.strictMask >> q) & 1) && !((pausedMask >> q) & 1) && this.counts[q]! > 0;
  }

  /** Forgets the DWRR deficits (the queues were flushed). */
  resetDeficits(): void {
    this.deficit.fill(0);
  }
}
