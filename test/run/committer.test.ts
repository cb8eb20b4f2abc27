/**
 * When the committer makes progress durable: every interval, and sooner once enough requests were
 * made that a run killed now would pay for them again. Only Date is faked: the journal is real.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCounters } from '../../src/engine/counters.js';
import { fingerprintInput, journalPath, readJournal } from '../../src/run/checkpoint.js';
import {
  COMMIT_AFTER_REQUESTS,
  COMMIT_MIN_GAP_MS,
  COMMIT_SPACING,
  createCommitter,
} from '../../src/run/committer.js';
import { tempDir } from '../fixtures/run-helpers.js';

beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 }));
afterEach(() => vi.useRealTimers());

/** A committer over one output whose fsync takes `syncMs` of (fake) time. */
function committer(intervalMs: number, syncMs = 0, duringSync: () => void = () => {}) {
  const session = createCounters();
  const path = journalPath(join(tempDir(), 'out.csv'));
  const output = {
    target: 'out.csv',
    path: 'out.csv.partial',
    state: () => ({}),
    mark: () => ({ bytes: 0, state: {} }),
    sync: async () => {
      vi.setSystemTime(Date.now() + syncMs);
      duringSync();
      return 0;
    },
  };
  const c = createCommitter({
    path,
    job: 'geocode:test',
    input: fingerprintInput('in.csv', 1, 1),
    outputs: [output],
    report: null,
    stats: () => ({ outputs: [], reportRows: 0 }),
    earlier: createCounters(),
    session,
    httpRequests: { earlier: 0, session: () => session.requestsSent },
    startedAt: new Date().toISOString(),
    earlierElapsedMs: 0,
    intervalMs,
  });
  return { c, session, path };
}

describe('committer', () => {
  it('records the counts as they stood when the commit began: a row emitted during its fsync is not one it commits', async () => {
    // A commit made while the run waits for its next row (TimedCommits) lets the engine emit that
    // row while the files sync; the pump writes it only after the commit.
    let syncing = false;
    const { c, session, path } = committer(2000, 0, () => {
      if (syncing) emit();
    });
    const emit = () => {
      session.rowsRead++;
      session.rowsEmitted++;
      session.rowsOk++;
    };
    for (let i = 0; i < 394; i++) emit();
    session.rowsOk--;
    session.rowsFailed++;
    session.failuresByCode.NOT_FOUND = 1;
    syncing = true;
    await c.commit(394);
    expect(session.rowsEmitted).toBe(395);
    expect((await readJournal(path))?.counters).toMatchObject({
      rowsRead: 394,
      rowsEmitted: 394,
      rowsOk: 393,
      rowsFailed: 1,
      failuresByCode: { NOT_FOUND: 1 },
    });
  });

  it('is due once the interval has passed', () => {
    const { c } = committer(2000);
    expect(c.due()).toBe(false);
    vi.setSystemTime(Date.now() + 2000);
    expect(c.due()).toBe(true);
  });

  it('is due after COMMIT_AFTER_REQUESTS requests, long before the interval but not within COMMIT_MIN_GAP_MS, and counts anew after each commit', async () => {
    const { c, session, path } = committer(3_600_000);
    session.requestsSent = COMMIT_AFTER_REQUESTS;
    vi.setSystemTime(Date.now() + COMMIT_MIN_GAP_MS - 1);
    expect(c.due()).toBe(false);
    vi.setSystemTime(Date.now() + 1);
    session.requestsSent = COMMIT_AFTER_REQUESTS - 1;
    expect(c.due()).toBe(false);
    session.requestsSent = COMMIT_AFTER_REQUESTS;
    expect(c.due()).toBe(true);
    await c.commit(180);
    expect(await readJournal(path)).toMatchObject({
      committedRows: 180,
      httpRequests: COMMIT_AFTER_REQUESTS,
    });
    vi.setSystemTime(Date.now() + COMMIT_MIN_GAP_MS);
    session.requestsSent = 2 * COMMIT_AFTER_REQUESTS - 1;
    expect(c.due()).toBe(false);
    session.requestsSent = 2 * COMMIT_AFTER_REQUESTS;
    expect(c.due()).toBe(true);
  });

  it('spaces commits the requests make due by COMMIT_SPACING times what commits take, so they stay a small share', async () => {
    // A 100 ms commit (a slow disk): the average of commits becomes 25 ms, the spacing 25 ms x COMMIT_SPACING.
    const { c, session } = committer(3_600_000, 100);
    session.requestsSent = COMMIT_AFTER_REQUESTS;
    await c.commit(100);
    session.requestsSent = 3 * COMMIT_AFTER_REQUESTS;
    vi.setSystemTime(Date.now() + 25 * COMMIT_SPACING - 1);
    expect(c.due()).toBe(false);
    vi.setSystemTime(Date.now() + 1);
    expect(c.due()).toBe(true);
  });
});
