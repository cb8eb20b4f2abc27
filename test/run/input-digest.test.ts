import { describe, expect, it } from 'vitest';
import { RowDigest } from '../../src/run/_input-digest.js';
import type { ReadItem } from '../../src/types.js';

const row = (index: number, name: string): ReadItem => ({
  kind: 'row',
  ref: { index, line: index + 2 },
  fields: { id: String(index), name },
});

/** The digest of rows below `upTo`, `ahead` rows read past them, folded every `every` rows. */
function digestOf(rows: readonly ReadItem[], upTo: number, ahead: number, every: number): string {
  const digest = new RowDigest();
  for (const [i, item] of rows.slice(0, upTo + ahead).entries()) {
    digest.see(item);
    if (i % every === 0) digest.fold(Math.min(i, upTo));
  }
  return digest.digest(upTo);
}

describe('the digest of standard input rows', () => {
  const rows = Array.from({ length: 10_000 }, (_, i) => row(i, `name ${i}`));

  it('is the same however far reading ran ahead and however often it was folded', () => {
    const one = digestOf(rows, 9000, 0, 1);
    expect(digestOf(rows, 9000, 1000, 64)).toBe(one);
    expect(digestOf(rows, 9000, 1, 5000)).toBe(one);
    expect(one).toMatch(/^[0-9a-f]{16}$/);
  });

  it('tells a changed row, two rows swapped, and a row moved to another line', () => {
    const one = digestOf(rows, 9000, 0, 64);
    const changed = rows.map((item, i) => (i === 4321 ? row(i, 'name 4322') : item));
    const swapped = rows.map((item, i) =>
      i === 10 ? row(10, 'name 11') : i === 11 ? row(11, 'name 10') : item,
    );
    const moved = rows.map((item, i) => (i === 5 ? { ...item, ref: { index: 5, line: 8 } } : item));
    for (const other of [changed, swapped, moved]) expect(digestOf(other, 9000, 0, 64)).not.toBe(one);
    // A row past the committed ones is not part of it.
    const later = rows.map((item, i) => (i === 9500 ? row(i, 'other') : item));
    expect(digestOf(later, 9000, 1000, 64)).toBe(one);
  });

  it("gives a resumed session's digest back while its committed rows are not read again", () => {
    const resumed = new RowDigest({ rows: 9000, digest: 'abc' });
    resumed.see(rows[0] as ReadItem);
    expect(resumed.digest(9000)).toBe('abc');
    expect(() => resumed.digest(9001)).toThrow(/only 1 read/);
  });
});
