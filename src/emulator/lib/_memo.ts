/** A string-keyed cache around a pure function, for folding the same names over and over at load. */
export function memoize<T>(fn: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    const hit = cache.get(key);
    if (hit !== undefined || cache.has(key)) return hit as T;
    const value = fn(key);
    cache.set(key, value);
    return value;
  };
}
