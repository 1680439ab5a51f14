// Listeners of one kind of lab news (snapshots, events, the lab going away), for every Lab.

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  /** Adds a listener; returns the function that removes it. */
  add(listener: (value: T) => void): () => void {
    this.set.add(listener);
    return () => {
      this.set.delete(listener);
    };
  }

  emit(value: T): void {
    for (const l of this.set) l(value);
  }

  get size(): number {
    return this.set.size;
  }
}
