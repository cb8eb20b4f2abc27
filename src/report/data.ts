/**
 * What the HTML run report is made of: the run summary plus what the summary cannot hold (how the
 * rates moved, example rows per failure code, the output's geometries). Every part is bounded,
 * whatever the size of the run, so that the page stays a few MB.
 */
import type { Geometry } from 'geojson';
import type { ErrorCode, RowCode } from '../errors.js';
import type { RunSummary } from '../output/summary.js';
import type { Stage } from '../types.js';

export interface RunReportData {
  readonly summary: RunSummary;
  /** Counter samples taken while the run went (`createReportTimeline`). */
  readonly timeline: readonly TimelinePoint[];
  /** A few failed rows per code (`createFailureExamples`). */
  readonly failures: readonly FailureExample[];
  /** The output's geometries, sampled (`createFeatureSample`). */
  readonly map: MapSample;
  /** The request cache's counts, when the run used one. */
  readonly cache?: CacheCounts | null;
}

/** Cumulative counts at one moment of this session. */
export interface TimelinePoint {
  /** Milliseconds since the first sample. */
  readonly t: number;
  readonly rows: number;
  readonly failed: number;
  /** HTTP attempts (the client's count: retries and token requests included), not the requests the summary's `sent` counts. */
  readonly requests: number;
  /** 429 answers received. */
  readonly throttled: number;
}

/** One failed row, as the error report has it (scrubbed, fields shortened). */
export interface FailureExample {
  /** 1-based row number, as in the error report. */
  readonly row: number;
  readonly line: number;
  readonly stage: Stage;
  readonly code: ErrorCode;
  readonly status: number | null;
  readonly message: string;
  /** The step the row failed at, in a run of several steps (the error report's `job`). */
  readonly step?: string;
  /** The first few input fields, each cut to a readable length. */
  readonly fields: Readonly<Record<string, string>>;
}

export interface ReportFeature {
  readonly geometry: Geometry;
  readonly status: 'ok' | 'failed';
  /** 1-based row number. */
  readonly row: number;
  readonly code: RowCode | ErrorCode | null;
}

/** The geometries on the map and how they relate to all the output's records. */
export interface MapSample {
  readonly features: readonly ReportFeature[];
  /** Records with a geometry, by status (all of them, not only those on the map). */
  readonly withGeometry: { readonly ok: number; readonly failed: number };
  /** Records without one (a failed geocode, CSV input of a failed row...). */
  readonly withoutGeometry: { readonly ok: number; readonly failed: number };
  /**
   * Records whose geometry has coordinates no longitude/latitude can be (a latitude beyond ±90:
   * projected metres, say), left off the map, which they would blank by zooming out past the globe.
   */
  readonly offTheGlobe?: { readonly ok: number; readonly failed: number };
}

export interface CacheCounts {
  /** Items answered wholly from the cache; the requests it answered for the service: `requestsSaved`. */
  readonly hits: number;
  readonly misses: number;
}
