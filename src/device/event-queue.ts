// A binary min-heap of events ordered by (time, insertion sequence): events at the same emulated time run
// in the order they were scheduled, which makes a run deterministic.
//
// The keys live beside the heap in one Float64Array (time and sequence of heap slot i at 2i and 2i + 1), so
// sifting compares numbers in adjacent memory instead of loading each event object on the way: in a large
// fabric the queue holds thousands of events and the objects are scattered across the heap, one cache miss
// per level, while the keys of a node's two children share a cache line.

export interface QueuedEvent {
  /** Emulated time, ns. Must not change while the event is queued. */
  t: number;
  /** Insertion sequence number (tie-breaker); set by the queue. */
  seq: number;
}

export class EventQueue<E extends QueuedEvent> {
  private readonly heap: (E | null)[] = [];
  private keys = new Float64Array(2 * 1024);
  private n = 0;
  private nextSeq = 0;

  get size(): number {
    return this.n;
  }

  push(event: E): void {
    const seq = this.nextSeq++;
    event.seq = seq;
    const t = event.t;
    const heap = this.heap;
    let i = this.n++;
    if (i === heap.length) heap.push(null);
    if (2 * i + 2 > this.keys.length) this.grow();
    const k = this.keys;
    // The new event has the largest sequence number, so it stops below any parent of equal time.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = k[2 * parent]!;
      if (pt <= t) break;
      heap[i] = heap[parent]!;
      k[2 * i] = pt;
      k[2 * i + 1] = k[2 * parent + 1]!;
      i = parent;
    }
    heap[i] = event;
    k[2 * i] = t;
    k[2 * i + 1] = seq;
  }

  /** The earliest event, left in the queue. */
  peek(): E | undefined {
    return this.n > 0 ? this.heap[0]! : undefined;
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.n > 0 ? this.keys[0]! : Number.POSITIVE_INFINITY;
  }

  pop(): E | undefined {
    const n = this.n;
    if (n === 0) return undefined;
    const heap = this.heap;
    const k = this.keys;
    const top = heap[0]!;
    const size = n - 1;
    this.n = size;
    const last = heap[size]!;
    heap[size] = null;
    if (size > 0) {
      const lt = k[2 * size]!;
      const ls = k[2 * size + 1]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        let c = l;
        let ct = k[2 * l]!;
        let cs = k[2 * l + 1]!;
        const r = l + 1;
        if (r < size) {
          const rt = k[2 * r]!;
          const rs = k[2 * r + 1]!;
          if (rt < ct || (rt === ct && rs < cs)) {
            c = r;
            ct = rt;
            cs = rs;
          }
        }
        if (lt < ct || (lt === ct && ls < cs)) break;
        heap[i] = heap[c]!;
        k[2 * i] = ct;
        k[2 * i + 1] = cs;
        i = c;
      }
      heap[i] = last;
      k[2 * i] = lt;
      k[2 * i + 1] = ls;
    }
    return top;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    this.keys = keys;
  }
}
