/**
 * The closing lines `geobatch run` prints: a fatal error's message already ends with what to do,
 * so its hint, the same words, is not printed a second time under it.
 */
import { describe, expect, it } from 'vitest';
import { openDisplay } from '../../src/cli/_display.js';
import { painted, withoutRepeatedHint } from '../../src/cli/_display-summary.js';
import { fatalError } from '../../src/client/_failures.js';
import { createAuth } from '../../src/client/auth.js';
import { createCounters } from '../../src/engine/counters.js';
import { IoError, RunError, ServiceError } from '../../src/errors.js';
import { INPUT_CHANGED } from '../../src/input/_source.js';
import { buildSummary, type SummaryFacts } from '../../src/output/summary.js';
import { fakeTty } from '../run/_tty.js';

function stoppedBy(error: unknown) {
  return buildSummary(factsOf(error));
}

function factsOf(error: unknown): SummaryFacts {
  return {
    job: 'geocode',
    dryRun: false,
    error,
    input: { path: 'in.csv', format: 'csv', bytes: 100, truncated: false },
    outputs: [{ path: 'out.csv', format: 'csv', records: 0, written: false }],
    summaryFile: null,
    runReport: null,
    httpRequests: 1,
    report: null,
    counts: createCounters(),
    rowsWritten: 0,
    unknownKeyRows: 0,
    client: null,
    cache: null,
    startedAt: new Date(0).toISOString(),
    durationMs: 100,
    session: { ms: 100, rows: 0, requests: 1 },
    peakRssBytes: 1,
    resume: { resumed: false, fromRow: 0, checkpoint: null },
    estimate: null,
  };
}

const place = { service: 'geocoding', endpoint: '/api_rst/v2/geojson/geocode' } as const;
const rejected = fatalError('AUTH_REJECTED', 401, place, createAuth({ apiKey: 'k' }), 1);

function closing(summary: ReturnType<typeof stoppedBy>): string {
  const display = openDisplay({ logLevel: 'silent', stream: fakeTty().stream, env: { NO_COLOR: '1' } });
  try {
    return painted(display, summary);
  } finally {
    display.close();
  }
}

describe('the closing lines of a stopped run', () => {
  it('say what to do about a rejected key once, in the message, not again as a hint', () => {
    const text = closing(stoppedBy(rejected));
    expect(text).toContain(
      '  AUTH_REJECTED: the service rejected the API key (401) for geocoding: check GEOBATCH_API_KEY\n',
    );
    expect(text.match(/check GEOBATCH_API_KEY/g)).toHaveLength(1);
    expect(text).not.toContain('hint:');
  });

  it('say, for an input that changed under the run, that nothing is kept and why', () => {
    const changed = new IoError(
      'IO_ERROR',
      `The input in.csv ${INPUT_CHANGED}: it had 300 bytes when the run began, 100 now, and 100 were read`,
      { field: 'input' },
    );
    const text = closing(stoppedBy(changed));
    expect(text).toContain(
      '  nothing is kept: a resume could not go on from a changed input; once it is complete, run again (no --resume needed)',
    );
    expect(text).not.toContain('no row was committed');
  });

  it('say that rows written before a stop are not kept when no checkpoint commits them', () => {
    const quota = new ServiceError('QUOTA_EXCEEDED', 'the quota is used up (402)');
    const text = closing(buildSummary({ ...factsOf(quota), rowsWritten: 1230 }));
    expect(text).toContain('  nothing is kept: no checkpoint commits the 1230 rows written');
    expect(text).not.toContain('no row was committed');
    expect(closing(stoppedBy(quota))).toContain('  no row was committed, so nothing is kept');
    // Not a group's stop: a full disk before the first checkpoint says so, not "a trip or a track".
    const full = new IoError('IO_ERROR', 'Cannot write out.csv.partial: ENOSPC: no space left on device');
    const disk = closing(buildSummary({ ...factsOf(full), rowsWritten: 350 }));
    expect(disk).toContain(
      '  nothing is kept: no checkpoint commits the 350 rows written (writing failed, and no checkpoint of them is there: none was written yet, or its directory was removed)',
    );
    expect(disk).not.toContain('track');
  });

  it('tell a stop asked for (Ctrl-C) to run again, not to fix something first', () => {
    const stopped = new RunError('ABORTED', 'The run was interrupted');
    expect(closing(stoppedBy(stopped))).toContain(
      '  no row was committed, so nothing is kept: run again (no --resume needed)',
    );
    const quota = new ServiceError('QUOTA_EXCEEDED', 'the quota is used up (402)');
    expect(closing(stoppedBy(quota))).toContain('nothing is kept: once fixed, run again');
    const toStdout = buildSummary({
      ...factsOf(stopped),
      outputs: [{ path: '-', format: 'csv', records: 0, written: true }],
    });
    expect(closing(toStdout)).toContain(
      '  output to standard output cannot be resumed: run again from the start',
    );
  });

  it('print of a hint that goes on from the message only what it adds', () => {
    const quota = new ServiceError(
      'QUOTA_EXCEEDED',
      'the service reports the quota is used up (402) for geocoding: wait until the quota resets or raise it',
      {
        hint: 'wait until the quota resets or raise it, then run again with --resume: the rows already done are kept',
      },
    );
    const text = closing(stoppedBy(quota));
    expect(text).toContain('  hint: then run again with --resume: the rows already done are kept');
    expect(text.match(/wait until the quota resets/g)).toHaveLength(1);
  });

  it('still print a hint that says more than the message', () => {
    const error = new ServiceError('QUOTA_EXCEEDED', 'the quota is used up (402)', {
      hint: 'wait until the quota resets',
    });
    expect(closing(stoppedBy(error))).toContain('  hint: wait until the quota resets');
  });

  it('leave the summary itself as it was: the file and the logs keep the hint', () => {
    const summary = stoppedBy(rejected);
    expect(summary.error?.hint).toBe('check GEOBATCH_API_KEY');
    expect(withoutRepeatedHint(summary).error).toEqual({
      code: 'AUTH_REJECTED',
      message: 'the service rejected the API key (401) for geocoding: check GEOBATCH_API_KEY',
    });
    expect(summary.error?.hint).toBe('check GEOBATCH_API_KEY');
  });
});
