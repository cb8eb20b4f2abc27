/**
 * Keys found past their lifetime, until their items are sent. An item can also be answered
 * without a request (a boundaries item from the areas learnt meanwhile): its key is never taken
 * out, and over a long run of an expired cache a plain Set would keep every such key. Two
 * generations bound it, as the dedup memory is bounded (engine/_lru.ts); a key that waits past
 * both loses its `expired` count, never its answer.
 */
export class StaleKeys {
  static readonly GENERATION = 32_768;
  #recent = new Set<string>();
  #older = new Set<string>();

  add(key: string): void {
    this.#recent.add(key);
    if (this.#recent.size >= StaleKeys.GENERATION) {
      this.#older = this.#recent;
      this.#recent = new Set();
    }
  }

  /** Keys held (both generations). */
  get size(): number {
    return this.#recent.size + this.#older.size;
  }

  /** Takes `key` out; whether it was there. */
  delete(key: string): boolean {
    if (this.#recent.size === 0 && this.#older.size === 0) return false;
    return this.#recent.delete(key) || this.#older.delete(key);
  }
}
