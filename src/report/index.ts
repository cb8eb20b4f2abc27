/** The HTML run report: what the run feeds it while it goes, and the page it writes at the end. */

export { attemptsBeyond, requestsMade } from './_requests-section.js';
export { describesOutput, unknownKeysText } from './_run-section.js';
export { selectedBy } from './_selection.js';
export { adviceFor, ERROR_ADVICE } from './advice.js';
export { createReportCollector, type ReportCollector, type ReportCollectorOptions } from './collector.js';
export type {
  CacheCounts,
  FailureExample,
  MapSample,
  ReportFeature,
  RunReportData,
  TimelinePoint,
} from './data.js';
export { createFailureExamples, type FailureExamples, type FailureExamplesOptions } from './failures.js';
export { createFeatureSample, type FeatureSample, type FeatureSampleOptions } from './features.js';
export { MAP_ATTRIBUTION, renderRunReport } from './render.js';
export {
  createReportTimeline,
  type ReportTimeline,
  type TimelineCounters,
  type TimelineOptions,
} from './timeline.js';
export { runReportPath, writeRunReport } from './write.js';
