import { describe, expect, it } from 'vitest';
import { PrefixIndex } from '../../../src/emulator/lib/_prefix-index.js';

describe('PrefixIndex', () => {
  const index = new PrefixIndex<number>();
  for (const [i, key] of ['karlsruhe', 'karlstadt', 'kiel', 'berlin', 'karlsruhe'].entries())
    index.add(key, i);
  index.add('', 99);
  index.finish();

  it('yields every value whose key starts with the prefix, in key order', () => {
    expect([...index.withPrefix('karls')].map((e) => e.value)).toEqual([0, 4, 1]);
    expect([...index.withPrefix('x')]).toEqual([]);
  });

  it('finds exact keys and ignores empty keys', () => {
    expect(index.exact('kiel')).toEqual([2]);
    expect(index.exact('')).toEqual([]);
  });
});
