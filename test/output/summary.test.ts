import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, IoError, isGeobatchError, RunError } from '../../src/errors.js';
import { buildSummary, type SummaryFacts, writeSummary } from '../../src/output/summary.js';
import { tempDir } from './_outcomes.js';

const counts = {
  rowsRead: 2,
  rowsOk: 1,
  rowsFailed: 1,
  failuresByCode: { NO_MATCH: 1 },
  uniqueItems: 2,
  dedupHits: 0,
  localHits: 0,
  requestsSent: 1,
  itemsSent: 2,
  requestsResent: 0,
  itemsResent: 0,
  requestsFailed: 0,
  maxRequestsInFlight: 1,
};

function facts(error?: unknown): SummaryFacts {
  return {
    job: 'geocode',
    dryRun: false,
    error,
    input: { path: 'in.csv', format: 'csv', bytes: 10, truncated: false },
    outputs: [{ path: 'out.csv', format: 'csv', records: 2, written: error === undefined }],
    report: null,
    summaryFile: 'out.csv.summary.json',
    runReport: 'out.csv.report.html',
    cache: null,
    counts,
    httpRequests: 3,
    rowsWritten: 2,
    unknownKeyRows: 0,
    client: null,
    startedAt: new Date(0).toISOString(),
    durationMs: 5,
    session: { ms: 5, rows: 2, requests: 1 },
    peakRssBytes: 1,
    resume: { resumed: false, fromRow: 0, checkpoint: null },
    estimate: null,
  };
}

describe('run summary', () => {
  it.each([
    [undefined, 'complete_with_failures', 3],
    [new InputError('INPUT_EMPTY', 'no rows'), 'empty', 4],
    [new RunError('OUTPUT_CLOSED', 'closed'), 'output_closed', 0],
    [new IoError('IO_ERROR', 'disk full'), 'stopped', 1],
    [new Error('a defect'), 'stopped', 1],
  ])('says how a run ended and its exit status from the one table (%s)', (error, ended, exitCode) => {
    const summary = buildSummary(facts(error));
    expect(summary).toMatchObject({ ended, exitCode, requests: { http: 3, sent: 1 } });
    expect(summary.error?.code ?? null).toBe(
      error === undefined ? null : isGeobatchError(error) ? error.code : 'INTERNAL',
    );
  });

  it('ends an input cut short with exit 4, its rows otherwise as in any run', () => {
    const base = facts();
    const summary = buildSummary({ ...base, input: { ...base.input, format: 'geojson', truncated: true } });
    expect(summary).toMatchObject({ ended: 'complete_with_failures', exitCode: 4, error: null });
  });

  it('credits batching once for items a second pass sent again', () => {
    // 10 items in 2 requests, then one of them (5 items) sent again after its attempts ran out.
    const again = { ...counts, requestsSent: 3, itemsSent: 15, requestsResent: 1, itemsResent: 5 };
    const summary = buildSummary({ ...facts(), counts: again });
    expect(summary.requests).toMatchObject({ sent: 3, itemsSent: 15, savedByBatching: 8 });
  });

  it('leaves no temporary file behind when it cannot be written (disk full)', async () => {
    const path = join(tempDir(), 'out.csv.summary.json');
    symlinkSync('/dev/full', `${path}.tmp`);
    const error = await writeSummary(path, buildSummary(facts())).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
    expect(isGeobatchError(error) && error.context.file).toBe(path);
    expect(existsSync(`${path}.tmp`)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});
