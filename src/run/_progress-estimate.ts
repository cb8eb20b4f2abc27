/**
 * The row total and the pace behind progress' percent and time left. Counting the rows first
 * would mean reading the input twice, so the total is the rows the reader has handed on scaled by
 * the input's size over the bytes those rows span, and exact once the reader has handed on its
 * last row.
 */
import type { ReadPosition } from '../input/reader.js';

/** What the estimate reads from a progress snapshot. */
export interface EstimateInput {
  readonly rowsDone: number;
  readonly rowsRead: number;
  readonly bytesRead: number;
  readonly bytesTotal: number | undefined;
  readonly rowsCap?: number | undefined;
  readonly position?: Readonly<ReadPosition> | undefined;
}

/** The input's row count, estimated; undefined while there is nothing to go on. */
export function estimateTotal(now: EstimateInput): number | undefined {
  const cap = now.rowsCap ?? Number.POSITIVE_INFINITY;
  // Once the cap's rows are read, the total is known whatever the bytes say.
  if (now.rowsRead >= cap) return cap;
  const scaled = now.position === undefined ? byShareRead(now) : byPosition(now.position, now.bytesTotal);
  if (scaled === undefined) return undefined;
  return Math.min(Math.max(scaled, now.rowsRead, now.rowsDone), cap);
}

function byPosition(at: Readonly<ReadPosition>, bytesTotal: number | undefined): number | undefined {
  if (at.ended) return at.records;
  if (bytesTotal === undefined || at.records === 0 || at.bytes === 0) return undefined;
  return Math.max(Math.round((at.records * bytesTotal) / at.bytes), at.records);
}

/**
 * For a reader that tells no position: rows read over the share of bytes read. The bytes run
 * ahead of the rows (a look-ahead of up to a mebibyte, the chunk being parsed), so this
 * underestimates; once every byte is read it knows nothing about the rows not yet handed on.
 */
function byShareRead(now: EstimateInput): number | undefined {
  const { bytesRead, bytesTotal, rowsRead } = now;
  if (bytesTotal === undefined || bytesRead === 0 || rowsRead === 0 || bytesRead >= bytesTotal)
    return undefined;
  return Math.round(rowsRead / (bytesRead / bytesTotal));
}

/** How far back the pace looks: long enough to smooth a burst, short enough to follow a change. */
const PACE_WINDOW_MS = 20_000;

interface Mark {
  readonly ms: number;
  readonly rows: number;
}

/**
 * Rows done per second lately, from marks taken as progress is drawn. The time left follows a run
 * that changes speed (a warm cache at the start, throttling later) where the session's mean rate
 * would lag behind.
 */
export class Pace {
  private readonly marks: Mark[] = [];

  constructor(private readonly windowMs = PACE_WINDOW_MS) {}

  /** Notes `rows` done at `ms`; the pace since the latest mark at least a window old (or the first). */
  note(ms: number, rows: number): number | undefined {
    const marks = this.marks;
    marks.push({ ms, rows });
    while (marks.length > 2 && (marks[1] as Mark).ms <= ms - this.windowMs) marks.shift();
    const base = marks[0] as Mark;
    return ms > base.ms ? ((rows - base.rows) * 1000) / (ms - base.ms) : undefined;
  }
}
