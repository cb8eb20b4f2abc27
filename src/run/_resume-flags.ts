/**
 * The command-line settings a resume is given again that no checkpoint check covers: the rate and
 * concurrency the service was asked at, the emulator, the request cache, a distributed run's
 * chunks. `geobatch status`, in another process, gives the command that goes on with them: a
 * resume without `--rate 5` asked a service contracted at 5 requests a second at the job file's
 * rate, one without `--cache` looked in another cache for what the first session bought, one
 * without `--emulator` asked the real service with no key.
 */
import { resolve } from 'node:path';
import { isPostgresUrl, withoutPassword } from '../cache/_pg-url.js';
import type { CacheFlags } from '../cache/settings.js';

export interface ResumeFlagOptions {
  readonly concurrency?: number | string;
  readonly rate?: number | string;
  readonly emulator?: unknown;
  readonly cache?: CacheFlags;
  readonly queue?: { readonly work?: boolean; readonly chunkRows?: number };
}

/** The flags as words of the command line (`--rate`, `5`), a cache URL without its password. */
export function resumeFlagsOf(options: ResumeFlagOptions): string[] {
  const words: string[] = [];
  if (options.concurrency !== undefined) words.push('--concurrency', String(options.concurrency));
  if (options.rate !== undefined) words.push('--rate', String(options.rate));
  // The command line's false, a library caller's handle: the embedded emulator either way.
  if (options.emulator !== undefined && options.emulator !== false) words.push('--emulator');
  const cache = options.cache;
  if (cache?.location === false) words.push('--no-cache');
  else if (typeof cache?.location === 'string' && cache.fromQueue !== true)
    words.push(
      '--cache',
      // A file by its absolute path: status may be run from another directory.
      isPostgresUrl(cache.location) ? withoutPassword(cache.location).url : resolve(cache.location),
    );
  if (cache?.location !== false && cache?.mode !== undefined) words.push('--cache-mode', cache.mode);
  if (options.queue?.work === false) words.push('--no-work');
  if (options.queue?.chunkRows !== undefined) words.push('--chunk-rows', String(options.queue.chunkRows));
  return words;
}
