/**
 * The cache's one run-stopping error, with the file and what to do about it. What to do depends
 * on what the file is: only a file that is (or was) a geobatch cache may be cleared; a file that
 * never was one is most likely the wrong path, and clearing it would delete someone's data.
 */
import { IoError, isGeobatchError } from '../errors.js';
import { isPostgresUrl } from './_pg-url.js';

/** Why a cache cannot be used; `context.detail.problem` of a CACHE_UNUSABLE error. */
export type CacheProblem =
  /** A geobatch cache SQLite cannot read (cut short, overwritten in part). */
  | 'damaged'
  /** A geobatch cache of a newer schema than this geobatch reads. */
  | 'newer'
  /** A geobatch cache too old to read without migrating it, which read-only mode does not do. */
  | 'outdated'
  /** Not an SQLite database at all: a CSV, a text file, anything else. */
  | 'not-sqlite'
  /** SQLite of another program, or damaged SQLite not recognisably geobatch's. */
  | 'foreign'
  | 'directory'
  /** The file or its directory may not be written (permissions, a read-only mount). */
  | 'not-writable'
  | 'unreadable'
  /** Another process holds the file locked (SQLite's BUSY or LOCKED) beyond the busy timeout. */
  | 'busy'
  /** Anything else: failing disk, unreachable server. */
  | 'failed';

/** Problems of a file that is (or was) a geobatch cache: `cache clear` may delete it. */
export const CLEARABLE: ReadonlySet<CacheProblem> = new Set(['damaged', 'newer']);

/** Problems of a file that is not a geobatch cache: `cache clear` deletes it only with --force. */
export const NOT_A_CACHE: ReadonlySet<CacheProblem> = new Set(['not-sqlite', 'foreign']);

export interface UnusableOptions {
  readonly problem: CacheProblem;
  /** What the file looks like, for a file that is not a geobatch cache ("a text file of 12 bytes"). */
  readonly looksLike?: string;
  /** What to do, when the problem alone does not say (the right a database role lacks). */
  readonly hint?: string;
  /** Diagnostics beside the problem (a database's SQLSTATE, the role). */
  readonly detail?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

export function unusable(location: string, reason: string, options: UnusableOptions): IoError {
  return new IoError('CACHE_UNUSABLE', `The request cache ${location} cannot be used: ${reason}`, {
    file: location,
    hint: options.hint ?? hintFor(location, options.problem),
    detail: { ...options.detail, problem: options.problem },
    ...(options.looksLike === undefined ? {} : { received: options.looksLike }),
    cause: options.cause,
  });
}

/** The problem of a CACHE_UNUSABLE error; undefined for any other error. */
export function problemOf(error: unknown): CacheProblem | undefined {
  if (!isGeobatchError(error) || error.code !== 'CACHE_UNUSABLE') return undefined;
  return (error.context.detail?.problem as CacheProblem | undefined) ?? 'failed';
}

const ELSEWHERE = '--cache PATH uses another one, --no-cache runs without';

function hintFor(location: string, problem: CacheProblem): string {
  const clear = `\`geobatch cache clear --cache ${location}\``;
  const settings = "--cache, GEOBATCH_CACHE and the job file's `cache:`";
  if (isPostgresUrl(location)) {
    if (problem === 'foreign') return `it is probably the wrong database: check ${settings}; ${ELSEWHERE}`;
    if (problem === 'newer') return `a newer geobatch reads it; ${ELSEWHERE}`;
    return `check the URL, the password (in the URL, PGPASSWORD or ~/.pgpass) and that PostgreSQL is up; ${ELSEWHERE}`;
  }
  switch (problem) {
    case 'damaged':
      return `${clear} deletes it and starts an empty cache; ${ELSEWHERE}`;
    case 'newer':
      return `a newer geobatch reads it; ${clear} deletes it and starts an empty cache; ${ELSEWHERE}`;
    case 'outdated':
      return `a run without --cache-mode read-only, by someone who may write it, brings it up to date; ${ELSEWHERE}`;
    case 'not-sqlite':
    case 'foreign':
      return `it is probably the wrong file: check ${settings}. Only to replace it with an empty cache on purpose: \`geobatch cache clear --force --cache ${location}\`; --no-cache runs without`;
    case 'directory':
      return `name a file in it, such as ${location}/cache.sqlite (check ${settings})`;
    case 'not-writable':
      return `geobatch may not write it or its directory (permissions, a read-only mount): --cache-mode read-only uses it without writing; ${ELSEWHERE}`;
    case 'unreadable':
      return `check that you may read it and enter its directory; ${ELSEWHERE}`;
    case 'busy':
      return `another process holds it locked (another geobatch run writing it, or a program that opened it: sqlite3, a backup): wait for it to let go, or ${ELSEWHERE}`;
    case 'failed':
      return ELSEWHERE;
  }
}

/** SQLite's primary result code of an error node:sqlite raised (its extended code's low byte). */
export function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

/**
 * The disk, not the cache, is the problem: full, over a file-size limit, or failing to write
 * (SQLite's IOERR and FULL, with their extended codes). The run can go on without caching.
 */
export function isDiskProblem(error: unknown): boolean {
  const e = error as { code?: string } | null;
  const primary = sqliteCode(error);
  return primary === 10 || primary === 13 || e?.code === 'ENOSPC' || e?.code === 'EFBIG';
}

/** SQLite's and the OS's ways of saying the disk (or the cache's size limit) is full. */
export function isFull(error: unknown): boolean {
  const e = error as { errcode?: number; code?: string } | null;
  // 13 is SQLITE_FULL; 53100 is PostgreSQL's disk_full.
  return e?.errcode === 13 || e?.code === 'ENOSPC' || e?.code === '53100';
}
