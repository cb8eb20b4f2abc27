import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { colourWanted, createLogger, prettyLine } from '../src/log.js';
import { clearSecrets, registerSecret } from '../src/secrets.js';

afterEach(() => clearSecrets());

function memory() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('writes JSON lines with a level label at the chosen level', () => {
    const { lines, stream } = memory();
    const logger = createLogger({ level: 'debug', destination: stream });
    logger.debug({ rows: 3 }, 'hello');
    logger.trace('not shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'debug',
      msg: 'hello',
      rows: 3,
      name: 'geobatch',
    });
  });

  it('blanks credential fields by name, registered or not', () => {
    const { lines, stream } = memory();
    const logger = createLogger({ destination: stream });
    logger.info(
      {
        apiKey: 'never-registered-1',
        request: { headers: { authorization: 'Bearer never-registered-2' } },
        credentials: { partnerKey: 'never-registered-3' },
        options: { securityID: 'never-registered-4', token: 'never-registered-5' },
        legacy: { systemPartner: 'never-registered-6' },
      },
      'sending',
    );
    const text = lines.join('');
    for (const n of [1, 2, 3, 4, 5, 6]) expect(text).not.toContain(`never-registered-${n}`);
    expect(text).toContain('[redacted]');
  });

  it('scrubs a registered secret from anywhere in a line: messages, URLs, nested fields, errors', () => {
    const key = 'registered-api-key-42';
    registerSecret(key);
    const { lines, stream } = memory();
    const logger = createLogger({ level: 'trace', destination: stream });
    logger.info(`GET https://x.test/p?apiKey=${key}`);
    logger.warn({ deep: { deeper: { deepest: `k=${key}` } } }, 'nested');
    logger.error({ err: new Error(`failed with ${encodeURIComponent(key)}`) }, 'boom');
    const text = lines.join('');
    expect(text).not.toContain(key);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('writes to a file path when given one', async () => {
    const { mkdtemp, readFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'geobatch-log-'));
    const file = join(dir, 'sub', 'run.log');
    const logger = createLogger({ destination: file });
    logger.info('to a file');
    logger.flush();
    expect(JSON.parse((await readFile(file, 'utf8')).trim())).toMatchObject({ msg: 'to a file' });
  });
});

describe('pretty lines', () => {
  it('shows time, level, message and the other fields as key=value', () => {
    const time = new Date(2024, 4, 6, 8, 5, 9).getTime();
    const line = JSON.stringify({
      level: 'warn',
      time,
      pid: 1,
      hostname: 'h',
      name: 'geobatch',
      msg: 'slow answer',
      ms: 900,
      url: 'https://x.test/a b',
    });
    expect(prettyLine(line)).toBe('08:05:09 WARN  slow answer ms=900 url="https://x.test/a b"\n');
    // A progress record, where no bar is drawn (TERM=dumb, a pretty log file), says how far.
    const progress = JSON.parse(line) as Record<string, unknown>;
    const record = {
      level: 'info',
      time: progress.time,
      event: 'progress',
      rowsDone: 70,
      rowsTotal: 150,
      percent: 46,
      rowsPerSecond: 35,
      rowsFailed: 1,
      etaSeconds: 2,
      msg: 'progress',
    };
    expect(prettyLine(JSON.stringify(record))).toBe(
      '08:05:09 INFO  progress 46% · 70/150 rows · 35 rows/s · 1 failed · ETA 2s\n',
    );
    // The time left as the bar words it, not as raw seconds (`ETA 3870s`).
    expect(prettyLine(JSON.stringify({ ...record, rowsDone: 7, percent: 4, etaSeconds: 3870 }))).toBe(
      '08:05:09 INFO  progress 4% · 7/150 rows · 35 rows/s · 1 failed · ETA 1h04m\n',
    );
    expect(prettyLine(JSON.stringify({ ...record, etaSeconds: 77 }))).toMatch(/ · ETA 1m17s\n$/);
    const early = { ...record, rowsTotal: null, percent: null, etaSeconds: null };
    expect(prettyLine(JSON.stringify(early))).toBe(
      '08:05:09 INFO  progress 70 rows · 35 rows/s · 1 failed\n',
    );
  });

  it("shows an error's code and message, not its stack", () => {
    const err = {
      type: 'IoError',
      code: 'IO_ERROR',
      message: 'disk full',
      stack: 'IoError: disk full\n    at x',
    };
    const shown = prettyLine(JSON.stringify({ level: 'error', time: 0, msg: 'failed', err }));
    expect(shown).toContain('err="IO_ERROR: disk full"');
    expect(shown).not.toContain('at x');
  });

  it('shows a record with an event by its message alone', () => {
    const line = JSON.stringify({
      level: 'info',
      time: 0,
      msg: 'job started: a -> b',
      event: 'run.start',
      input: { path: 'a' },
    });
    expect(prettyLine(line)).toMatch(/ INFO {2}job started: a -> b\n$/);
  });

  it('colours the level only when asked', () => {
    const line = JSON.stringify({ level: 'error', time: 0, msg: 'x' });
    expect(prettyLine(line, true)).toContain('\x1b[31mERROR\x1b[0m');
    expect(prettyLine(line, false)).not.toContain('\x1b[');
  });

  it('passes through what is not a JSON object', () => {
    expect(prettyLine('plain text\n')).toBe('plain text\n');
  });

  it('writes pretty lines with secrets still scrubbed, and leaves out the events it is told to', () => {
    const key = 'registered-api-key-77';
    registerSecret(key);
    const { lines, stream } = memory();
    const logger = createLogger({ destination: stream, pretty: { omitEvents: ['run.end'] } });
    logger.info(`GET https://x.test/?apiKey=${key}`);
    logger.info({ event: 'run.end' }, 'the end');
    logger.info({ event: 'run.start' }, 'the start');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}GET https:\/\/x.test\/\?apiKey=\[redacted\]\n$/);
    expect(lines[1]).toMatch(/INFO {2}the start\n$/);
  });
});

describe('colourWanted', () => {
  it('colours a terminal, and nothing else, by default', () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
  });

  it('honours NO_COLOR over everything, unless it is empty', () => {
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, true)).toBe(true);
  });

  it('honours FORCE_COLOR off a terminal, and FORCE_COLOR=0 on one', () => {
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: 'false' }, true)).toBe(false);
  });

  it('gives a dumb terminal no colour', () => {
    expect(colourWanted({ TERM: 'dumb' }, true)).toBe(false);
  });
});
