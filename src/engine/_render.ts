/** Rows to outcomes: the job's plan and render, with any throw or empty answer made a row failure. */

import type { Geometry } from 'geojson';
import { hasField } from '../fields.js';
import type { Outcome, OutputRecord, ReadItem, Row } from '../types.js';
import { internal, rowIssue } from './_failure.js';
import type { AnyJob, ItemResult } from './job.js';

/** A planned row: its items and their dedup keys, in plan order. */
export interface Plan {
  readonly items: readonly unknown[];
  readonly keys: readonly string[];
}

/** Plans a row, or says how it failed (stage `input` for the job's PlanIssue). */
export function planRow(job: AnyJob, row: Row): Plan | Outcome {
  try {
    const planned = job.plan(row);
    if (!Array.isArray(planned)) {
      const issue = planned as Exclude<ReturnType<AnyJob['plan']>, readonly unknown[]>;
      return failure(row, rowIssue(row, { ...issue, message: withNearKey(row, issue), stage: 'input' }));
    }
    return { items: planned, keys: planned.map((item) => job.key(item)) };
  } catch (error) {
    return failure(
      row,
      rowIssue(row, { ...internal(`Planning the row failed: ${messageOf(error)}`), stage: 'input' }),
    );
  }
}

/**
 * A field missing from a record that has a key differing only in case or surrounding spaces (an
 * NDJSON or GeoJSON record: a CSV header is checked before the run) says so, as the header check does.
 */
function withNearKey(row: Row, issue: { code: string; field?: string; message: string }): string {
  if (issue.code !== 'FIELD_MISSING' || issue.field === undefined || hasField(row.fields, issue.field))
    return issue.message;
  const loose = (name: string) => name.normalize('NFC').trim().toLowerCase();
  const wanted = loose(issue.field);
  const near = Object.keys(row.fields).filter((key) => loose(key) === wanted);
  return near.length === 0
    ? issue.message
    : `${issue.message}; the record has ${near.map((key) => JSON.stringify(key)).join(', ')}`;
}

export function renderRow(job: AnyJob, row: Row, results: readonly ItemResult<unknown>[]): Outcome {
  try {
    const rendered = job.render(row, results);
    if (!rendered.ok)
      return failure(row, rowIssue(row, rendered.failure), rendered.records, rendered.geometry);
    if (rendered.records.length === 0) {
      // Every row must reach the output: a job that renders nothing is a defect, reported as such.
      return failure(
        row,
        rowIssue(row, internal(`The ${job.kind} job rendered no output record`, 'response')),
      );
    }
    return { status: 'ok', ref: row.ref, row, records: rendered.records };
  } catch (error) {
    return failure(row, rowIssue(row, internal(`Rendering the row failed: ${messageOf(error)}`, 'response')));
  }
}

/** The outcome of a record the reader could not read. */
export function unreadable(item: Exclude<ReadItem, Row>): Outcome {
  if (item.geometry === undefined) return { status: 'failed', ref: item.ref, issue: item };
  // A feature failed for a property: the row as read, so that its geometry is written too.
  const row: Row = { kind: 'row', ref: item.ref, fields: item.fields ?? {}, geometry: item.geometry };
  return { status: 'failed', ref: item.ref, row, issue: item };
}

function failure(
  row: Row,
  issue: ReturnType<typeof rowIssue>,
  records?: readonly OutputRecord[],
  geometry?: Geometry,
): Outcome {
  return {
    status: 'failed',
    ref: row.ref,
    row,
    issue,
    ...(records?.length ? { records } : {}),
    ...(geometry === undefined ? {} : { geometry }),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
