import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCounters } from '../../src/engine/counters.js';
import { isGeobatchError } from '../../src/errors.js';
import {
  fingerprintInput,
  type Journal,
  journalPath,
  readJournal,
  verifyJournal,
  writeJournal,
} from '../../src/run/checkpoint.js';
import { read, tempDir, write } from '../fixtures/run-helpers.js';

const input = fingerprintInput('data/in.csv', 1234, 1_700_000_000_000);

function journal(): Journal {
  return {
    version: 1,
    job: 'geocode:abc',
    input,
    committedRows: 42,
    output: { target: 'out.csv', bytes: 1000, state: { records: 42 } },
    report: null,
    counters: createCounters(),
    startedAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:05.000Z',
    elapsedMs: 5000,
  };
}

describe('checkpoint journal', () => {
  it('is written atomically and read back as it was', async () => {
    const path = journalPath(join(tempDir(), 'out.csv'));
    await writeJournal(path, journal());
    expect(await readJournal(path)).toEqual(journal());
    expect(read(path).endsWith('\n')).toBe(true);
  });

  it('is absent when no run left one', async () => {
    expect(await readJournal(join(tempDir(), 'none.checkpoint.json'))).toBeUndefined();
  });

  it('refuses a journal that cannot be read, with a hint to start over, which --restart-if-changed does', async () => {
    const path = write(join(tempDir(), 'x.checkpoint.json'), '{"version":1,"committed');
    const error = await readJournal(path).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context.hint).toMatch(/^Run with --resume --restart-if-changed/);
    expect(isGeobatchError(error) && error.context.hint).toContain(`it deletes ${path}`);
  });

  it('accepts the job and input that made it', () => {
    expect(() => verifyJournal(journal(), 'cp', 'geocode:abc', input)).not.toThrow();
  });

  it('refuses another job fingerprint, saying which was expected', () => {
    let error: unknown;
    try {
      verifyJournal(journal(), 'cp', 'geocode:other', input);
    } catch (e) {
      error = e;
    }
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      expected: 'geocode:abc',
      received: 'geocode:other',
    });
  });

  it.each([
    ['a changed size', fingerprintInput('data/in.csv', 1235, 1_700_000_000_000)],
    ['a changed modification time', fingerprintInput('data/in.csv', 1234, 1_700_000_000_001)],
    ['another path', fingerprintInput('data/other.csv', 1234, 1_700_000_000_000)],
  ])('refuses input with %s', (_what, other) => {
    expect(() => verifyJournal(journal(), 'cp', 'geocode:abc', other)).toThrow(
      /other input, or the input changed/,
    );
  });
});
