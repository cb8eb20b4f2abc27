import { describe, expect, it } from 'vitest';
import { StringTable } from '../../src/engine/_string-table.js';

/** Keys an ordinary object would answer from its prototype, or store as array elements. */
const AWKWARD = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
  '0',
  '123',
  '-0',
  '1e3',
  '4294967295',
];

describe('StringTable', () => {
  it('knows only the keys it was given, whatever they are', () => {
    const table = new StringTable<number>();
    for (const key of AWKWARD) expect(table.get(key)).toBeUndefined();
    for (const [i, key] of AWKWARD.entries()) table.set(key, i);
    for (const [i, key] of AWKWARD.entries()) expect(table.get(key)).toBe(i);
    table.delete('__proto__');
    table.delete('123');
    expect(table.get('__proto__')).toBeUndefined();
    expect(table.get('123')).toBeUndefined();
    expect(table.get('constructor')).toBe(AWKWARD.indexOf('constructor'));
    expect(table.get('0')).toBe(AWKWARD.indexOf('0'));
  });

  it('agrees with a Map over a long run of additions and deletions', () => {
    const table = new StringTable<string>();
    const shadow = new Map<string, string>();
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = next() % 3 === 0 ? String(next() % 500) : `k${next() % 500}`;
      if (next() % 2 === 0) {
        table.set(key, `v${i}`);
        shadow.set(key, `v${i}`);
      } else {
        table.delete(key);
        shadow.delete(key);
      }
      if (i % 97 === 0) for (const [k, v] of shadow) expect(table.get(k)).toBe(v);
    }
    for (let k = 0; k < 500; k++) {
      expect(table.get(`k${k}`)).toBe(shadow.get(`k${k}`));
      expect(table.get(String(k))).toBe(shadow.get(String(k)));
    }
  });
});
