import { describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { createCounters } from '../../src/engine/counters.js';
import {
  buildSummary,
  type CacheSummary,
  type RunSummary,
  type SummaryFacts,
} from '../../src/output/summary.js';

function summary(cache: CacheSummary | null, dryRun = false, report: RunSummary['report'] = null) {
  const counts = { ...createCounters(), rowsRead: 10, rowsOk: 10, requestsSent: 2, itemsSent: 2 };
  const facts: SummaryFacts = {
    job: 'geocode',
    dryRun,
    error: undefined,
    input: { path: 'in.csv', format: 'csv', bytes: 100, truncated: false },
    outputs: dryRun ? [] : [{ path: '-', format: 'csv', records: 10, written: true }],
    summaryFile: null,
    runReport: null,
    httpRequests: 2,
    report,
    counts,
    rowsWritten: 10,
    unknownKeyRows: 0,
    client: null,
    cache,
    startedAt: new Date(0).toISOString(),
    durationMs: 1000,
    session: { ms: 1000, rows: 10, requests: 2 },
    peakRssBytes: 1,
    resume: { resumed: false, fromRow: 0, checkpoint: null },
    estimate: dryRun ? { requests: 2, requestsAtMost: 2, requestsPerSecond: null, seconds: null } : null,
  };
  return buildSummary(facts);
}

const CACHE: CacheSummary = {
  store: 'sqlite',
  location: '/c.sqlite',
  mode: 'use',
  hits: 8,
  misses: 2,
  expired: 0,
  writes: 2,
  requestsSaved: 8,
  problem: null,
  uncached: [],
};

describe('the closing line', () => {
  it("gives a stopped distributed run's way on with --queue, in its hint too, never --resume alone", () => {
    const base = summary(null);
    const stopped = (queue: string | undefined): RunSummary => ({
      ...base,
      ended: 'stopped',
      exitCode: 1,
      error: {
        code: 'ABORTED',
        message: 'The run was interrupted',
        hint: 'Run again with --resume to continue from the checkpoint.',
      },
      resume: {
        ...base.resume,
        checkpoint: '/o.csv.checkpoint.json',
        next: 'resume',
        ...(queue === undefined ? {} : { queue }),
      },
    });
    const distributed = describeSummary(stopped('postgres://u@db/q'));
    expect(distributed).toContain(
      '  hint: Run again with --resume --queue postgres://u@db/q to continue from the checkpoint.',
    );
    expect(distributed).not.toMatch(/--resume(?! --queue)/);
    // In one process the hint stands.
    expect(describeSummary(stopped(undefined))).toContain(
      '  hint: Run again with --resume to continue from the checkpoint.',
    );
  });

  it('says when the checkpoint kept commits fewer rows than were written, and where --resume goes on', () => {
    const base = summary(null);
    const stopped = (code: 'IO_ERROR' | 'QUOTA_EXCEEDED', checkpointRows: number | null): RunSummary => ({
      ...base,
      ended: 'stopped',
      exitCode: 1,
      error: { code, message: 'it stopped' },
      rows: { ...base.rows, written: 10 },
      resume: { ...base.resume, checkpoint: '/o.csv.checkpoint.json', next: 'resume', checkpointRows },
    });
    const lines = (s: RunSummary) => describeSummary(s).split('\n');
    expect(lines(stopped('IO_ERROR', 4))).toContain(
      '  it commits rows 1-4 (a write failed after its last commit): --resume goes on from row 5 and answers the rows after it again',
    );
    expect(lines(stopped('QUOTA_EXCEEDED', 0))).toContain(
      '  it commits no row (only whole groups of rows, such as a trip or a track, are kept): --resume goes on from row 1 and answers the rows after it again',
    );
    // Every row written committed, or a summary of an earlier version: nothing more to say.
    for (const kept of [10, null])
      expect(lines(stopped('IO_ERROR', kept)).join('\n')).not.toContain('it commits');
  });

  it('says how many requests the cache answered and how many items wholly', () => {
    expect(describeSummary(summary(CACHE)).split('\n')[0]).toMatch(
      /; 2 requests \(0 saved by dedup, batching and local answers\); the cache answered 8 requests \(8 items wholly\)$/,
    );
  });

  it('names the requests a boundaries cache answered though it answered no item wholly', () => {
    // A partly filled cache answered 4 level calls, and every request asked the service too.
    const line = describeSummary(summary({ ...CACHE, hits: 0, misses: 335, requestsSaved: 4 })).split(
      '\n',
    )[0];
    expect(line).toMatch(/; the cache answered 4 requests \(0 items wholly\)$/);
    expect(line).not.toContain('0 items from the cache');
  });

  it('says nothing of a cache when there is none', () => {
    expect(describeSummary(summary(null))).not.toContain('cache');
  });

  it('in a dry run, says how many items the cache would answer', () => {
    expect(describeSummary(summary(CACHE, true))).toContain(
      '2 requests after dedup and batching (0 saved); the cache would answer 8 requests (8 items wholly)',
    );
  });

  it('says one item and one request in the singular', () => {
    expect(describeSummary(summary({ ...CACHE, hits: 1, requestsSaved: 1 })).split('\n')[0]).toMatch(
      /; the cache answered 1 request \(1 item wholly\)$/,
    );
  });

  it('says one row in the singular, in a run and in a dry run', () => {
    const one = (dryRun: boolean) => {
      const facts = summary(null, dryRun);
      return describeSummary({ ...facts, rows: { ...facts.rows, read: 1, ok: 1 } }).split('\n')[0];
    };
    expect(one(false)).toMatch(/^geocode: done in 1\.0 s: 1 row, 1 ok, 0 failed; /);
    expect(one(true)).toBe('geocode (dry run): 1 row, 0 would fail before any request');
  });

  it("says a pipeline's dry run counts its first step only, in its lines themselves", () => {
    const facts = summary(null, true);
    const estimate = { requests: 5, requestsAtMost: 5, requestsPerSecond: 2, seconds: 3 };
    const lines = describeSummary(
      { ...facts, estimate: { ...estimate, firstStepOf: { step: 'geocode', steps: 3 } } },
      'p1.yaml',
    ).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'p1.yaml (dry run): 10 rows, 0 would fail before any request of geocode',
      '  5 requests for the first of 3 steps (geocode) after dedup and batching (0 saved); about 3 s at 2 requests/s',
      "  the later steps' requests depend on its answers: not counted, nor the rows they would fail",
    ]);
  });

  it('is named by the job file as written, so two jobs of one kind are told apart', () => {
    const facts = summary(null);
    const nightly = describeSummary(facts, 'jobs/nightly-customers.yaml').split('\n')[0];
    const weekly = describeSummary(facts, '/srv/weekly.yaml').split('\n')[0];
    expect(nightly).toMatch(/^jobs\/nightly-customers\.yaml: done in 1\.0 s: 10 rows, 10 ok, 0 failed; /);
    expect(weekly).toMatch(/^\/srv\/weekly\.yaml: done in /);
    expect(describeSummary({ ...facts, ended: 'stopped' }, 'a.yaml')).toMatch(/^a\.yaml: STOPPED after /);
    // A stop says what it paid for, as a finished run does.
    expect(describeSummary({ ...facts, ended: 'stopped' }, 'a.yaml').split('\n')[0]).toMatch(
      /^a\.yaml: STOPPED after 10 rows \(10 ok, 0 failed\), 1\.0 s; \d+ requests? \(\d+ saved by dedup, batching and local answers\)/,
    );
    expect(describeSummary(summary(null, true), 'a.yaml').split('\n')[0]).toBe(
      'a.yaml (dry run): 10 rows, 0 would fail before any request',
    );
  });

  it('says a job whose answers the cache does not keep is not kept, rather than counting nothing', () => {
    const trip = describeSummary(
      summary({ ...CACHE, hits: 0, misses: 0, requestsSaved: 0, uncached: ['trip'] }),
    );
    expect(trip.split('\n')[0]).toMatch(/; trip: not kept in the cache$/);
  });

  it('names the error report it wrote even when no row failed (the file is there, header only)', () => {
    const report = { path: '/tmp/x.errors.csv', format: 'csv', rows: 0, written: true };
    expect(describeSummary(summary(null, false, report))).toContain(
      '\n  errors   /tmp/x.errors.csv (0 rows)',
    );
    expect(describeSummary(summary(null, false, { ...report, written: false }))).not.toContain('errors ');
  });

  it('says when the run went on without caching, and why', () => {
    const problem = '/c.sqlite: the disk is full; the run goes on without caching new answers';
    expect(describeSummary(summary({ ...CACHE, problem }))).toContain(`\n  cache: ${problem}`);
  });

  it('says an input cut short was not read to its end, rather than "done"', () => {
    const whole = summary(null);
    const cut = { ...whole, input: { ...whole.input, format: 'geojson', truncated: true } };
    const lines = describeSummary(cut).split('\n');
    expect(lines[0]).toMatch(
      /^geocode: INPUT CUT SHORT, done in 1\.0 s with the rows before the cut: 10 rows, /,
    );
    expect(lines[1]).toBe(
      '  input cut short: reading stopped at a syntax error in row 10 (the file cut short, or broken there); the rows after it were not read: repair the file or fetch it whole, then run again',
    );
    // A dry run of it says so too.
    expect(describeSummary({ ...cut, dryRun: true })).toContain('\n  input cut short: reading stopped');
    expect(describeSummary(whole)).not.toContain('cut short');
    // A CSV or NDJSON file cut inside its last row: nothing after it was left unread, it is not there.
    const csv = { ...whole, input: { ...whole.input, format: 'csv', truncated: true } };
    expect(describeSummary(csv).split('\n')[1]).toBe(
      '  input cut short: it ends inside row 10, which is not whole (the file cut short); the rows that followed it are not in the file: fetch it whole, then run again',
    );
  });

  it('counts requests as the run report does, retries apart as HTTP attempts', () => {
    // Reverse geocode, 150 rows against 30% of 503s: 151 requests, 83 retries, 234 over HTTP.
    const base = summary(null);
    const retried: RunSummary = {
      ...base,
      requests: { ...base.requests, http: 234, sent: 151, resent: 1, itemsSent: 151 },
      client: { requests: { total: 234 }, retries: { total: 83, byCause: { '503': 83 } }, tokensFetched: 0 },
    };
    const line = describeSummary(retried).split('\n')[0];
    expect(line).toContain(
      '; 151 requests (0 saved by dedup, batching and local answers; 234 HTTP attempts, retries included)',
    );
    expect(line).not.toContain('234 requests');
    // Only the causes the client counted are named: a stop that cut attempts off says so.
    const cut: RunSummary = {
      ...base,
      requests: { ...base.requests, http: 12, sent: 10 },
      client: {
        requests: { total: 12, byInterface: { geocoding: { '200': 10, aborted: 2 } } },
        tokensFetched: 0,
      },
    };
    expect(describeSummary(cut).split('\n')[0]).toContain(
      '; 10 requests (0 saved by dedup, batching and local answers; 12 HTTP attempts, attempts a stop cut off included)',
    );
    // A resumed run's client counts are its last session's: the likeliest causes are named, over its sessions.
    const resumed: RunSummary = {
      ...cut,
      resume: { ...base.resume, resumed: true },
      client: { requests: { total: 3 }, retries: { total: 0, byCause: {} }, tokensFetched: 0 },
    };
    expect(describeSummary(resumed).split('\n')[0]).toContain(
      '; 12 HTTP attempts over its sessions, retries, token requests and attempts a stop cut off included)',
    );
    // Boundaries asks once per level within a batch: those are requests, not retries.
    const levels: RunSummary = {
      ...base,
      requests: { ...base.requests, http: 6, sent: 4 },
      client: { requests: { total: 6 }, retries: { total: 0, byCause: {} }, tokensFetched: 0 },
    };
    expect(describeSummary(levels).split('\n')[0]).toMatch(
      /; 6 requests \(0 saved by dedup, batching and local answers\)$/,
    );
  });

  it('warns of rows whose keys the output could not hold: their values are not in it', () => {
    const base = summary(null);
    const lossy: RunSummary = { ...base, rows: { ...base.rows, unknownKeyRows: 2 } };
    expect(describeSummary(lossy)).toContain(
      "\n  warning: 2 rows had keys that are not among the output's columns (taken from the first row): their values are left out of the CSV or GeoPackage output",
    );
    expect(describeSummary(base)).not.toContain('warning');
  });
});
