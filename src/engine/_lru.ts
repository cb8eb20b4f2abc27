/**
 * A bounded cache that forgets the least recently used entries: dedup memory stays flat on any
 * input. Two generations of Maps (the quick-lru scheme) rather than one Map trimmed at its oldest
 * key: V8 leaves deleted entries as holes at the front of a Map, so finding "the oldest key" after
 * many deletions walks the holes, and a busy run would slow down with every row.
 *
 * Bounded twice: by entries (`capacity`, rounded up to even) and by bytes (`maxBytes`, as
 * `sizeOf` estimates each entry). A generation is full when it holds half of either; the cache
 * then holds at most about both bounds, and always the most recent half.
 */
export class Lru<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();
  private recentBytes = 0;
  private olderBytes = 0;

  private readonly generation: number;
  private readonly generationBytes: number;

  constructor(
    capacity: number,
    maxBytes = Number.POSITIVE_INFINITY,
    private readonly sizeOf: (key: K, value: V) => number = () => 0,
  ) {
    this.generation = Math.ceil(capacity / 2);
    this.generationBytes = maxBytes / 2;
  }

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      const size = this.sizeOf(key, old);
      this.olderBytes -= size;
      this.store(key, old, size);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (this.generation === 0 || this.generationBytes <= 0) return;
    if (this.recent.has(key)) this.recent.set(key, value);
    else {
      const old = this.older.get(key);
      if (old !== undefined) {
        this.older.delete(key);
        this.olderBytes -= this.sizeOf(key, old);
      }
      this.store(key, value, this.sizeOf(key, value));
    }
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }

  /** The entries' estimated size, as `sizeOf` says. */
  get bytes(): number {
    return this.recentBytes + this.olderBytes;
  }

  private store(key: K, value: V, size: number): void {
    this.recent.set(key, value);
    this.recentBytes += size;
    if (this.recent.size >= this.generation || this.recentBytes >= this.generationBytes) {
      this.older = this.recent;
      this.olderBytes = this.recentBytes;
      this.recent = new Map();
      this.recentBytes = 0;
    }
  }
}
