/** `geobatch status` as it reads: the durations in the words the rest of the tool uses. */
import { describe, expect, it } from 'vitest';
import { statusText } from '../../src/cli/queue.js';
import type { RunStatus } from '../../src/queue/status.js';

const created = new Date('2026-11-23T02:00:04.113Z');

function status(given: { etaSeconds?: number | null }): RunStatus {
  return {
    run: {
      id: '3f6c0e1d9a2b4c57',
      job: 'geocode',
      kind: 'geocode',
      state: 'running',
      chunkRows: 2000,
      chunks: 50,
      rows: 100_000,
      coordinator: 'cron-host:4121',
      createdAt: created,
      seenAt: created,
      endedAt: null,
      error: null,
    },
    abandoned: false,
    chunks: { total: 50, stored: 50, done: 31, inFlight: 6, queued: 13, failed: 0 },
    rows: { total: 100_000, stored: 100_000, done: 62_000 },
    requests: 61_840,
    rowsPerSecond: 1480,
    etaSeconds: given.etaSeconds === undefined ? 25 : given.etaSeconds,
    workers: [],
  };
}

const line = (text: string, start: string) => text.split('\n').find((l) => l.trimStart().startsWith(start));

describe('status', () => {
  it.each([
    [59.6, '1m00s'],
    [3599.6, '1h00m'],
    [25, '25s'],
    [null, '-'],
  ])('shows an ETA of %s s as %s, as the progress line does', (eta, shown) => {
    expect(line(statusText(status({ etaSeconds: eta })), 'requests:')).toBe(
      `  requests: 61840  rate: 1480.0 rows/s  ETA: ${shown}`,
    );
  });
});
