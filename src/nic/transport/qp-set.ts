// A set of QP slots as a bit set, walked in slot order. The transmit arbiter keeps the QPs that may have
// data in one (tx-arbiter.ts): a NIC with hundreds of QPs, few of them busy, then looks at the busy ones
// instead of loading every QP for each frame it sends.

export class QpSet {
  private words = new Uint32Array(4);

  add(slot: number): void {
    const w = slot >>> 5;
    if (w >= this.words.length) {
      const words = new Uint32Array(Math.max(w + 1, this.words.length * 2));
      words.set(this.words);
      this.words = words;
    }
    this.words[w]! |= 1 << (slot & 31);
  }

  delete(slot: number): void {
    const w = slot >>> 5;
    if (w < this.words.length) this.words[w]! &= ~(1 << (slot & 31));
  }

  has(slot: number): boolean {
    const w = slot >>> 5;
    return w < this.words.length && ((this.words[w]! >>> (slot & 31)) & 1) === 1;
  }

  /** The smallest member in `from` ..< `to`, or -1. */
  next(from: number, to: number): number {
    const words = this.words;
    let w = from >>> 5;
    if (from >= to || w >= words.length) return -1;
    // Bits below `from` in its word do not count.
    let bits = words[w]! & (~0 << (from & 31));
    for (;;) {
      if (bits !== 0) {
        const slot = (w << 5) + (31 - Math.clz32(bits & -bits));
        return slot < to ? slot : -1;
      }
      w++;
      if (w >= words.length || w << 5 >= to) return -1;
      bits = words[w]!;
    }
  }
}
