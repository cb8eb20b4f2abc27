/**
 * The bytes of an input stop at the run's signal, standard input's as a file's: a stop must not
 * wait for a line that a pipe held open may never send, and a pipe still read would keep the
 * process alive once the run had ended.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
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

/** `promise`, or a failure naming `what` when it takes longer than `ms` (generous: no timing is measured). */
async function within<T>(promise: Promise<T>, what: string, ms = 3000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets `ms` pass. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('standard input from a producer that pauses', () => {
  it('hands on the first rows while the pipe is open and quiet, then every later row once, in order', async () => {
    const stdin = new PassThrough();
    stdin.write('id,name\n1,a\n2,b\n3,c\n');
    // A mebibyte short, and the pipe held open: the rows that came leave once the producer is quiet.
    const reader = await within(openReader({ path: '-', format: 'csv', stdin }), 'opening');
    const items = reader[Symbol.asyncIterator]();
    const first: unknown[] = [];
    for (let i = 0; i < 3; i++) first.push(fieldsOf([(await within(items.next(), `row ${i + 1}`)).value])[0]);
    expect(first).toEqual([
      { id: '1', name: 'a' },
      { id: '2', name: 'b' },
      { id: '3', name: 'c' },
    ]);
    // The read the look-ahead left waiting gets the next chunk, and reading goes on after it.
    const fourth = items.next();
    stdin.write('4,d\n');
    expect(fieldsOf([(await within(fourth, 'row 4')).value])).toEqual([{ id: '4', name: 'd' }]);
    stdin.end('5,e\n6,f\n');
    const rest: unknown[] = [];
    for (let next = await items.next(); next.done !== true; next = await items.next())
      rest.push(fieldsOf([next.value])[0]);
    expect(rest).toEqual([
      { id: '5', name: 'e' },
      { id: '6', name: 'f' },
    ]);
    expect(reader.lineCounts()).toEqual({ lines: 7, blank: 0, header: 1 });
  });

  it('ends at the end of a pipe that closes after a quiet spell, with no row lost or repeated', async () => {
    const stdin = new PassThrough();
    stdin.write('{"id":1}\n{"id":2}\n');
    const reader = await within(openReader({ path: '-', format: 'ndjson', stdin }), 'opening');
    const items = reader[Symbol.asyncIterator]();
    expect(fieldsOf([(await within(items.next(), 'line 1')).value])).toEqual([{ id: 1 }]);
    expect(fieldsOf([(await within(items.next(), 'line 2')).value])).toEqual([{ id: 2 }]);
    // The read the look-ahead left waiting is the one that sees the end.
    const last = items.next();
    await pause(50);
    stdin.end();
    expect(await within(last, 'the end')).toEqual({ done: true, value: undefined });
    expect(reader.lineCounts().lines).toBe(2);
  });

  it('waits for the header after a sep= line, and for a header line cut in two, before the delimiter is picked', async () => {
    const stdin = new PassThrough();
    stdin.write('sep=;\n');
    let opened = false;
    const opening = openReader({ path: '-', format: 'csv', stdin }).then((reader) => {
      opened = true;
      return reader;
    });
    // Longer than the quiet spell: the header is not in, so the look-ahead still waits.
    await pause(400);
    stdin.write('id;na');
    await pause(400);
    expect(opened).toBe(false);
    stdin.write('me,x\n1;a,b\n');
    const reader = await within(opening, 'opening');
    const first = await within(reader[Symbol.asyncIterator]().next(), 'row 1');
    expect(fieldsOf([first.value])).toEqual([{ id: '1', 'name,x': 'a,b' }]);
    stdin.end();
  });

  it('reads a GeoJSON pipe up to its features before it stops waiting, so that a crs after a pause is seen', async () => {
    const stdin = new PassThrough();
    stdin.write('{"type":"FeatureCollection",\n');
    let settled = false;
    const opening = openReader({ path: '-', format: 'geojson', stdin }).then(
      (reader) => reader,
      (error: unknown) => error,
    );
    void opening.then(() => {
      settled = true;
    });
    // Longer than the quiet spell: the features key is not in, so the look-ahead still waits.
    await pause(400);
    expect(settled).toBe(false);
    stdin.write('"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::25832"}},\n"features":[\n');
    const error = await within(opening, 'opening');
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context.received).toBe('urn:ogc:def:crs:EPSG::25832');
    stdin.end();
  });

  it('drops a byte order mark and still warns of UTF-8 read as windows-1252 when the accents come after a short head', async () => {
    const stdin = new PassThrough();
    const warnings: string[] = [];
    stdin.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,city\n1,Berlin\n')]));
    const bom = await within(openReader({ path: '-', format: 'csv', stdin }), 'opening');
    const rows = bom[Symbol.asyncIterator]();
    expect(fieldsOf([(await within(rows.next(), 'row 1')).value])).toEqual([{ id: '1', city: 'Berlin' }]);
    stdin.end();

    const latin = new PassThrough();
    latin.write('id,city\n1,Berlin\n');
    const reader = await within(
      openReader({
        path: '-',
        format: 'csv',
        encoding: 'windows-1252',
        stdin: latin,
        onWarning: (m) => warnings.push(m),
      }),
      'opening',
    );
    const items = reader[Symbol.asyncIterator]();
    await within(items.next(), 'row 1');
    expect(warnings).toEqual([]);
    latin.end(Buffer.from('2,München\n', 'utf8'));
    expect(fieldsOf(await collect({ [Symbol.asyncIterator]: () => items } as never))).toEqual([
      { id: '2', city: 'MÃ¼nchen' },
    ]);
    expect(warnings).toEqual([
      'The input is declared windows-1252 but reads as valid UTF-8 with accented letters: if they come out as "Ã¤", set `input.encoding: utf-8`',
    ]);
  });
});

