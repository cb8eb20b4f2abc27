/**
 * The bytes of an input stop at the run's signal, standard input's as a file's: a stop must not
 * wait for a line that a pipe held open may never send, and a pipe still read would keep the
 * process alive once the run had ended.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/input/_source.js';
import { openReader } from '../../src/input/open.js';
import { collect, fieldsOf } from './_read.js';

describe('standard input', () => {
  it('ends its chunks when the signal stops the run, letting go of the stream', async () => {
    const stdin = new PassThrough();
    const stop = new AbortController();
    const source = await openSource('-', { stdin, signal: stop.signal });
    const chunks = source.chunks[Symbol.asyncIterator]();
    stdin.write('id\n1\n');
    expect(String((await chunks.next()).value)).toBe('id\n1\n');
    // The pipe stays open: the next read waits, until the stop.
    const next = chunks.next();
    stop.abort(new Error('stopped'));
    expect(await next).toEqual({ done: true, value: undefined });
    expect(stdin.destroyed).toBe(true);
  });

  it('hands on the rows read before a stop that comes during its look-ahead', async () => {
    const stdin = new PassThrough();
    const stop = new AbortController();
    stdin.write('id,name\n1,a\n2,b\n');
    // Less than the look-ahead's mebibyte, and the pipe open: opening waits for more.
    const opening = openReader({ path: '-', format: 'csv', stdin, signal: stop.signal });
    // A turn of the event loop: the look-ahead has what was written.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stdin.readableLength).toBe(0);
    stop.abort(new Error('stopped'));
    const reader = await opening;
    expect(fieldsOf(await collect(reader))).toEqual([
      { id: '1', name: 'a' },
      { id: '2', name: 'b' },
    ]);
  });
});
