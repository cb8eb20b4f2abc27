import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { prettyLine } from '../../src/log.js';
import { Pace } from '../../src/run/_progress-estimate.js';
import { barText, progressRecord, rates, startProgress } from '../../src/run/progress.js';
import { createStatusLine } from '../../src/run/status-line.js';
import { memoryLogger } from '../fixtures/run-helpers.js';
import { fakeTty } from './_tty.js';

const start = { rowsDone: 0, rowsRead: 0, rowsFailed: 0, requests: 0, bytesRead: 0, bytesTotal: 1000 };

/** A stream that is not a terminal: a pipe, a file, cron. */
const pipe = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;

/** A file or pipe of the caller's own, keeping the JSON lines written to it. */
function collected(): { stream: NodeJS.WritableStream; records: () => Record<string, unknown>[] } {
  let text = '';
  const stream = {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const records = () =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, records };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('progress estimates', () => {
  it('estimates the row total from the share of bytes read, and the time left from the row rate', () => {
    const now = {
      rowsDone: 250,
      rowsRead: 300,
      rowsFailed: 2,
      requests: 50,
      bytesRead: 300,
      bytesTotal: 1000,
    };
    expect(rates(now, start, 10_000)).toEqual({
      rowsPerSecond: 25,
      requestsPerSecond: 5,
      estimatedTotalRows: 1000,
      etaSeconds: 30,
    });
  });

  it('scales the rows the reader handed on by the bytes they span, not by the bytes read ahead', () => {
    // An 18 KB file of 405 rows, read whole at once: 192 rows handed on, 142 taken in, 110 written.
    const now = {
      ...start,
      rowsDone: 110,
      rowsRead: 142,
      bytesRead: 18_143,
      bytesTotal: 18_143,
      position: { records: 192, bytes: 8_600, ended: false },
    };
    expect(rates(now, start, 1000).estimatedTotalRows).toBe(405);
    expect(progressRecord(now, start, 1000)).toMatchObject({ rowsTotal: 405, percent: 27 });
  });

  it('knows the total exactly once the reader has handed on its last row, though rows are in flight', () => {
    const now = {
      ...start,
      rowsDone: 20,
      rowsRead: 120,
      bytesRead: 1000,
      position: { records: 152, bytes: 1000, ended: true },
    };
    expect(rates(now, start, 1000)).toMatchObject({ estimatedTotalRows: 152 });
  });

  it('never estimates fewer rows than were read or handed on', () => {
    const now = {
      ...start,
      rowsDone: 90,
      rowsRead: 100,
      position: { records: 128, bytes: 1000, ended: false },
    };
    expect(rates(now, start, 1000).estimatedTotalRows).toBe(128);
  });

  it('without a reader position, goes by the share of bytes read only while bytes are left', () => {
    const partly = { ...start, rowsDone: 50, rowsRead: 100, bytesRead: 250 };
    expect(rates(partly, start, 1000).estimatedTotalRows).toBe(400);
    // Every byte read says nothing of the rows not yet handed on: no total rather than a wrong one.
    const whole = { ...partly, bytesRead: 1000 };
    expect(rates(whole, start, 1000).estimatedTotalRows).toBeUndefined();
  });

  it('reckons the time left at the pace it is given rather than the session rate', () => {
    const now = {
      ...start,
      rowsDone: 500,
      rowsRead: 500,
      position: { records: 500, bytes: 500, ended: false },
    };
    // 500 rows in 10 s is 50 rows/s over the session; lately 10 rows/s: 500 rows left take 50 s.
    expect(rates(now, start, 10_000, 10)).toMatchObject({ rowsPerSecond: 50, etaSeconds: 50 });
  });

  it('gives no total or time left when the input size is unknown', () => {
    const now = { ...start, rowsDone: 10, bytesRead: 100, bytesTotal: undefined };
    expect(rates(now, { ...start, bytesTotal: undefined }, 1000)).toMatchObject({
      estimatedTotalRows: undefined,
      etaSeconds: undefined,
    });
  });

  it('caps the total at --limit or --sample, and knows it once that many rows are read', () => {
    const early = { ...start, rowsDone: 5, rowsRead: 10, bytesRead: 10, rowsCap: 50 };
    expect(rates(early, start, 1000).estimatedTotalRows).toBe(50);
    const unsized = { ...early, bytesTotal: undefined, rowsRead: 50 };
    expect(rates(unsized, start, 1000).estimatedTotalRows).toBe(50);
  });
});

describe('pace', () => {
  it('is the rows per second since the latest mark a window old, or since the first', () => {
    const pace = new Pace(10_000);
    expect(pace.note(0, 0)).toBeUndefined();
    expect(pace.note(5_000, 500)).toBe(100);
    expect(pace.note(10_000, 1_000)).toBe(100);
    // Slower from 10 s on: the pace looks back a whole window, so it follows a step later.
    expect(pace.note(15_000, 1_050)).toBe(55);
    expect(pace.note(20_000, 1_100)).toBe(10);
  });
});

describe('progress off a terminal', () => {
  it('logs a progress record every interval, with every documented key, when stderr is no terminal', () => {
    const { logger, lines } = memoryLogger();
    // Standard error, the default stream, is a pipe in a test worker, as in cron: the records go
    // through the log.
    let rows = 0;
    const snapshot = () => ({
      ...start,
      rowsDone: rows,
      rowsRead: rows,
      bytesRead: rows,
      requests: rows / 10,
    });
    const progress = startProgress(snapshot, logger, { intervalMs: 5000 });
    rows = 100;
    vi.advanceTimersByTime(4999);
    expect(lines()).toHaveLength(0);
    vi.advanceTimersByTime(1);
    rows = 250;
    vi.advanceTimersByTime(5000);
    progress.stop();
    vi.advanceTimersByTime(20_000);
    const records = lines();
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      level: 30,
      msg: 'progress',
      event: 'progress',
      rowsDone: 100,
      rowsRead: 100,
      rowsFailed: 0,
      rowsTotal: 1000,
      percent: 10,
      requests: 10,
      rowsPerSecond: 20,
      requestsPerSecond: 2,
      elapsedSeconds: 5,
      etaSeconds: 45,
    });
    expect(records[1]).toMatchObject({ rowsDone: 250, percent: 25, elapsedSeconds: 10 });
  });

  it('writes the records, one JSON line each, to a stream of the caller’s own, whatever the log shows', () => {
    // The library's default logger shows warnings only: progress asked for with a file must reach it.
    const { logger, lines } = memoryLogger();
    const file = collected();
    let rows = 0;
    const snapshot = () => ({ ...start, rowsDone: rows, rowsRead: rows, bytesRead: rows });
    const progress = startProgress(snapshot, logger, { intervalMs: 1000, stream: file.stream });
    rows = 100;
    vi.advanceTimersByTime(2000);
    rows = 250;
    progress.stop();
    expect(lines()).toHaveLength(0);
    // Two intervals, and where the run ended: a watcher does not see it stuck at its last interval.
    expect(file.records()).toHaveLength(3);
    expect(file.records()[2]).toMatchObject({ rowsDone: 250 });
    expect(file.records()[0]).toEqual({
      ...progressRecord({ ...start, rowsDone: 100, rowsRead: 100, bytesRead: 100 }, start, 1000),
      rowsPerSecond: 100,
    });
  });

  it('gives the time left at the recent pace when the run slows down', () => {
    const { logger, lines } = memoryLogger();
    let rows = 0;
    const snapshot = () => ({
      ...start,
      bytesTotal: 100_000,
      rowsDone: rows,
      rowsRead: rows,
      position: { records: rows, bytes: rows * 10, ended: false },
    });
    const progress = startProgress(snapshot, logger, { intervalMs: 5000 });
    // 100 rows/s for 60 s (a warm cache), then 10 rows/s.
    for (let second = 1; second <= 90; second++) {
      rows += second <= 60 ? 100 : 10;
      vi.advanceTimersByTime(1000);
    }
    progress.stop();
    const last = lines().at(-1);
    // 6300 of 10,000 rows done in 90 s is 70 rows/s over the session; the last 20 s went at 10.
    expect(last).toMatchObject({ rowsDone: 6300, rowsTotal: 10_000, percent: 63, rowsPerSecond: 70 });
    expect(last?.etaSeconds).toBe(370);
  });

  it("words the time left as the terminal's bar does, in the line a dumb terminal or a pretty log shows", () => {
    const now = { ...start, rowsDone: 10, rowsRead: 10, bytesRead: 10 };
    const eta = (text: string) => /ETA (\S+)/.exec(text)?.[1];
    const shown = [5, 59.6, 77, 3599, 3870, 86_399].map((seconds) => {
      // 990 rows left at the pace that takes `seconds` for them.
      const pace = 990 / seconds;
      const line = prettyLine(
        JSON.stringify({
          level: 'info',
          time: 0,
          ...progressRecord(now, start, 1000, pace),
          msg: 'progress',
        }),
      );
      expect(eta(line)).toBe(eta(barText(now, start, 1000, pace)));
      return eta(line);
    });
    expect(shown).toEqual(['5s', '1m00s', '1m17s', '59m59s', '1h04m', '23h59m']);
  });

  it('writes null, not nothing, where there is no estimate yet', () => {
    const record = progressRecord({ ...start, bytesTotal: undefined }, start, 0);
    expect(record).toMatchObject({ rowsTotal: null, percent: null, etaSeconds: null });
    expect(Object.keys(record)).toHaveLength(11);
  });

  it('leaves its records to the log level off a terminal: a cron job at --log-level warn logs none', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const progress = startProgress(() => ({ ...start, rowsDone: 5, rowsRead: 5, bytesRead: 5 }), logger, {
      intervalMs: 1000,
    });
    vi.advanceTimersByTime(3000);
    progress.stop();
    logger.warn('slow');
    expect(lines).toHaveLength(1);
  });

  it('stays silent when switched off', () => {
    const { logger, lines } = memoryLogger();
    startProgress(() => start, logger, { enabled: false, intervalMs: 1, stream: pipe }).stop();
    vi.advanceTimersByTime(100);
    expect(lines()).toHaveLength(0);
  });
});

