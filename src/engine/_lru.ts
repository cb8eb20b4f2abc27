/**
 * A bounded cache that forgets the least recently used entries: dedup memory stays flat on any
 * input. Two generations of Maps (the quick-lru scheme) rather than one Map trimmed at its oldest
 * key: V8 leaves deleted entries as holes at the front of a Map, so finding "the oldest key" after
 * many deletions walks the holes, and a busy run would slow down with every row.
 *
 * Holds at most `capacity` entries (rounded up to even), and always the `capacity / 2` most recent.
 */
export class Lru<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();

  private readonly generation: number;

  constructor(capacity: number) {
    this.generation = Math.ceil(capacity / 2);
  }

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.store(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (this.generation === 0) return;
    if (this.recent.has(key)) this.recent.set(key, value);
    else {
      this.older.delete(key);
      this.store(key, value);
    }
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }

  private store(key: K, value: V): void {
    this.recent.set(key, value);
    if (this.recent.size >= this.generation) {
      this.older = this.recent;
      this.recent = new Map();
    }
  }
}
