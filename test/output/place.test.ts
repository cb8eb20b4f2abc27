/** Putting sealed files in place: in order, passing what an earlier try placed, naming the cause of a refusal. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeAll, renameFix } from '../../src/output/_place.js';
import { caught, read, tempDir, write } from '../fixtures/run-helpers.js';

describe('placeAll', () => {
  it('renames each file over its target and passes one an earlier try placed (same size)', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.csv');
    const b = join(dir, 'b.csv');
    write(a, 'id\n1\n');
    write(`${b}.partial`, 'id\n2\n');
    const placed = new Set<string>();
    await placeAll(
      [
        { path: `${a}.partial`, target: a, bytes: 5 },
        { path: `${b}.partial`, target: b, bytes: 5 },
      ],
      placed,
    );
    expect([...placed]).toEqual([a, b]);
    expect(read(b)).toBe('id\n2\n');
    expect(existsSync(`${b}.partial`)).toBe(false);
  });

  it('does not take a target of another size for the finished file (CHECKPOINT_MISMATCH)', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.csv');
    write(a, 'an older night');
    const error = await caught(placeAll([{ path: `${a}.partial`, target: a, bytes: 5 }], new Set()));
    expect(error).toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
      context: { file: `${a}.partial`, expected: '5 bytes', received: 'no file' },
    });
  });

  it('names the files in place and those waiting when a rename is refused, with the fix for its cause', async () => {
    const dir = tempDir();
    const [a, b, c] = ['a.csv', 'b.csv', 'c.csv'].map((name) => join(dir, name)) as [string, string, string];
    for (const file of [a, b, c]) write(`${file}.partial`, 'id\n');
    mkdirSync(b);
    const placed = new Set<string>();
    const error = await caught(
      placeAll(
        [a, b, c].map((target) => ({ path: `${target}.partial`, target })),
        placed,
      ),
    );
    expect(error).toMatchObject({
      code: 'IO_ERROR',
      context: {
        file: b,
        hint: `${b} is a directory: move it away.`,
        detail: { inPlace: a, waiting: `${b}.partial, ${c}.partial` },
      },
    });
    expect(error.message).toMatch(/^Renaming .*b\.csv\.partial to .*b\.csv failed: EISDIR/);
    expect([...placed]).toEqual([a]);
  });
});

describe('renameFix', () => {
  it.each([
    ['EISDIR', '/d/out.csv is a directory: move it away'],
    ['EACCES', '/d does not let this user replace /d/out.csv (EACCES): restore the permissions'],
    ['EPERM', '/d does not let this user replace /d/out.csv (EPERM): restore the permissions'],
    ['EROFS', '/d is on a read-only file system: make it writable'],
    ['ENOSPC', 'The file system of /d is full (ENOSPC): free some space'],
    ['EIO', 'Fix what the message says (EIO)'],
  ])('names %s as the cause, not disk space in general', (code, fix) => {
    expect(renameFix('/d/out.csv', Object.assign(new Error(code), { code }))).toBe(fix);
  });
});
