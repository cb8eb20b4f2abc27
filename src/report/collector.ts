/**
 * What the run feeds the report while it writes: every outcome, in output order. It keeps the
 * map's geometry sample and the example rows per failure code; both are bounded.
 *
 * The geometry of each output record is the one the GeoJSON output writes (the record's own,
 * else the input row's), so that the map shows the output whatever its format. A failed row has
 * no record of the job's, so only its input's geometry: a failed row of a CSV input has none
 * unless `locate` says where its job would have put it.
 */
import type { Geometry } from 'geojson';
import type { Outcome, Row } from '../types.js';
import type { FailureExample, MapSample } from './data.js';
import { createFailureExamples, type FailureExamplesOptions } from './failures.js';
import { createFeatureSample, type FeatureSampleOptions } from './features.js';

export interface ReportCollectorOptions {
  readonly features?: FeatureSampleOptions;
  readonly failures?: FailureExamplesOptions;
  /**
   * Where a failed row without a geometry of its own lies, as its job reads the row (the mapped
   * lon/lat columns of a CSV row); undefined when the row names no usable point. The composition
   * root passes the job's reading; the report does not guess columns.
   * @default none: a failed row is on the map only by its input geometry
   */
  readonly locate?: (row: Row) => Geometry | undefined;
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
  const locate = options.locate;
  return {
    add(outcome) {
      const row = outcome.ref.index + 1;
      if (outcome.status === 'failed') {
        failures.add(outcome.issue, outcome.row?.fields ?? outcome.issue.fields);
        const input = outcome.row;
        const geometry = input?.geometry ?? (input === undefined ? undefined : locate?.(input));
        features.add(geometry, 'failed', row, outcome.issue.code);
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
