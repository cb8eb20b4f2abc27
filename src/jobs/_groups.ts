/**
 * Groups of consecutive rows (a trip's stops, a GPS track's fixes), found while rows stream by.
 *
 * Rule: the rows of a group are contiguous in the input, as stop lists and GPS exports are. A group
 * ends where a row names another group, or where the input ends. A group that comes again after
 * another one fails each of its later rows, naming the rows where it was before. Rows that fail on
 * their own (a missing field, a bad coordinate, a group seen before) do not end the current group.
 *
 * Memory: the groups in the window, plus the names of the last `remember` ended groups (to catch a
 * group that comes again; one that comes back after more groups than that is not caught).
 */
import type { Job, PlanIssue } from '../engine/job.js';
import type { Row } from '../types.js';
import { columnName } from './_column-name.js';
import { columnOf, type Mapping, readText } from './_fields.js';

/** One unbroken run of rows of one group. Items point at it, so `execute` can tell what it holds. */
export interface Run {
  /** Unique in this session: the batch group of the run's items. */
  readonly id: string;
  /** The group column's value. */
  readonly name: string;
  /** 0-based index of the run's first row. */
  readonly first: number;
  /** 0-based index of its latest row so far. */
  last: number;
  /** Items planned so far (rows that did not fail on their own). */
  count: number;
  /** No more rows will join. */
  ended: boolean;
}

/** Ended groups remembered by name to catch one that comes again. */
export const DEFAULT_REMEMBER = 50_000;

export class GroupRuns {
  private current: Run | undefined;
  private serial = 0;
  /** Ended groups by name: rows (1-based) where they were, oldest first (Map insertion order). */
  private readonly ended = new Map<string, { first: number; last: number }>();
  /** Spans of ended runs not yet behind a resume point, for `resumableAt`. */
  private readonly spans: { first: number; last: number }[] = [];

  /**
   * @param field the mapping field naming the group column (`trip`, `track`)
   * @param noun what a group is called in messages
   */
  constructor(
    private readonly mapping: Mapping,
    private readonly field: string,
    private readonly noun: string,
    private readonly remember = DEFAULT_REMEMBER,
  ) {}

  /** The column the groups are read from, for messages. */
  get column(): string {
    return columnOf(this.mapping, this.field) ?? this.field;
  }

  /** What a job of groups tells the engine and a distributed run about them (see Job). */
  hooks(): Required<Pick<Job<unknown, unknown>, 'inputEnded' | 'resumableAt' | 'groupOf' | 'endedBefore'>> {
    return {
      inputEnded: () => this.end(),
      resumableAt: (index) => this.resumableAt(index),
      groupOf: (row) => this.nameOf(row),
      endedBefore: (ended) => this.rememberEnded(ended),
    };
  }

  /** The group a row names, without entering it (undefined: it names none). */
  nameOf(row: Row): string | undefined {
    return readText(row, this.mapping, this.field);
  }

  /** Groups that ended before this job's first row (1-based spans), remembered as if seen. */
  rememberEnded(groups: ReadonlyMap<string, { readonly first: number; readonly last: number }>): void {
    for (const [name, span] of groups) this.ended.set(name, { first: span.first, last: span.last });
  }

  /** The run this row belongs to, or why it cannot belong to one. Call once per row, in input order. */
  enter(row: Row): Run | PlanIssue {
    const name = readText(row, this.mapping, this.field);
    if (name === undefined) {
      return {
        code: 'FIELD_MISSING',
        field: this.column,
        message: `${columnName(this.column)}: missing; expected the ${this.noun} this row belongs to`,
      };
    }
    const index = row.ref.index;
    if (this.current?.name === name) {
      this.current.last = index;
      return this.current;
    }
    const before = this.ended.get(name);
    if (before !== undefined) {
      return {
        code: 'FIELD_INVALID',
        field: this.column,
        message:
          `${columnName(this.column)}: ${this.noun} ${name} already ended (rows ${before.first}-${before.last}) and comes ` +
          `again at row ${index + 1}; the rows of each ${this.noun} must be together: sort the input by ` +
          `${this.column} (a stable sort keeps their order)`,
      };
    }
    this.close();
    this.current = { id: `${++this.serial}`, name, first: index, last: index, count: 0, ended: false };
    return this.current;
  }

  /** The input ended: the last run is complete. */
  end(): void {
    this.close();
  }

  /** A resume may start at `index` unless a run has rows on both sides of it. Asked with rising indexes. */
  resumableAt(index: number): boolean {
    while (this.spans.length > 0 && (this.spans[0]?.last ?? 0) < index) this.spans.shift();
    // Runs are disjoint and in input order: only the first one left can hold `index` (asked for
    // every row written by a run that marks its groups' ends, run/session.ts).
    const first = this.spans[0];
    if (first !== undefined && first.first < index && index <= first.last) return false;
    // The open run may grow past `index`: only its first row is a safe place.
    return this.current === undefined || this.current.ended || index <= this.current.first;
  }

  private close(): void {
    const run = this.current;
    if (run === undefined || run.ended) return;
    run.ended = true;
    this.spans.push({ first: run.first, last: run.last });
    this.ended.set(run.name, { first: run.first + 1, last: run.last + 1 });
    if (this.ended.size > this.remember) {
      const oldest = this.ended.keys().next();
      if (oldest.done !== true) this.ended.delete(oldest.value);
    }
  }
}
