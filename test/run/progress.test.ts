import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { rates, startProgress } from '../../src/run/progress.js';
import { sleep } from '../engine/_fake.js';
import { memoryLogger } from '../fixtures/run-helpers.js';

const start = { rowsDone: 0, rowsRead: 0, rowsFailed: 0, requests: 0, bytesRead: 0, bytesTotal: 1000 };

describe('progress', () => {
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

  it('knows the total exactly once the whole input is read, though rows are still in flight', () => {
    // A small file: one chunk holds all 152 rows; 20 are written so far.
    const now = { ...start, rowsDone: 20, rowsRead: 152, bytesRead: 1000 };
    expect(rates(now, start, 1000)).toMatchObject({ estimatedTotalRows: 152 });
  });

  it('gives no total or time left when the input size is unknown', () => {
    const now = { ...start, rowsDone: 10, bytesRead: 100, bytesTotal: undefined };
    expect(rates(now, { ...start, bytesTotal: undefined }, 1000)).toMatchObject({
      estimatedTotalRows: undefined,
      etaSeconds: undefined,
    });
  });

  it('logs a progress line every interval when stderr is not a terminal', async () => {
    const { logger, lines } = memoryLogger();
    let rows = 0;
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    const snapshot = () => {
      rows += 10;
      return { ...start, rowsDone: rows, rowsRead: rows, bytesRead: rows };
    };
    const progress = startProgress(snapshot, logger, {
      intervalMs: 5,
      stream,
    });
    await sleep(40);
    progress.stop();
    const logged = lines().filter((l) => l.msg === 'progress');
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0]).toMatchObject({ estimatedTotalRows: expect.any(Number), failed: 0 });
  });

  it('draws a bar with rows, rates and failures on a terminal', async () => {
    const { logger } = memoryLogger();
    const chunks: string[] = [];
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 200,
      cursorTo() {},
      clearLine() {},
      moveCursor() {},
    });
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const progress = startProgress(
      () => ({ ...start, rowsDone: 500, rowsRead: 500, rowsFailed: 3, bytesRead: 500 }),
      logger,
      {
        stream: stream as unknown as NodeJS.WriteStream,
      },
    );
    progress.stop();
    expect(chunks.join('')).toMatch(/500\/1000 rows .* 3 failed/);
  });

  it('stays silent when switched off', async () => {
    const { logger, lines } = memoryLogger();
    startProgress(() => start, logger, { enabled: false, intervalMs: 1 }).stop();
    await sleep(5);
    expect(lines()).toHaveLength(0);
  });
});
