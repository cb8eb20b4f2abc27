/**
 * A run that would write a file another run's checkpoint holds (an output of an interrupted run,
 * its first or a later one) is refused, with --resume too: it used to replace that run's .partial, which then could not
 * be resumed ("shorter than the checkpoint says").
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyJob } from '../../src/engine/job.js';
import { isGeobatchError } from '../../src/errors.js';
import { journalPath, readJournal } from '../../src/run/checkpoint.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { fakeJob } from '../engine/_fake.js';
import { csvInput, memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

function specFor(dir: string, job: AnyJob, extra: Partial<RunSpec> = {}): RunSpec {
  return {
    job,
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output: { path: join(dir, 'a.csv'), format: 'csv' },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 1 },
    engine: { window: 16, concurrency: 2 },
    ...extra,
  };
}

/** A run over 60 rows in `dir`, stopped about halfway: its checkpoint and .partial files stay. */
async function interrupted(dir: string, extra: Partial<RunSpec>): Promise<void> {
  write(join(dir, 'in.csv'), csvInput(60));
  const controller = new AbortController();
  const fake = fakeJob({
    delay: () => 1,
    onExecute: () => {
      if (fake.executedRows.size >= 30) controller.abort();
    },
  });
  await runJob(specFor(dir, fake, { signal: controller.signal, ...extra }));
}

describe('a run over another run’s checkpoint', () => {
  it('refuses to write an output of an interrupted run, first or later, and leaves its files as they were', async () => {
    const dir = tempDir();
    const second = { moreOutputs: [{ path: join(dir, 'c.ndjson'), format: 'ndjson' as const }] };
    await interrupted(dir, second);
    const checkpoint = journalPath(join(dir, 'a.csv'));
    expect((await readJournal(checkpoint))?.committedRows).toBeGreaterThan(0);
    const partial = read(join(dir, 'a.csv.partial'));

    // The same file as a later output, fresh and with --resume; and as the report.
    const later = {
      output: { path: join(dir, 'b.ndjson'), format: 'ndjson' as const },
      moreOutputs: [{ path: join(dir, 'a.csv'), format: 'csv' as const }],
    };
    for (const extra of [
      later,
      { ...later, resume: true },
      {
        output: { path: join(dir, 'c.csv'), format: 'csv' as const },
        report: { path: join(dir, 'a.csv'), format: 'csv' as const },
      },
    ]) {
      const error = await runJob(specFor(dir, fakeJob({}), extra)).catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.code).toBe('USAGE');
      expect(isGeobatchError(error) && error.message).toBe(
        `${join(dir, 'a.csv')} belongs to an interrupted run, whose checkpoint is ${checkpoint}: this run would overwrite its unfinished output`,
      );
      expect(isGeobatchError(error) && error.context).toMatchObject({ file: checkpoint });
    }
    expect(read(join(dir, 'a.csv.partial'))).toBe(partial);

    // Its second output, which no checkpoint is named after: found by the journal that lists it.
    const other = await runJob(
      specFor(dir, fakeJob({}), { output: { path: join(dir, 'c.ndjson'), format: 'ndjson' } }),
    ).catch((e: unknown) => e);
    expect(isGeobatchError(other) && other.message).toBe(
      `${join(dir, 'c.ndjson')} belongs to an interrupted run, whose checkpoint is ${checkpoint}: this run would overwrite its unfinished output`,
    );

    // The run it belongs to resumes it.
    const resumed = await runJob(specFor(dir, fakeJob({}), { resume: true, ...second }));
    expect(resumed).toMatchObject({ ended: 'complete', rows: { written: 60 } });
  });

  it('finds it beside its own checkpoint when checkpoints are kept in a place of their own', async () => {
    const dir = tempDir();
    const kept = tempDir();
    const first = join(kept, 'first.checkpoint.json');
    await interrupted(dir, { checkpoint: { intervalMs: 1, path: first } });
    expect((await readJournal(first))?.committedRows).toBeGreaterThan(0);

    const own = { checkpoint: { intervalMs: 1, path: join(kept, 'second.checkpoint.json') } };
    const error = await runJob(specFor(dir, fakeJob({}), own)).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context).toMatchObject({ file: first });
  });
});
