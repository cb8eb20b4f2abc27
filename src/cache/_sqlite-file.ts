/**
 * The SQLite file before and around SQLite: created owner-only, refused when it is not SQLite,
 * and recognised as a geobatch cache even when SQLite can no longer read it, so that only a
 * geobatch cache is ever offered for deletion.
 */
import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CacheProblem, problemOf, sqliteCode, unusable } from './_errors.js';
import { APPLICATION, APPLICATION_ID } from './_sqlite-schema.js';

const HEADER = 'SQLite format 3\0';

/**
 * What is read to tell what a file is: page 1 (the header's application_id at byte 68) and the
 * `meta` table's root page, page 2 at the default page size of 4 KiB, with room for larger pages.
 */
const PROBE_BYTES = 64 * 1024;

/** The `meta` row naming the application as SQLite stores it: the key's text, then the value's. */
const MARKER = Buffer.from(`application${APPLICATION}`);

export function create(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // The file holds the customers' addresses: readable by its owner only. SQLite gives the WAL
    // and shared-memory files the same mode.
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw unusable(path, `it cannot be created (${code})`, { problem: 'not-writable', cause: error });
  }
}

/** Refuses, before SQLite sees it, a directory or a file that does not start as SQLite files do. */
export function checkFile(path: string): void {
  const head = readHead(path);
  if (head.length === 0 || isSqlite(head)) return;
  const looksLike = describeFile(head, statSync(path).size);
  throw unusable(path, `it is not an SQLite database but ${looksLike}`, { problem: 'not-sqlite', looksLike });
}

/**
 * Whether a file SQLite cannot read was a geobatch cache: SQLite's header, and geobatch's
 * application_id in it or the `meta` row naming geobatch. Conservative: a file damaged at its
 * start is not recognised, and is deleted only on request (`cache clear --force`).
 */
export function wasGeobatchCache(path: string): boolean {
  try {
    const head = readHead(path);
    return isSqlite(head) && (head.readUInt32BE(68) === APPLICATION_ID || head.includes(MARKER));
  } catch {
    return false;
  }
}

export interface Diagnosis {
  readonly problem: CacheProblem;
  readonly reason: string;
  readonly looksLike?: string;
}

/** What an error SQLite raised while opening the file says about it. */
export function diagnose(error: unknown, path: string, writing: boolean): Diagnosis {
  const e = error as { code?: string; message?: string };
  const primary = sqliteCode(error);
  const message = e.message ?? String(error);
  // 11 is SQLITE_CORRUPT, 26 SQLITE_NOTADB: a valid header, and pages SQLite cannot make sense of.
  if (primary === 11 || primary === 26) {
    if (wasGeobatchCache(path))
      return { problem: 'damaged', reason: `the file is damaged (SQLite: ${message})` };
    const looksLike = "a damaged SQLite database, or another program's, not recognisably a geobatch cache";
    return { problem: 'foreign', reason: `it is ${looksLike}`, looksLike };
  }
  // 5 SQLITE_BUSY, 6 SQLITE_LOCKED: another connection held the file past the busy timeout.
  if (primary === 5 || primary === 6)
    return { problem: 'busy', reason: `another process holds it locked (SQLite: ${message})` };
  // 8 SQLITE_READONLY, 14 SQLITE_CANTOPEN, 23 SQLITE_AUTH, and the OS's words for the same.
  if (
    primary === 8 ||
    primary === 14 ||
    primary === 23 ||
    ['EACCES', 'EPERM', 'EROFS'].includes(e.code ?? '')
  ) {
    return writing
      ? { problem: 'not-writable', reason: `it cannot be written (${message})` }
      : { problem: 'unreadable', reason: `it cannot be read (${message})` };
  }
  return { problem: 'failed', reason: message };
}

function isSqlite(head: Buffer): boolean {
  return head.length >= 100 && head.toString('latin1', 0, 16) === HEADER;
}

/** The first bytes of a file, or CACHE_UNUSABLE naming why they cannot be read. */
function readHead(path: string): Buffer {
  let fd: number | undefined;
  try {
    if (statSync(path).isDirectory()) {
      throw unusable(path, 'it is a directory, not a file', {
        problem: 'directory',
        looksLike: 'a directory',
      });
    }
    fd = openSync(path, 'r');
    const head = Buffer.alloc(PROBE_BYTES);
    return head.subarray(0, readSync(fd, head, 0, PROBE_BYTES, 0));
  } catch (error) {
    if (problemOf(error) !== undefined) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw unusable(path, `it cannot be read (${code})`, { problem: 'unreadable', cause: error });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** "a text file of 1,234 bytes": enough to recognise a CSV given by mistake, without quoting it. */
function describeFile(head: Buffer, size: number): string {
  const bytes = `${size.toLocaleString('en-US')} bytes`;
  // Control characters other than tab, line feed, form feed and carriage return: not text.
  const binary = head.subarray(0, 4096).some((b) => b < 9 || b === 11 || (b > 13 && b < 32));
  return binary ? `a file of ${bytes} that is neither text nor SQLite` : `a text file of ${bytes}`;
}
