import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { checkAccount } from '../../src/run/accounting.js';

describe('row accounting invariant', () => {
  it('holds when rows read = rows written = ok + failed and the report has the failed rows', () => {
    expect(() => checkAccount({ read: 10, written: 10, ok: 7, failed: 3, reported: 3 })).not.toThrow();
    expect(() =>
      checkAccount({ read: 10, written: 10, ok: 7, failed: 3, reported: undefined }),
    ).not.toThrow();
  });

  it.each([
    ['a row lost between read and write', { read: 10, written: 9, ok: 6, failed: 3, reported: 3 }],
    ['a written row neither ok nor failed', { read: 10, written: 10, ok: 6, failed: 3, reported: 3 }],
    ['a failed row missing from the report', { read: 10, written: 10, ok: 7, failed: 3, reported: 2 }],
  ])('is broken by %s: INVARIANT_BROKEN with the numbers', (_what, account) => {
    let error: unknown;
    try {
      checkAccount(account);
    } catch (e) {
      error = e;
    }
    expect(isGeobatchError(error) && error.code).toBe('INVARIANT_BROKEN');
    expect(isGeobatchError(error) && error.message).toContain(
      `${account.read} read, ${account.written} written`,
    );
  });
});
