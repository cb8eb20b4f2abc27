/**
 * What a GPS track carries while its windows are matched: the time of its latest fix (fixes must
 * come in time order), the context for the next window, and the line stitched so far with its
 * distance and duration.
 */
import type { LineString, Position } from 'geojson';
import { type DecimalMark, markNote, thousandsAmbiguity } from '../client/coords.js';
import type { PlanIssue } from '../engine/job.js';
import { columnName } from './_column-name.js';
import { pathAfter, pathLength, pathOf } from './_geometry.js';
import type { MatchResult } from './_ports.js';
import { whole } from './_routing.js';
import { type Instant, readInstant } from './_sequence.js';

/** The track's columns on its last row. */
export interface TrackSummary {
  readonly fixes: number;
  readonly matched: number;
  readonly distance_m: number;
  readonly duration_s: number;
  readonly line: LineString | null;
}

/** A date with a time of day after it, as a fix's time must be (a date alone is no moment). */
const TIME_OF_DAY = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

export class Track<F> {
  /** The last fixes sent, the next window's context. */
  tail: F[] = [];
  /** Settles (never rejects) when the latest window is stitched in. */
  stitched: Promise<void> = Promise.resolve();
  /** A window failed: the track's line and totals cannot be told. */
  broken = false;
  fixes = 0;
  matched = 0;
  private readonly line: Position[] = [];
  private distance = 0;
  private duration = 0;
  /** The latest fix's time and row (1-based). */
  private time: { instant: Instant; row: number } | undefined;

  /**
   * Checks a fix's time against the fix before it, and takes it as the latest; a PlanIssue if it
   * cannot. A number is read with `mark`, the input's declared decimal mark.
   */
  follow(text: string, field: string, row: number, mark?: DecimalMark): PlanIssue | undefined {
    const shown = `\`${text.slice(0, 40)}\``;
    // `1,700` is 1.7 or 1700 (a track exported with thousands separators): asked, not guessed.
    const ambiguous = thousandsAmbiguity(text, 'a time', mark);
    if (ambiguous !== undefined)
      return { code: 'FIELD_INVALID', field, message: `${columnName(field)}: ${ambiguous}` };
    const instant = readInstant(text, mark);
    // A fix is a moment: a date alone was read as its midnight, matched ok, and refused only when a
    // later fix of that day came before it ("earlier than the fix before it").
    if (instant?.kind === 'date' && !TIME_OF_DAY.test(text)) {
      return {
        code: 'FIELD_INVALID',
        field,
        message: `${columnName(field)}: ${shown} is a date without a time of day: expected an ISO 8601 date-time such as 2024-05-06T08:30:00Z, or a number`,
      };
    }
    if (instant === undefined) {
      return {
        code: 'FIELD_INVALID',
        field,
        message: `${columnName(field)}: expected an ISO 8601 date-time or a number${markNote(text, mark)}, got ${shown}`,
      };
    }
    const before = this.time;
    if (before !== undefined && before.instant.kind !== instant.kind) {
      return {
        code: 'FIELD_INVALID',
        field,
        message: `${columnName(field)}: ${shown} is not the kind of time row ${before.row} of this track has (a date-time or a number)`,
      };
    }
    if (before !== undefined && instant.value < before.instant.value) {
      return {
        code: 'FIELD_INVALID',
        field,
        message: `${columnName(field)}: ${shown} is earlier than the fix before it (row ${before.row}); a track's fixes must be in time order`,
      };
    }
    this.time = { instant, row };
    return undefined;
  }

  /**
   * Adds a window's line after the seam (the last context fix it matched), and its share of the
   * window's distance and duration, in proportion to the length of line it adds.
   */
  stitch(result: MatchResult, context: number): void {
    const path = pathOf(result.geometry);
    let seam: Position | undefined;
    for (let i = context - 1; i >= 0 && seam === undefined; i--) {
      const d = result.destinations[i];
      if (d?.isMatched === true) seam = d.matchedPoint.coordinates;
    }
    const piece = seam === undefined || this.line.length === 0 ? path : pathAfter(path, seam);
    const length = pathLength(path);
    const share = length > 0 ? pathLength(piece) / length : seam === undefined ? 1 : 0;
    // A position repeated (a van standing still, the seam) says nothing: the line keeps it once,
    // so that a track gives the same line in one request or in windows.
    for (const position of piece) {
      const last = this.line[this.line.length - 1];
      if (last === undefined || last[0] !== position[0] || last[1] !== position[1]) this.line.push(position);
    }
    this.distance += result.distance_m * share;
    this.duration += result.duration_s * share;
  }

  /** The track's columns, or null when a window failed. */
  summary(): TrackSummary | null {
    if (this.broken) return null;
    return {
      fixes: this.fixes,
      matched: this.matched,
      distance_m: whole(this.distance),
      duration_s: whole(this.duration),
      line: this.line.length >= 2 ? { type: 'LineString', coordinates: this.line } : null,
    };
  }
}
