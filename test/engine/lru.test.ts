import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/engine/_lru.js';

describe('LRU cache', () => {
  it('never holds more than its capacity, and always the most recent half', () => {
    const lru = new Lru<number, number>(10);
    for (let i = 0; i < 1000; i++) {
      lru.set(i, i);
      expect(lru.size).toBeLessThanOrEqual(10);
      for (let back = 0; back < 5 && back <= i; back++) expect(lru.get(i - back)).toBe(i - back);
    }
  });

  it('keeps an entry that is read often', () => {
    const lru = new Lru<string, number>(4);
    lru.set('hot', 1);
    for (let i = 0; i < 100; i++) {
      lru.set(`cold${i}`, i);
      expect(lru.get('hot')).toBe(1);
    }
  });

  it('remembers nothing with capacity 0', () => {
    const lru = new Lru<string, number>(0);
    lru.set('a', 1);
    expect(lru.get('a')).toBeUndefined();
  });
});