describe('progress on a terminal', () => {
  it('draws a bar with rows, rates and failures, and redraws it as rows come', () => {
    const { logger, lines } = memoryLogger();
    const tty = fakeTty(200);
    let done = 500;
    const progress = startProgress(
      () => ({ ...start, rowsDone: done, rowsRead: done, rowsFailed: 3, bytesRead: done }),
      logger,
      { stream: tty.stream },
    );
    expect(tty.screen().at(-1)).toMatch(/50% · 500\/1000 rows .* 3 failed · ETA/);
    done = 750;
    vi.advanceTimersByTime(250);
    expect(tty.screen().at(-1)).toMatch(/75% · 750\/1000 rows/);
    progress.stop();
    // No progress records on a terminal: the bar is the progress.
    expect(lines()).toHaveLength(0);
  });

  it('draws on the shared status line, under the log lines printed through it', () => {
    const { logger } = memoryLogger();
    const tty = fakeTty(120);
    const line = createStatusLine(tty.stream);
    const progress = startProgress(() => ({ ...start, rowsDone: 10, rowsRead: 10, bytesRead: 10 }), logger, {
      stream: tty.stream,
      statusLine: line,
    });
    line.print('12:00:01 WARN  something to know');
    expect(tty.screen()).toEqual([
      '12:00:01 WARN  something to know',
      expect.stringMatching(/10\/1000 rows/),
    ]);
    progress.stop();
    // Stopped, the bar is gone and the terminal ready for the summary.
    expect(tty.screen()).toEqual(['12:00:01 WARN  something to know', '']);
    line.dispose();
  });

  it('drops the gauge first on a narrow terminal, keeping the failures and the ETA', () => {
    const { logger } = memoryLogger();
    const tty = fakeTty(72);
    const progress = startProgress(
      () => ({ ...start, rowsDone: 500, rowsRead: 500, rowsFailed: 3, bytesRead: 500 }),
      logger,
      { stream: tty.stream },
    );
    const shown = tty.screen().at(-1) ?? '';
    expect(shown).toMatch(/^50% · 500\/1000 rows .* 3 failed · ETA \S+$/);
    expect(shown).not.toContain('█');
    progress.stop();
  });

  it('takes a terminal of 0 columns for one of 80, not a bar cut to 10 characters', () => {
    const { logger } = memoryLogger();
    const tty = fakeTty(0);
    const progress = startProgress(
      () => ({ ...start, rowsDone: 500, rowsRead: 500, rowsFailed: 3, bytesRead: 500 }),
      logger,
      { stream: tty.stream },
    );
    expect(tty.screen().at(-1)).toMatch(/50% · 500\/1000 rows .* 3 failed/);
    progress.stop();
  });

  it('draws no bar on a dumb terminal (TERM=dumb): progress records instead', () => {
    const { logger, lines } = memoryLogger();
    const tty = fakeTty(80);
    vi.stubEnv('TERM', 'dumb');
    try {
      const progress = startProgress(() => ({ ...start, rowsDone: 5, rowsRead: 5, bytesRead: 5 }), logger, {
        stream: tty.stream,
        intervalMs: 1000,
      });
      vi.advanceTimersByTime(1000);
      progress.stop();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(tty.text()).not.toContain('\x1b[');
    // The caller's stream gets the records, a JSON line each, as any stream not a terminal does.
    expect(tty.text()).toMatch(/^\{.*"percent":0.*\}\n/);
    expect(lines()).toHaveLength(0);
  });

  it('shows a person at a dumb terminal a line every interval, whatever the log level and wherever the log goes', () => {
    // The CLI's case: standard error is the terminal, the log quiet (--log-level warn) or in a file.
    const logger = pino({ level: 'warn' }, { write: () => {} });
    const { logger: fileLog, lines } = memoryLogger();
    const tty = fakeTty(80);
    vi.spyOn(process, 'stderr', 'get').mockReturnValue(tty.stream as typeof process.stderr);
    vi.stubEnv('TERM', 'dumb');
    try {
      for (const log of [logger, fileLog]) {
        const progress = startProgress(
          () => ({ ...start, rowsDone: 500, rowsRead: 500, bytesRead: 500, requests: 500 }),
          log,
          { intervalMs: 1000 },
        );
        vi.advanceTimersByTime(2000);
        progress.stop();
      }
    } finally {
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
    }
    // As the bar would be: on the terminal, pretty, without cursor controls; none in the log file.
    expect(tty.text()).not.toContain('\x1b[');
    expect(tty.screen().filter((line) => line !== '')).toEqual(
      Array(4).fill(
        expect.stringMatching(
          /^\d\d:\d\d:\d\d INFO {2}progress 50% · 500\/1000 rows · \d+ rows\/s · 0 failed$/,
        ),
      ),
    );
    expect(lines()).toHaveLength(0);
  });

  it('erases its own bar and shows the cursor when it stops', () => {
    const { logger } = memoryLogger();
    const tty = fakeTty();
    startProgress(() => ({ ...start, rowsDone: 1, rowsRead: 1, bytesRead: 1 }), logger, {
      stream: tty.stream,
    }).stop();
    expect(tty.text().endsWith('\x1b[?25h')).toBe(true);
    expect(tty.screen()).toEqual(['']);
  });

  it('shows how far the input is read while no row has come yet (a sample reads it all first)', () => {
    expect(barText({ ...start, bytesRead: 450_000, bytesTotal: 1_000_000 }, start, 1000)).toBe(
      'reading input 45% of 1.0 MB',
    );
  });

  it('shows counts without a gauge when the total is unknown', () => {
    const text = barText(
      { ...start, rowsDone: 7, rowsRead: 7, bytesRead: 7, bytesTotal: undefined },
      start,
      1000,
    );
    expect(text).toBe('7 rows · 7 rows/s · 0 req/s · 0 failed');
  });
});
