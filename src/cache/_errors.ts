/** The cache's one run-stopping error, with the file and the command that clears it. */
import { IoError } from '../errors.js';

export function unusable(location: string, reason: string, cause?: unknown): IoError {
  return new IoError('CACHE_UNUSABLE', `The request cache ${location} cannot be used: ${reason}`, {
    file: location,
    hint: `\`geobatch cache clear --cache ${location}\` deletes it and starts an empty cache; --cache PATH uses another one, --no-cache runs without`,
    cause,
  });
}

/**
 * The disk, not the cache, is the problem: full, over a file-size limit, or failing to write
 * (SQLite's IOERR and FULL, with their extended codes). The run can go on without caching.
 */
export function isDiskProblem(error: unknown): boolean {
  const e = error as { errcode?: number; code?: string } | null;
  const primary = typeof e?.errcode === 'number' ? e.errcode & 0xff : undefined;
  return primary === 10 || primary === 13 || e?.code === 'ENOSPC' || e?.code === 'EFBIG';
}

/** SQLite's and the OS's ways of saying the disk (or the cache's size limit) is full. */
export function isFull(error: unknown): boolean {
  const e = error as { errcode?: number; code?: string } | null;
  // 13 is SQLITE_FULL; 53100 is PostgreSQL's disk_full.
  return e?.errcode === 13 || e?.code === 'ENOSPC' || e?.code === '53100';
}
