/**
 * A string-keyed table for entries that come and go by the thousand while the table itself lives
 * the whole run: the items in flight, one entry per row from its request to its answer.
 *
 * Not a Map. A Map keeps insertion order, so V8 cannot reuse the slots of deleted entries: after
 * about a table's worth of additions it copies the live entries into a new table, and once the
 * Map has reached the old generation, which a run-long Map does, that new table is allocated
 * there too, while the table it replaces keeps pointing at every entry it held. Those entries
 * (each item in flight, and through it its rows) then stay reachable from old-generation garbage
 * until the next full collection, so every young collection promotes them, and what they point
 * to after it: one full collection during a run was enough to have nearly every row promoted
 * from then on (a fully cached 100,000-row run: 0.1 MB promoted per young collection before it,
 * 1.7 MB after; BENCHMARKS.md, profile, sixth round). A dictionary object's hash table reuses
 * the slots of deleted keys in place, and nothing of a row outlives it there.
 */
export class StringTable<V> {
  // Object.create(null): no inherited keys (`constructor`, `__proto__` are ordinary keys here),
  // and V8 makes it a dictionary from the start.
  readonly #entries: Record<string, V> = Object.create(null) as Record<string, V>;

  get(key: string): V | undefined {
    return this.#entries[key];
  }

  set(key: string, value: V): void {
    this.#entries[key] = value;
  }

  delete(key: string): void {
    delete this.#entries[key];
  }
}
