import { describe, expect, it } from 'vitest';
import { num } from '../../src/report/_html.js';

const INTL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** A small seeded generator, so that a failure names values that come again. */
function* seeded(seed: number, count: number): Generator<number> {
  let state = seed;
  for (let i = 0; i < count; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    yield state / 2 ** 31;
  }
}

describe('num', () => {
  it('writes what Intl.NumberFormat en-US with one decimal writes, at the halves too', () => {
    const halves = [0.05, 0.15, 0.25, 0.35, 0.45, 1.05, 1.15, 2.675, 0.95, 9.95, 99.95, 999.95, 999_999.95];
    const edges = [0, -0, -0.04, -0.05, 1e-7, -1e-7, 0.1 + 0.2, 1 / 3, 2 / 3, 1234.5, -1234.56, 1e20];
    const odd = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, -3e25];
    for (const value of [...halves, ...edges, ...odd])
      expect(num(value), String(value)).toBe(INTL.format(value));
  });

  it('agrees with Intl on 30,000 numbers of every size', () => {
    const mismatches: string[] = [];
    for (const r of seeded(17, 10_000)) {
      for (const value of [
        Math.round(r * 1e6) / 100,
        -r * 10 ** Math.floor(r * 40 - 5),
        Math.round(r * 1000) / 20,
      ]) {
        if (num(value) !== INTL.format(value))
          mismatches.push(`${value}: ${num(value)} != ${INTL.format(value)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('groups thousands and drops a zero decimal', () => {
    expect(num(1_234_567.04)).toBe('1,234,567');
    expect(num(1_234_567.06)).toBe('1,234,567.1');
    expect(num(999.96)).toBe('1,000');
  });
});
