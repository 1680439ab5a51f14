// Egress scheduling over a port's 8 queues: strict priority for the configured queues (highest queue
// number first), then deficit-weighted round robin (Shreedhar & Varghese's DRR with per-queue weights)
// among the others. Paused queues (PFC) are skipped without losing their place.

import { Fifo } from "../device/fifo.js";
import { PRIORITIES } from "./config.js";

export interface QueuedPacket {
  readonly frame: Uint8Array;
  /** Ingress port, or -1 for packets the switch originated. */
  readonly inPort: number;
  /** Priority (= ingress priority group). */
  readonly pg: number;
  readonly queue: number;
  /** Bytes charged to the ingress PG's headroom (see Mmu.admit). */
  readonly headroom: number;
  /** Offset of the IPv4 header in `frame` (-1 if none). */
  readonly ipOffset: number;
  readonly enqueuedAt: number;
}

export class EgressScheduler {
  readonly queues: Fifo<QueuedPacket>[] = [];
  private readonly deficit = new Float64Array(PRIORITIES);
  private current = -1;
  private strictMask = 0;
  private weights: readonly number[] = [];
  private quantum = 0;

  constructor(strictQueues: readonly number[], weights: readonly number[], quantumBytes: number) {
    for (let q = 0; q < PRIORITIES; q++) this.queues.push(new Fifo<QueuedPacket>());
    this.configure(strictQueues, weights, quantumBytes);
  }

  configure(strictQueues: readonly number[], weights: readonly number[], quantumBytes: number): void {
    this.strictMask = 0;
    for (const q of strictQueues) this.strictMask |= 1 << q;
    this.weights = weights;
    this.quantum = quantumBytes;
  }

  enqueue(pkt: QueuedPacket): void {
    this.queues[pkt.queue]!.push(pkt);
  }

  /** Packets waiting in all queues. */
  get backlog(): number {
    let n = 0;
    for (const q of this.queues) n += q.length;
    return n;
  }

  /** The next packet to send, given the queues a received PFC has paused (bit q set = paused). */
  dequeue(pausedMask: number): QueuedPacket | null {
    for (let q = PRIORITIES - 1; q >= 0; q--) {
      if ((this.strictMask >> q) & 1 && !((pausedMask >> q) & 1) && this.queues[q]!.length > 0) {
        return this.queues[q]!.shift()!;
      }
    }
    // Each visit to a queue adds weight × quantum to its deficit; with a quantum of at least one frame, two
    // passes over the queues always find a packet if any queue is eligible.
    for (let visits = 0; visits <= 2 * PRIORITIES + 1; visits++) {
      const c = this.current;
      if (c >= 0 && this.eligible(c, pausedMask)) {
        const fifo = this.queues[c]!;
        const head = fifo.peek()!;
        if (this.deficit[c]! >= head.frame.length) {
          this.deficit[c]! -= head.frame.length;
          fifo.shift();
          if (fifo.length === 0) this.deficit[c] = 0;
          return head;
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
      if (next < 0) return null;
      this.current = next;
      this.deficit[next]! += (this.weights[next] ?? 1) * this.quantum;
    }
    return null;
  }

  private eligible(q: number, pausedMask: number): boolean {
    return !((this.strictMask >> q) & 1) && !((pausedMask >> q) & 1) && this.queues[q]!.length > 0;
  }

  /** Removes every queued packet (link down), oldest first per queue. */
  flush(): QueuedPacket[] {
    const out: QueuedPacket[] = [];
    for (const q of this.queues) out.push(...q.drain());
    this.deficit.fill(0);
    return out;
  }
}
