import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumeFlagsOf } from '../../src/run/_resume-flags.js';

describe('resumeFlagsOf: the settings a checkpoint records for the command that resumes it', () => {
  it('gives rate, concurrency, the emulator, the cache and the chunks as typed, a cache file absolute', () => {
    expect(
      resumeFlagsOf({
        concurrency: 8,
        rate: 0,
        emulator: true,
        cache: { location: 'nightly.sqlite', mode: 'refresh' },
        queue: { work: false, chunkRows: 500 },
      }),
    ).toEqual([
      '--concurrency',
      '8',
      '--rate',
      '0',
      '--emulator',
      '--cache',
      resolve('nightly.sqlite'),
      '--cache-mode',
      'refresh',
      '--no-work',
      '--chunk-rows',
      '500',
    ]);
  });

  it('gives nothing the command line left to its defaults', () => {
    // What the command line passes when no flag is given: commander's defaults of --no-cache and --no-work.
    expect(
      resumeFlagsOf({
        emulator: false,
        cache: { location: true as never, mode: undefined },
        queue: { work: true },
      }),
    ).toEqual([]);
  });

  it('gives --no-cache without a mode, and a cache URL without its password', () => {
    expect(resumeFlagsOf({ cache: { location: false } })).toEqual(['--no-cache']);
    const flags = resumeFlagsOf({ cache: { location: 'postgres://geo:s3cret@db.example/cache' } });
    expect(flags).toEqual(['--cache', 'postgres://geo@db.example/cache']);
    expect(flags.join(' ')).not.toContain('s3cret');
  });
});
