// A binary min-heap of events ordered by (time, insertion sequence): events at the same emulated time run
// in the order they were scheduled, which makes a run deterministic.

export interface QueuedEvent {
  /** Emulated time, ns. */
  t: number;
  /** Insertion sequence number (tie-breaker); set by the queue. */
  seq: number;
}

export class EventQueue<E extends QueuedEvent> {
  private readonly heap: E[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(event: E): void {
    event.seq = this.nextSeq++;
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.t < event.t || (p.t === event.t && p.seq < event.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  /** The earliest event, left in the queue. */
  peek(): E | undefined {
    return this.heap[0];
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.heap.length > 0 ? this.heap[0]!.t : Number.POSITIVE_INFINITY;
  }

  pop(): E | undefined {
    const heap = this.heap;
    const n = heap.length;
    if (n === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (n > 1) {
      const size = n - 1;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        let c = l;
        let child = heap[l]!;
        if (r < size) {
          const right = heap[r]!;
          if (right.t < child.t || (right.t === child.t && right.seq < child.seq)) {
            c = r;
            child = right;
          }
        }
        if (last.t < child.t || (last.t === child.t && last.seq < child.seq)) break;
        heap[i] = child;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}
