/**
 * Report data for tests: a summary shaped like a real run's, a timeline from a fake clock, and
 * the boundaries sample job's golden output and error report fed through the collectors.
 */
import { readFileSync } from 'node:fs';
import type { Feature, FeatureCollection } from 'geojson';
import type { ErrorCode } from '../../src/errors.js';
import type { RunSummary } from '../../src/output/summary.js';
import { createFailureExamples } from '../../src/report/failures.js';
import { createFeatureSample } from '../../src/report/features.js';
import type { RunReportData } from '../../src/report/index.js';
import { createReportTimeline } from '../../src/report/timeline.js';
import type { Fields, RowIssue, Stage } from '../../src/types.js';

export type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };

export function sampleSummary(change: (s: Mutable<RunSummary>) => void = () => {}): RunSummary {
  const summary: Mutable<RunSummary> = {
    version: 1,
    job: 'boundaries',
    ended: 'complete_with_failures',
    exitCode: 3,
    error: null,
    dryRun: false,
    input: { path: 'samples/places.geojson', format: 'geojson', bytes: 82_338, truncated: false },
    output: { path: 'out/places.boundaries.geojson', format: 'geojson', records: 603, written: true },
    outputs: [{ path: 'out/places.boundaries.geojson', format: 'geojson', records: 603, written: true }],
    report: { path: 'out/places.boundaries.errors.ndjson', format: 'ndjson', rows: 3, written: true },
    summaryFile: 'out/places.boundaries.geojson.summary.json',
    runReport: 'out/places.boundaries.geojson.report.html',
    cache: null,
    rows: {
      read: 603,
      written: 603,
      ok: 600,
      failed: 3,
      failedByCode: { FIELD_MISSING: 1, OUTSIDE_COVERAGE: 1, INPUT_MALFORMED: 1 },
      unknownKeyRows: 0,
    },
    requests: {
      http: 9,
      sent: 6,
      resent: 0,
      itemsSent: 436,
      failed: 0,
      uniqueItems: 1202,
      savedByDedup: 0,
      savedByBatching: 430,
      savedByLocalAnswers: 766,
      maxInFlight: 2,
    },
    client: {
      requests: { total: 9, byInterface: { area: { '200': 6, '429': 2, '503': 1 } } },
      retries: { total: 3, byCause: { status: 3 } },
      throttled429: 2,
      fatal: 0,
      throttleWaits: { count: 0, totalMs: 0 },
      tokensFetched: 0,
      latencyMs: { count: 9, p50: 11.3, p90: 38.05, p99: 45.25, max: 45.1, mean: 17.2, buckets: [] },
    },
    timing: {
      startedAt: '2026-11-23T03:00:00.000Z',
      endedAt: '2026-11-23T03:01:00.000Z',
      durationMs: 60_000,
      rowsPerSecond: 10.1,
      requestsPerSecond: 0.1,
    },
    memory: { peakRssBytes: 96 * 1024 * 1024 },
    resume: { resumed: false, fromRow: 0, checkpoint: null },
    estimate: null,
  };
  change(summary);
  return summary;
}

/**
 * A minute-long run of 603 rows sampled every second: the service answers two requests with 429
 * at 25 s and the rate drops for ten seconds (as the summary's client metrics say).
 */
export function sampleTimeline(seconds = 60) {
  let now = 0;
  const timeline = createReportTimeline({ now: () => now });
  let rows = 0;
  let failed = 0;
  let requests = 0;
  let throttled = 0;
  for (let s = 0; s <= seconds; s++) {
    now = s * 1000;
    timeline.record({ rows: Math.min(rows, 603), failed, requests, throttled });
    const slowed = s >= 25 && s < 35;
    rows += slowed ? 4 : 11;
    failed += s === 5 || s === 30 || s === 45 ? 1 : 0;
    requests += s % 10 === 0 ? 1 : 0;
    throttled += s === 25 || s === 26 ? 1 : 0;
  }
  return timeline.points();
}

export interface ErrorRecord {
  row: number;
  line: number;
  stage: Stage;
  code: ErrorCode;
  status: number | null;
  message: string;
  fields: Fields;
}

/** An error report record (NDJSON form) as the RowIssue it was written from. */
export function issueOf(record: ErrorRecord): RowIssue {
  return {
    kind: 'issue',
    ref: { index: record.row - 1, line: record.line },
    stage: record.stage,
    code: record.code,
    message: record.message,
    ...(record.status === null ? {} : { status: record.status }),
    fields: record.fields,
  };
}

const GOLDEN = new URL('../fixtures/golden/', import.meta.url);

/** The boundaries sample job's real output and error report, as the run would have fed them. */
export function goldenBoundaries(): RunReportData {
  const output = JSON.parse(
    readFileSync(new URL('places.boundaries.geojson', GOLDEN), 'utf8'),
  ) as FeatureCollection;
  const errors = readFileSync(new URL('places.boundaries.geojson.errors.ndjson', GOLDEN), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ErrorRecord);
  const features = createFeatureSample();
  output.features.forEach((feature: Feature, i) => {
    const status = feature.properties?.geobatch_status === 'ok' ? 'ok' : 'failed';
    const code = (feature.properties?.geobatch_error || null) as ErrorCode | null;
    features.add(feature.geometry, status, i + 1, code);
  });
  const failures = createFailureExamples();
  for (const record of errors) failures.add(issueOf(record));
  return {
    summary: sampleSummary(),
    timeline: sampleTimeline(),
    failures: failures.examples(),
    map: features.result(),
  };
}
