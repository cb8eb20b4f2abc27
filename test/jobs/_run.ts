/** Runs a job over rows through the real engine, for the kinds whose rows depend on each other. */
import { type ProcessOptions, processRows } from '../../src/engine/engine.js';
import type { AnyJob } from '../../src/engine/job.js';
import type { Fields, Outcome, OutputRecord, ReadItem } from '../../src/types.js';

/** Rows 0, 1, 2... with these fields, as a reader gives them. */
export async function* rowsOf(records: readonly Fields[]): AsyncGenerator<ReadItem> {
  for (const [index, fields] of records.entries())
    yield { kind: 'row', ref: { index, line: index + 2 }, fields };
}

export async function runRows(job: AnyJob, records: readonly Fields[], options: ProcessOptions = {}) {
  const outcomes: Outcome[] = [];
  for await (const outcome of processRows(rowsOf(records), job, options)) outcomes.push(outcome);
  return outcomes;
}

/** The only record of an ok outcome (throws for a failed one, to keep tests short). */
export function recordOf(outcome: Outcome | undefined): OutputRecord {
  if (outcome?.status !== 'ok') throw new Error(`expected an ok row, got ${JSON.stringify(outcome)}`);
  return outcome.records[0] as OutputRecord;
}

/** Each outcome as its error code, or 'ok'. */
export const codes = (outcomes: readonly Outcome[]) =>
  outcomes.map((o) => (o.status === 'ok' ? 'ok' : o.issue.code));
