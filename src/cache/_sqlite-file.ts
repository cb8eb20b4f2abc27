/** The SQLite file before SQLite opens it: created owner-only, refused when it is not SQLite. */
import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { unusable } from './_errors.js';

const HEADER = 'SQLite format 3\0';

export function create(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // The file holds the customers' addresses: readable by its owner only. SQLite gives the WAL
    // and shared-memory files the same mode.
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw unusable(path, `it cannot be created (${(error as NodeJS.ErrnoException).code ?? 'error'})`, error);
  }
}

/** A file that does not start as SQLite files do is refused before SQLite sees it. */
export function checkHeader(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(16);
    const read = readSync(fd, head, 0, 16, 0);
    if (read > 0 && (read < 16 || head.toString('latin1') !== HEADER)) {
      throw unusable(path, 'it is not an SQLite database (another file, or a damaged cache)');
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'CACHE_UNUSABLE') throw error;
    throw unusable(path, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function describe(error: unknown): string {
  const e = error as { errcode?: number; message?: string };
  if (e.errcode === 26) return 'it is not an SQLite database (another file, or a damaged cache)';
  if (e.errcode === 11) return 'the file is damaged (SQLite: database disk image is malformed)';
  return e.message ?? String(error);
}
