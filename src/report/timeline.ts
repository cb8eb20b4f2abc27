/**
 * The run's counters over time, for the report's chart. The run hands it cumulative counts every
 * second or so; rates are taken from differences at render time, so thinning the samples (every
 * other one dropped when the buffer is full) keeps every rate true over a longer interval and a
 * week-long run still holds at most `maxPoints` samples.
 */
import { ConfigError } from '../errors.js';
import type { TimelinePoint } from './data.js';

/** Cumulative counts since the session started. */
export interface TimelineCounters {
  readonly rows: number;
  readonly failed: number;
  readonly requests: number;
  readonly throttled: number;
}

export interface TimelineOptions {
  /** Samples kept; beyond it every other one is dropped. @default 1200 */
  readonly maxPoints?: number;
  /** The clock, in milliseconds. @default Date.now */
  readonly now?: () => number;
}

export interface ReportTimeline {
  /** Takes one sample of cumulative counts. */
  record(counts: TimelineCounters): void;
  /** Samples `read()` every `intervalMs` (timer unref'd); the returned stop takes a last sample. */
  track(read: () => TimelineCounters, intervalMs?: number): () => void;
  points(): readonly TimelinePoint[];
}

const DEFAULTS = { maxPoints: 1200, intervalMs: 1000 } as const;

export function createReportTimeline(options: TimelineOptions = {}): ReportTimeline {
  const maxPoints = options.maxPoints ?? DEFAULTS.maxPoints;
  if (!Number.isInteger(maxPoints) || maxPoints < 2)
    throw new ConfigError(`Expected \`maxPoints\` to be an integer of at least 2, got \`${maxPoints}\``);
  const now = options.now ?? Date.now;
  let points: TimelinePoint[] = [];
  let origin: number | undefined;

  function record(counts: TimelineCounters): void {
    const at = now();
    origin ??= at;
    points.push({ t: at - origin, ...pick(counts) });
    // The first sample is the origin of every rate and is always kept, as is the newest.
    if (points.length > maxPoints) points = points.filter((_, i) => i % 2 === 0 || i === points.length - 1);
  }

  return {
    record,
    track(read, intervalMs = DEFAULTS.intervalMs) {
      record(read());
      const timer = setInterval(() => record(read()), intervalMs);
      timer.unref();
      return () => {
        clearInterval(timer);
        record(read());
      };
    },
    points: () => points.slice(),
  };
}

function pick(c: TimelineCounters): Omit<TimelinePoint, 't'> {
  return { rows: c.rows, failed: c.failed, requests: c.requests, throttled: c.throttled };
}
