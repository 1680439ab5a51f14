// A growable ring-buffer FIFO: O(1) push and shift without Array.prototype.shift's copying.

export class Fifo<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(capacity = 16) {
    this.items = new Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) % this.items.length] = item;
    this.count++;
  }

  /** The oldest item, or undefined when empty. */
  peek(): T | undefined {
    return this.count > 0 ? this.items[this.head] : undefined;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.count--;
    return item;
  }

  /** Removes and returns every item, oldest first. */
  drain(): T[] {
    const out: T[] = [];
    while (this.count > 0) out.push(this.shift()!);
    return out;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.items.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.items[(this.head + i) % this.items.length];
    this.items = next;
    this.head = 0;
  }
}
