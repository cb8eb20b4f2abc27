/**
 * What the run feeds the report while it writes: every outcome, in output order. It keeps the
 * map's geometry sample and the example rows per failure code; both are bounded.
 *
 * The geometry of each output record is the one the GeoJSON output writes (the record's own,
 * else the input row's), so that the map shows the output whatever its format.
 */
import type { Geometry } from 'geojson';
import type { Outcome } from '../types.js';
import type { FailureExample, MapSample } from './data.js';
import { createFailureExamples, type FailureExamplesOptions } from './failures.js';
import { createFeatureSample, type FeatureSampleOptions } from './features.js';

export interface ReportCollectorOptions {
  readonly features?: FeatureSampleOptions;
  readonly failures?: FailureExamplesOptions;
}

export interface ReportCollector {
  /** One outcome as it is written. */
  add(outcome: Outcome): void;
  map(): MapSample;
  failures(): readonly FailureExample[];
}

export function createReportCollector(options: ReportCollectorOptions = {}): ReportCollector {
  const features = createFeatureSample(options.features);
  const failures = createFailureExamples(options.failures);
  return {
    add(outcome) {
      const row = outcome.ref.index + 1;
      if (outcome.status === 'failed') {
        failures.add(outcome.issue, outcome.row?.fields ?? outcome.issue.fields);
        features.add(outcome.row?.geometry, 'failed', row, outcome.issue.code);
        return;
      }
      for (const record of outcome.records) features.add(recordGeometry(outcome, record.geometry), 'ok', row);
    },
    map: () => features.result(),
    failures: () => failures.examples(),
  };
}

/** As the GeoJSON writer decides: the record's geometry (null included), else the input row's. */
function recordGeometry(outcome: Outcome, own: Geometry | null | undefined): Geometry | null | undefined {
  return own === undefined ? outcome.row?.geometry : own;
}
