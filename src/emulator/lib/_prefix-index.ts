/**
 * A sorted-key index answering "which values have a key starting with q" by binary search, so that
 * a query touches only its matches and never scans the whole data set.
 */
export class PrefixIndex<T> {
  #keys: string[] = [];
  #values: T[] = [];
  #pending: { key: string; value: T }[] = [];

  add(key: string, value: T): void {
    if (key.length > 0) this.#pending.push({ key, value });
  }

  /** Sorts the keys; call once after the last add. */
  finish(): this {
    this.#pending.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#keys = this.#pending.map((e) => e.key);
    this.#values = this.#pending.map((e) => e.value);
    this.#pending = [];
    return this;
  }

  /** Values whose key starts with `prefix`, with their key, in key order (a value may repeat). */
  *withPrefix(prefix: string): Generator<{ key: string; value: T }> {
    for (let i = this.#lowerBound(prefix); i < this.#keys.length; i++) {
      const key = this.#keys[i] as string;
      if (!key.startsWith(prefix)) return;
      yield { key, value: this.#values[i] as T };
    }
  }

  /** Values whose key equals `key`. */
  exact(key: string): T[] {
    const out: T[] = [];
    for (let i = this.#lowerBound(key); i < this.#keys.length && this.#keys[i] === key; i++) {
      out.push(this.#values[i] as T);
    }
    return out;
  }

  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#keys[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
