/**
 * `geobatch status` as it reads: the durations in the words the rest of the tool uses, and a run
 * whose coordinator is gone said to be so.
 */
import { describe, expect, it } from 'vitest';
import { statusText } from '../../src/cli/queue.js';
import type { RunStatus } from '../../src/queue/status.js';

const created = new Date('2026-11-23T02:00:04.113Z');

function status(given: {
  etaSeconds?: number | null;
  abandoned?: boolean;
  coordinator?: Partial<RunStatus['coordinator']>;
  state?: RunStatus['run']['state'];
}): RunStatus {
  return {
    run: {
      id: '3f6c0e1d9a2b4c57',
      job: 'geocode',
      kind: 'geocode',
      state: given.state ?? 'running',
      chunkRows: 2000,
      chunks: 50,
      rows: 100_000,
      coordinator: 'cron-host:4121',
      createdAt: created,
      sessionAt: created,
      seenAt: created,
      endedAt: null,
      error: null,
    },
    abandoned: given.abandoned ?? false,
    coordinator: { here: true, gone: false, seenSecondsAgo: 2, ...given.coordinator },
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
  it('names each worker with when it last took or ended a chunk', () => {
    const seen = new Date('2026-11-23T02:00:30Z');
    const text = statusText({
      ...status({}),
      workers: [
        { worker: 'w1:977', seenAt: seen, seenSecondsAgo: 1.2 },
        { worker: 'w2:1203', seenAt: seen, seenSecondsAgo: 95 },
      ],
    });
    expect(line(text, 'workers:')).toBe(
      '  workers: w1:977 (last seen 1s ago), w2:1203 (last seen 1m35s ago)',
    );
  });

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

  it('shows no pace and no ETA for a run no coordinator carries on', () => {
    const gone = statusText(status({ abandoned: true, coordinator: { gone: true } }));
    expect(line(gone, 'requests:')).toBe('  requests: 61840  rate: -  ETA: - (no coordinator carries it on)');
    expect(line(statusText(status({ state: 'stopped' })), 'requests:')).toBe(
      '  requests: 61840  rate: -  ETA: -',
    );
  });

  it('says at once that a coordinator whose process on this machine exited is gone', () => {
    const text = statusText(status({ abandoned: true, coordinator: { gone: true } }));
    expect(text.split('\n')[0]).toBe(
      'run 3f6c0e1d9a2b4c57  geocode (geocode)  running (coordinator gone: its process on this machine has exited; --resume takes over)',
    );
  });

  it("says when another machine's coordinator was last seen, and that it is gone once it is too long", () => {
    const live = statusText(status({ coordinator: { here: false, seenSecondsAgo: 3.4 } }));
    expect(live.split('\n')[0]).toBe('run 3f6c0e1d9a2b4c57  geocode (geocode)  running');
    expect(line(live, 'started')).toBe(
      '  started 2026-11-23T02:00:04.113Z; coordinator cron-host:4121, last seen 3s ago',
    );
    const gone = statusText(status({ abandoned: true, coordinator: { here: false, seenSecondsAgo: 95 } }));
    expect(gone.split('\n')[0]).toBe(
      'run 3f6c0e1d9a2b4c57  geocode (geocode)  running (coordinator gone: last seen 1m35s ago; --resume takes over)',
    );
  });

  it('names only the coordinator of a live run of this machine, and of an ended run', () => {
    expect(line(statusText(status({})), 'started')).toBe(
      '  started 2026-11-23T02:00:04.113Z; coordinator cron-host:4121',
    );
    expect(line(statusText(status({ state: 'done', coordinator: { here: false } })), 'started')).toBe(
      '  started 2026-11-23T02:00:04.113Z; coordinator cron-host:4121',
    );
  });
});
