// A binary min-heap of events ordered by (time, rank, insertion sequence). The rank is the caller's own
// tie rule for events at the same emulated time (the simulator's: docs/fidelity.md, "The tie rule"); the
// sequence breaks what the rank leaves equal, so that a run stays deterministic. A caller that passes no
// rank gets (time, insertion order).
//
// The keys live beside the heap in one Float64Array (time, rank and sequence of heap slot i at 3i, 3i + 1
// and 3i + 2), so sifting compares numbers in adjacent memory instead of loading each event object on the
// way: in a large fabric the queue holds thousands of events and the objects are scattered across the
// heap, one cache miss per level, while the keys of a node's two children sit next to each other.

export interface QueuedEvent {
  /** Emulated time, ns. Must not change while the event is queued. */
  t: number;
  /** Insertion sequence number (the last tie-breaker); set by the queue. */
  seq: number;
}

const K = 3;

export class EventQueue<E extends QueuedEvent> {
  private readonly heap: (E | null)[] = [];
  private keys = new Float64Array(K * 1024);
  private n = 0;
  private nextSeq = 0;

  get size(): number {
    return this.n;
  }

  /** Queues `event` at its time; `rank` orders it among events of equal time (lower first). */
  push(event: E, rank = 0): void {
    const seq = this.nextSeq++;
    event.seq = seq;
    const t = event.t;
    const heap = this.heap;
    let i = this.n++;
    if (i === heap.length) heap.push(null);
    if (K * i + K > this.keys.length) this.grow();
    const k = this.keys;
    // The new event has the largest sequence number, so it stops below any parent of equal time and rank.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = K * parent;
      const pt = k[p]!;
      if (pt < t || (pt === t && k[p + 1]! <= rank)) break;
      heap[i] = heap[parent]!;
      k[K * i] = pt;
      k[K * i + 1] = k[p + 1]!;
      k[K * i + 2] = k[p + 2]!;
      i = parent;
    }
    heap[i] = event;
    k[K * i] = t;
    k[K * i + 1] = rank;
    k[K * i + 2] = seq;
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
      const lt = k[K * size]!;
      const lr = k[K * size + 1]!;
      const ls = k[K * size + 2]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        let c = l;
        let ct = k[K * l]!;
        let cr = k[K * l + 1]!;
        let cs = k[K * l + 2]!;
        const r = l + 1;
        if (r < size) {
          const rt = k[K * r]!;
          if (rt < ct || (rt === ct && before(k[K * r + 1]!, k[K * r + 2]!, cr, cs))) {
            c = r;
            ct = rt;
            cr = k[K * r + 1]!;
            cs = k[K * r + 2]!;
          }
        }
        if (lt < ct || (lt === ct && before(lr, ls, cr, cs))) break;
        heap[i] = heap[c]!;
        k[K * i] = ct;
        k[K * i + 1] = cr;
        k[K * i + 2] = cs;
        i = c;
      }
      heap[i] = last;
      k[K * i] = lt;
      k[K * i + 1] = lr;
      k[K * i + 2] = ls;
    }
    return top;
  }

  /** Takes every event out, earliest first (for a caller that must queue them again with new ranks). */
  drain(): E[] {
    const out: E[] = [];
    for (let e = this.pop(); e !== undefined; e = this.pop()) out.push(e);
    return out;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    this.keys = keys;
  }
}

/** (rank a, seq a) before (rank b, seq b), for events of equal time. */
function before(ra: number, sa: number, rb: number, sb: number): boolean {
  return ra < rb || (ra === rb && sa < sb);
}
