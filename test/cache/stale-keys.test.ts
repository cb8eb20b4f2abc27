import { describe, expect, it } from 'vitest';
import { StaleKeys } from '../../src/cache/_stale-keys.js';

describe('StaleKeys', () => {
  it('holds at most two generations of keys never taken out, and still finds the recent ones', () => {
    const stale = new StaleKeys();
    const many = StaleKeys.GENERATION * 5 + 7;
    for (let i = 0; i < many; i++) stale.add(`k${i}`);
    expect(stale.size).toBeLessThanOrEqual(2 * StaleKeys.GENERATION);
    expect(stale.delete(`k${many - 1}`)).toBe(true);
    expect(stale.delete(`k${many - StaleKeys.GENERATION}`)).toBe(true);
    expect(stale.delete(`k${many - 1}`)).toBe(false);
    expect(stale.delete('k0')).toBe(false);
  });
});
