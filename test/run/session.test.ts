/** Checkpoints of jobs whose rows hang together in groups: made only where a resume can start. */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { processRows } from '../../src/engine/engine.js';
import type { AnyJob } from '../../src/engine/job.js';
import { RunError } from '../../src/errors.js';
import { journalPath, readJournal } from '../../src/run/checkpoint.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import type { RowProcessor } from '../../src/run/spec.js';
import { fakeJob } from '../engine/_fake.js';
import { csvInput, memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

/** Rows in groups of 7: a resume may start only at a group's first row. */
const GROUP = 7;
const atGroupStart = (index: number) => index % GROUP === 0;

function specFor(dir: string, job: AnyJob, extra: Partial<RunSpec> = {}): RunSpec {
  return {
    job,
    jobFingerprint: 'grouped:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output: { path: join(dir, 'out.csv'), format: 'csv' },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
    // A commit is due after almost every row: only resumableAt holds it back.
    checkpoint: { intervalMs: 1 },
    engine: { window: 16, concurrency: 2 },
    ...extra,
  };
}

/** A fake job with groups of 7 that stops the run once `after` rows were sent. */
function grouped(after?: { count: number; controller: AbortController }) {
  const fake = fakeJob({
    delay: () => 1,
    onExecute: () => {
      if (after !== undefined && fake.executedRows.size >= after.count) after.controller.abort();
    },
  });
  return { ...fake, resumableAt: atGroupStart };
}

describe('session: checkpoints of grouped rows', () => {
  it('commits only at group boundaries, and resumes to the output of an uninterrupted run', async () => {
    const [dir, reference] = [tempDir(), tempDir()];
    for (const d of [dir, reference]) write(join(d, 'in.csv'), csvInput(100));
    const controller = new AbortController();
    const stopped = await runJob(
      specFor(dir, grouped({ count: 40, controller }), { signal: controller.signal }),
    );
    expect(stopped).toMatchObject({ ended: 'stopped', error: { code: 'ABORTED' } });
    const journal = await readJournal(journalPath(join(dir, 'out.csv')));
    expect(journal?.committedRows).toBeGreaterThan(0);
    expect((journal?.committedRows ?? 1) % GROUP).toBe(0);

    const resumed = grouped();
    await runJob(specFor(dir, resumed, { resume: true }));
    // The resumed run starts at a group's first row: no group is answered in two halves.
    expect(Math.min(...resumed.executedRows) % GROUP).toBe(0);
    await runJob(specFor(reference, grouped()));
    expect(read(join(dir, 'out.csv'))).toBe(read(join(reference, 'out.csv')));
  });

  it('keeps no checkpoint, and says so, when the run stops inside its first group', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(30));
    const controller = new AbortController();
    // Every row but the first is inside the group: no place to commit after row 0.
    const job = { ...grouped({ count: 10, controller }), resumableAt: (i: number) => i === 0 };
    const { logger, lines } = memoryLogger();
    await runJob(specFor(dir, job, { signal: controller.signal, logger }));
    expect(await readJournal(journalPath(join(dir, 'out.csv')))).toBeUndefined();
    // No checkpoint was made before the stop: the log does not claim one is kept.
    expect(lines().map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(
        /^Stopped inside the first group of rows, after row \d+: no group was written whole, so no row is kept/,
      ),
    );
  });
});

describe('session: a run whose rows are answered elsewhere (a distributed run)', () => {
  /** Answers no row until the run is stopped: a coordinator waiting for its first chunk. */
  const waiting: RowProcessor = async function* (_items, { signal }) {
    await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()));
    throw new RunError('ABORTED', 'stopped');
  };

  it.each([
    [true, 'kept at row 0 for --resume'],
    [false, 'dropped on a stop that holds nothing'],
  ])('has a journal at row 0 from its start, before any row comes back; work held %s: %s', async (held) => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(10));
    const controller = new AbortController();
    const path = journalPath(join(dir, 'out.csv'));
    const run = runJob(
      specFor(dir, fakeJob({}), {
        signal: controller.signal,
        process: waiting,
        workKept: () => held,
        checkpoint: { intervalMs: 60_000 },
      }),
    );
    // A kill -9 here would leave this journal: the next run is told to --resume.
    await vi.waitFor(async () => expect((await readJournal(path))?.committedRows).toBe(0));
    controller.abort();
    expect(await run).toMatchObject({ ended: 'stopped' });
    expect((await readJournal(path))?.committedRows).toBe(held ? 0 : undefined);
  });
});

describe('session: commits while the output is held back', () => {
  it('commits the rows written while it waits for the next one, as a later step of steps: makes it wait', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(10));
    const controller = new AbortController();
    // Three rows out, then nothing: a later step's partial batch, or a chunk not yet done.
    const stalling: RowProcessor = async function* (items, context) {
      for await (const outcome of processRows(items, fakeJob({}), { counters: context.counters })) {
        yield outcome;
        if (outcome.ref.index === 2) {
          await new Promise<void>((resolve) => context.signal?.addEventListener('abort', () => resolve()));
          throw new RunError('ABORTED', 'stopped');
        }
      }
    };
    const path = journalPath(join(dir, 'out.csv'));
    const run = runJob(
      specFor(dir, fakeJob({}), {
        signal: controller.signal,
        process: stalling,
        checkpoint: { intervalMs: 100 },
      }),
    );
    // Before, only a row coming out could commit: a kill -9 here paid for all three again.
    await vi.waitFor(async () => expect((await readJournal(path))?.committedRows).toBe(3), { timeout: 3000 });
    controller.abort();
    expect(await run).toMatchObject({ ended: 'stopped' });
    expect((await readJournal(path))?.committedRows).toBe(3);
    expect(read(join(dir, 'out.csv.partial')).trim().split('\n')).toHaveLength(4);
  });
});
