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

describe('LRU cache with a byte budget', () => {
  const sizeOf = (key: string, value: string) => key.length + value.length;

  it('never holds more than its byte budget, whatever the entry count allows', () => {
    const lru = new Lru<string, string>(1_000_000, 1000, sizeOf);
    for (let i = 0; i < 5000; i++) {
      lru.set(`key${i}`, 'x'.repeat(i % 50));
      expect(lru.bytes).toBeLessThanOrEqual(1000 + 60);
    }
    expect(lru.size).toBeLessThan(200);
  });

  it('keeps the most recent entries within the budget, and counts an entry once when it moves', () => {
    const lru = new Lru<string, string>(1_000_000, 400, sizeOf);
    for (let i = 0; i < 100; i++) lru.set(`k${i}`, 'v'.repeat(8));
    for (let back = 0; back < 10; back++) expect(lru.get(`k${99 - back}`)).toBe('vvvvvvvv');
    const before = lru.bytes;
    lru.set('k99', 'vvvvvvvv');
    expect(lru.bytes).toBe(before);
  });

  it('remembers nothing with a budget of 0 bytes', () => {
    const lru = new Lru<string, string>(100, 0, sizeOf);
    lru.set('a', 'b');
    expect(lru.get('a')).toBeUndefined();
  });
});