describe('an input file that cannot be opened', () => {
  const refusal = async (path: string) => {
    const error = await openSource(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isGeobatchError(error)) throw new Error(`expected a GeobatchError, got ${String(error)}`);
    return error;
  };
  const where =
    "a relative path on the command line is read from the working directory, and a job file's `input:` from the job file's directory (from the working directory for a job file from a pipe)";

  it('says in words that a missing file does not exist, and where its path is set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-source-'));
    try {
      const path = join(dir, 'nope.csv');
      const error = await refusal(path);
      expect(error.code).toBe('USAGE');
      expect(error.message).toBe(`The input ${path} does not exist`);
      expect(error.context).toMatchObject({
        file: path,
        expected: 'an existing file',
        received: 'no such file',
        hint: `Check the path (${where}).`,
      });

      writeFileSync(join(dir, 'a.csv'), 'x\n1\n');
      const under = join(dir, 'a.csv', 'b.csv');
      const blocked = await refusal(under);
      expect(blocked.message).toBe(`The input ${under} does not exist: ${join(dir, 'a.csv')} is a file`);
      expect(blocked.context).toMatchObject({ file: under, received: 'no such file' });
      // The file itself with a / after it: a library caller's path, which no CLI check refused.
      const slashed = `${join(dir, 'a.csv')}/`;
      const itself = await refusal(slashed);
      expect(itself.message).toBe(`The input ${slashed} does not exist: ${join(dir, 'a.csv')} is a file`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a pipe or a device as such, and asks for standard input instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-source-'));
    try {
      const fifo = join(dir, 'in.csv');
      execFileSync('mkfifo', [fifo]);
      for (const [path, kind] of [
        [fifo, 'a pipe'],
        ['/dev/null', 'a device'],
      ] as const) {
        const error = await refusal(path);
        expect(error.code).toBe('USAGE');
        expect(error.message).toBe(`The input ${path} is ${kind}, not a file`);
        expect(error.context).toMatchObject({ file: path, received: kind });
        expect(error.context.hint).toContain('-i -');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a directory as a directory, and asks for a file in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-source-'));
    try {
      const error = await refusal(dir);
      expect(error.code).toBe('USAGE');
      expect(error.message).toBe(`The input ${dir} is a directory, not a file`);
      expect(error.context).toMatchObject({
        file: dir,
        expected: 'a file',
        received: 'a directory',
        hint: 'Name a file in it.',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a file that changes while it is read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'geobatch-source-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const lines = (count: number) => `id\n${Array.from({ length: count }, (_, i) => `${i}`).join('\n')}\n`;

  async function readAll(path: string, midway: () => void): Promise<unknown> {
    const source = await openSource(path, { highWaterMark: 1024 });
    let chunks = 0;
    try {
      for await (const _ of source.chunks) if (++chunks === 2) midway();
      return undefined;
    } catch (error) {
      return error;
    }
  }

  it('stops with IO_ERROR when the file is cut short under the run, naming the sizes', async () => {
    const path = join(dir, 'cut.csv');
    writeFileSync(path, lines(5000));
    const error = await readAll(path, () => execFileSync('truncate', ['-s', '3000', path]));
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
    expect(isGeobatchError(error) && error.message).toMatch(
      /^The input .*cut\.csv changed while it was read: it had \d+ bytes when the run began, 3000 now, and \d+ were read/,
    );
  });

  it('names the times when the file was rewritten to its own size (a touch)', async () => {
    const path = join(dir, 'touched.csv');
    writeFileSync(path, lines(5000));
    const later = new Date(Date.now() + 60_000);
    const error = await readAll(path, () => utimesSync(path, later, later));
    expect(isGeobatchError(error) && error.context.field).toBe('input');
    expect(isGeobatchError(error) && error.message).toMatch(
      new RegExp(
        `changed while it was read: it was modified at ${later.toISOString().slice(0, 16)}.*, after the run began on the version of `,
      ),
    );
  });

  it('stops when the file grows under the run', async () => {
    const path = join(dir, 'grown.csv');
    writeFileSync(path, lines(5000));
    const error = await readAll(path, () => writeFileSync(path, '9999\n', { flag: 'a' }));
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
  });

  it('ends quietly when the run was stopped while the file was being opened', async () => {
    const path = join(dir, 'stopped.csv');
    writeFileSync(path, lines(10));
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    const source = await openSource(path, { signal: stop.signal });
    // Let the stream's abort error fire before anything reads: unheard, it ended the process.
    await new Promise((resolve) => setImmediate(resolve));
    const chunks: Buffer[] = [];
    for await (const chunk of source.chunks) chunks.push(chunk);
    expect(chunks).toEqual([]);
  });

  it('reads a file renamed away or deleted under the run whole, as it was', async () => {
    const path = join(dir, 'gone.csv');
    writeFileSync(path, lines(5000));
    expect(await readAll(path, () => rmSync(path))).toBeUndefined();
  });
});
