/**
 * A reader that closes geobatch's standard output or error early (`geobatch validate job.yaml |
 * head -1`, `--help | head`) used to end the process on an unhandled EPIPE, a stack trace and
 * status 1. In a real process, with the reading end of the pipe closed before geobatch writes a
 * byte: the command ends quietly, with the status it would have had.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { quietOnBrokenPipe } from '../../src/cli/_broken-pipe.js';
import { cli, ROOT } from './_cli.js';

/** The command with the reading end of its standard output or error closed at once. */
function unread(args: readonly string[], stream: 'stdout' | 'stderr') {
  const run = cli(args);
  // Closed before the child has loaded a module: its first write finds no reader.
  run.child[stream]?.destroy();
  return run;
}

describe('a reader that closes the pipe early', () => {
  it.each([
    ['--help', ['--help']],
    ['validate', ['validate', join(ROOT, 'jobs/enrich-addresses.yaml')]],
  ])('on standard output: %s exits 0 without a word', async (_, args) => {
    const run = unread(args, 'stdout');
    expect(await run.exited).toBe(0);
    expect(run.err()).toBe('');
  });

  it('on standard output: init writing the job file there exits 0, its notes and nothing more on standard error', async () => {
    const run = unread(['init', join(ROOT, 'samples/places.csv'), '-o', '-'], 'stdout');
    expect(await run.exited).toBe(0);
    expect(run.err()).toMatch(/^geobatch init: /);
    expect(run.err()).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('on standard error: a refused job file still exits 2, not 1 from the EPIPE', async () => {
    const run = unread(['validate', join(ROOT, 'jobs/no-such-job.yaml')], 'stderr');
    expect(await run.exited).toBe(2);
    expect(run.out()).toBe('');
  });
});

describe('quietOnBrokenPipe', () => {
  const failure = (code: string) => Object.assign(new Error(`write ${code}`), { code });

  it('drops EPIPE, and raises any other error nothing else listens for, as Node would', () => {
    const stream = new PassThrough();
    quietOnBrokenPipe([stream]);
    expect(() => stream.emit('error', failure('EPIPE'))).not.toThrow();
    expect(() => stream.emit('error', failure('ENOSPC'))).toThrow('write ENOSPC');
  });

  it('drops EIO: the terminal went away, and its SIGHUP is stopping the run the orderly way', () => {
    const stream = new PassThrough();
    quietOnBrokenPipe([stream]);
    expect(() => stream.emit('error', failure('EIO'))).not.toThrow();
  });

  it('leaves other errors to a listener of their own (an output sink on standard output)', () => {
    const stream = new PassThrough();
    quietOnBrokenPipe([stream]);
    const seen: string[] = [];
    stream.on('error', (error: NodeJS.ErrnoException) => seen.push(error.code ?? ''));
    expect(() => stream.emit('error', failure('ENOSPC'))).not.toThrow();
    expect(seen).toEqual(['ENOSPC']);
  });
});
