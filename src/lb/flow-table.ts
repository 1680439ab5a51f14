// A bounded exact-match flow table with aging: the one primitive dynamic load balancing (DLB flowlets),
// IPCC, elephant detection and path navigation's installed entries keep per-flow state in.
//
// A key is a fixed number of 32-bit words (a 5-tuple, a Dest QP, ...). The table holds at most `capacity`
// entries in preallocated typed arrays (chained hashing, a free list): no allocation per packet. An entry
// not seen for `agingNs` is expired; lookups expire lazily and `sweep` frees them in bulk. An owner keeps
// its per-flow values in its own arrays indexed by the slot the table returns.

import type { Nanoseconds } from "../device/contract.js";
import { fmix32 } from "../device/prng.js";

export interface FlowTableCounters {
  hits: number;
  misses: number;
  inserts: number;
  /** Entries removed because they aged out. */
  aged: number;
  /** Inserts refused because the table was full. */
  full: number;
}

export class FlowTable {
  private readonly keys: Uint32Array;
  private readonly lastSeen: Float64Array;
  private readonly next: Int32Array;
  private readonly bucketOf: Int32Array;
  private readonly buckets: Int32Array;
  private readonly bucketMask: number;
  private freeHead = 0;
  /**
   * A lower bound on every held entry's last-seen time, set by each sweep: an entry's time only grows
   * (lookups, touches) and new entries are seen now, so nothing can age out before it plus the aging.
   */
  private oldestSeen = Number.NEGATIVE_INFINITY;
  private used = 0;
  readonly counters: FlowTableCounters = { hits: 0, misses: 0, inserts: 0, aged: 0, full: 0 };

  constructor(
    readonly capacity: number,
    readonly keyWords: number,
    readonly agingNs: Nanoseconds,
  ) {
    if (capacity < 1 || keyWords < 1) throw new Error("a flow table needs a capacity and a key");
    this.keys = new Uint32Array(capacity * keyWords);
    this.lastSeen = new Float64Array(capacity);
    this.next = new Int32Array(capacity);
    this.bucketOf = new Int32Array(capacity).fill(-1);
    const nb = 1 << Math.ceil(Math.log2(capacity * 2));
    this.buckets = new Int32Array(nb).fill(-1);
    this.bucketMask = nb - 1;
    for (let i = 0; i < capacity; i++) this.next[i] = i + 1 < capacity ? i + 1 : -1;
  }

  get size(): number {
    return this.used;
  }

  /** The slot of `key` (refreshing its age), or -1 if absent or aged out. */
  lookup(key: ArrayLike<number>, now: Nanoseconds): number {
    const b = this.hash(key);
    for (let s = this.buckets[b]!; s >= 0; s = this.next[s]!) {
      if (!this.matches(s, key)) continue;
      if (now - this.lastSeen[s]! > this.agingNs) {
        this.remove(s);
        this.counters.aged++;
        break;
      }
      this.lastSeen[s] = now;
      this.counters.hits++;
      return s;
    }
    this.counters.misses++;
    return -1;
  }

  /** The slot of `key`, inserting it if absent; -1 when the table is full (after expiring old entries). */
  insert(key: ArrayLike<number>, now: Nanoseconds): number {
    const found = this.lookup(key, now);
    if (found >= 0) return found;
    // Full: expire old entries, unless none can have aged out yet (a full table of live flows would
    // otherwise scan every entry for each packet of every flow it cannot take).
    if (this.freeHead < 0 && now - this.oldestSeen > this.agingNs) this.sweep(now);
    const s = this.freeHead;
    if (s < 0) {
      this.counters.full++;
      return -1;
    }
    this.freeHead = this.next[s]!;
    const w = this.keyWords;
    for (let i = 0; i < w; i++) this.keys[s * w + i] = key[i]! >>> 0;
    this.lastSeen[s] = now;
    const b = this.hash(key);
    this.bucketOf[s] = b;
    this.next[s] = this.buckets[b]!;
    this.buckets[b] = s;
    this.used++;
    this.counters.inserts++;
    return s;
  }

  /** Removes the entry in `slot` (an owner evicting a flow). */
  delete(slot: number): void {
    if (this.bucketOf[slot]! >= 0) this.remove(slot);
  }

  /** Marks the entry in `slot` seen at `now` without a lookup (an owner keeping an index entry alive). */
  touch(slot: number, now: Nanoseconds): void {
    if (this.bucketOf[slot]! >= 0) this.lastSeen[slot] = now;
  }

  /** Whether `slot` holds an entry (aged or not: aging is lazy). */
  holds(slot: number): boolean {
    return this.bucketOf[slot]! >= 0;
  }

  /** The slots holding an entry that has not aged out at `now`, for reports (not the packet path). */
  liveSlots(now: Nanoseconds): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.capacity; s++)
      if (this.bucketOf[s]! >= 0 && now - this.lastSeen[s]! <= this.agingNs) out.push(s);
    return out;
  }

  /** Word `i` of the key held in `slot`. */
  keyWord(slot: number, i: number): number {
    return this.keys[slot * this.keyWords + i]!;
  }

  /** When the entry in `slot` was last looked up or inserted. */
  lastSeenAt(slot: number): Nanoseconds {
    return this.lastSeen[slot]!;
  }

  /** Frees every aged-out entry; returns how many. */
  sweep(now: Nanoseconds): number {
    let n = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (let s = 0; s < this.capacity; s++) {
      if (this.bucketOf[s]! < 0) continue;
      const seen = this.lastSeen[s]!;
      if (now - seen > this.agingNs) {
        this.remove(s);
        n++;
      } else if (seen < oldest) oldest = seen;
    }
    this.oldestSeen = oldest;
    this.counters.aged += n;
    return n;
  }

  private remove(s: number): void {
    const b = this.bucketOf[s]!;
    let prev = -1;
    for (let c = this.buckets[b]!; c >= 0; prev = c, c = this.next[c]!) {
      if (c !== s) continue;
      if (prev < 0) this.buckets[b] = this.next[c]!;
      else this.next[prev] = this.next[c]!;
      break;
    }
    this.bucketOf[s] = -1;
    this.next[s] = this.freeHead;
    this.freeHead = s;
    this.used--;
  }

  private matches(s: number, key: ArrayLike<number>): boolean {
    const w = this.keyWords;
    for (let i = 0; i < w; i++) if (this.keys[s * w + i] !== key[i]! >>> 0) return false;
    return true;
  }

  private hash(key: ArrayLike<number>): number {
    let h = 0x9e3779b9;
    for (let i = 0; i < this.keyWords; i++) h = fmix32(h ^ (key[i]! >>> 0));
    return h & this.bucketMask;
  }
}
