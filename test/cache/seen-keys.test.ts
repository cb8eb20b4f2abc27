import { describe, expect, it } from 'vitest';
import { SeenKeys } from '../../src/cache/_seen-keys.js';

describe('SeenKeys', () => {
  it('knows a key met before, and not one it never met', () => {
    const seen = new SeenKeys(100);
    expect(seen.seenBefore('10115|berlin|invalidenstr|117')).toBe(false);
    expect(seen.seenBefore('10115|berlin|invalidenstr|117')).toBe(true);
    expect(seen.seenBefore('10115|berlin|invalidenstr|118')).toBe(false);
  });

  it('remembers at least `capacity` keys and forgets those met more than twice that long ago, like an LRU', () => {
    const seen = new SeenKeys(100);
    seen.seenBefore('first');
    for (let i = 0; i < 99; i++) seen.seenBefore(`k${i}`);
    // 100 keys met since: still remembered (now in the newest generation again).
    expect(seen.seenBefore('first')).toBe(true);
    const forgotten = new SeenKeys(100);
    forgotten.seenBefore('first');
    for (let i = 0; i < 200; i++) forgotten.seenBefore(`k${i}`);
    expect(forgotten.seenBefore('first')).toBe(false);
  });

  it('a key met again stays remembered however many others pass, as long as it keeps coming back', () => {
    const seen = new SeenKeys(50);
    seen.seenBefore('regular');
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 40; i++) seen.seenBefore(`r${round}-${i}`);
      expect(seen.seenBefore('regular')).toBe(true);
    }
  });

  it('remembers nothing with capacity 0 (dedup memory off)', () => {
    const seen = new SeenKeys(0);
    expect(seen.seenBefore('a')).toBe(false);
    expect(seen.seenBefore('a')).toBe(false);
  });

  it('takes few new keys for seen: under 1% with its generation full', () => {
    const seen = new SeenKeys(10_000);
    for (let i = 0; i < 10_000; i++) seen.seenBefore(`${10_000 + i}|Musterstadt|Hauptstraße|${i}`);
    let wrong = 0;
    for (let i = 0; i < 10_000; i++)
      if (seen.seenBefore(`${50_000 + i}|Beispielort|Bahnhofstraße|${i}`)) wrong++;
    expect(wrong).toBeLessThan(100);
  });
});
