/**
 * The end of a run: every file sealed, the journal marked finishing, each file renamed into
 * place, the checkpoint removed. A rename refused there (a directory made at an output's path
 * meanwhile, permissions changed) leaves some files in place and the rest complete at their
 * .partial paths; the run says which and why, and --resume puts the rest in place without
 * reading or requesting anything.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { partialPath } from '../../src/output/_sink.js';
import type { OutputSpec } from '../../src/output/files.js';
import { journalPath, readJournal } from '../../src/run/checkpoint.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { fakeJob } from '../engine/_fake.js';
import { caught, csvInput, memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { openGpkg, rows } from '../output/_gpkg-read.js';

const ROWS = 200;
const STDIN = { input: { path: '-', format: 'csv' } } as const;
const FORMATS = ['csv', 'ndjson', 'geojson', 'gpkg'] as const;

/** out.csv, out.ndjson, out.geojson, out.gpkg and errors.csv from in.csv in `dir`; row 5 fails. */
function specOf(dir: string, spec: Partial<RunSpec> = {}, onExecute?: () => void) {
  const { logger, lines } = memoryLogger();
  const fake = fakeJob({
    delay: () => 1,
    omit: (key) => key === 'k5',
    ...(onExecute === undefined ? {} : { onExecute }),
  });
  const [output, ...moreOutputs] = FORMATS.map(
    (format): OutputSpec => ({ path: join(dir, `out.${format}`), format }),
  ) as [OutputSpec, ...OutputSpec[]];
  const full: RunSpec = {
    job: fake,
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output,
    moreOutputs,
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger,
    progress: { enabled: false },
    // No periodic checkpoint: the finishing journal alone must make the run resumable.
    checkpoint: { intervalMs: 600_000 },
    ...spec,
  };
  return { spec: full, fake, lines };
}

function prepared(): string {
  const dir = tempDir();
  write(join(dir, 'in.csv'), csvInput(ROWS));
  return dir;
}

/** Runs until the end, with a directory made at out.geojson while rows are requested. */
async function blocked(dir: string, spec: Partial<RunSpec> = {}) {
  const blocker = join(dir, 'out.geojson');
  const first = specOf(dir, spec, () => {
    if (!existsSync(blocker)) mkdirSync(blocker);
  });
  return { summary: await runJob(first.spec), blocker, first };
}

function gpkgFeatures(dir: string): Record<string, unknown>[] {
  const db = openGpkg(join(dir, 'out.gpkg'));
  try {
    return rows(db, 'SELECT * FROM "out" ORDER BY fid');
  } finally {
    db.close();
  }
}

describe('runJob: putting the files in place', () => {
  it('says which files are in place, which wait and why, when a rename is refused, and keeps a checkpoint', async () => {
    const dir = prepared();
    const { summary, blocker } = await blocked(dir);
    const at = (name: string) => join(dir, name);
    expect(summary).toMatchObject({
      ended: 'stopped',
      exitCode: 1,
      error: { code: 'IO_ERROR' },
      resume: { checkpoint: journalPath(at('out.csv')), next: 'resume' },
    });
    expect(describeSummary(summary)).toContain(
      `checkpoint kept: ${journalPath(at('out.csv'))}; rerun with --resume to continue`,
    );
    expect(summary.error?.message).toContain(`Renaming ${partialPath(blocker)} to ${blocker} failed: EISDIR`);
    expect(summary.error?.message).toContain(
      `in place: ${at('out.csv')}, ${at('out.ndjson')}; complete, not yet in place: ${partialPath(blocker)}, ${partialPath(at('out.gpkg'))}, ${partialPath(at('errors.csv'))}`,
    );
    expect(summary.error?.hint).toBe(
      `${blocker} is a directory: move it away, then run again with --resume: it renames the files still waiting, reading and requesting nothing.`,
    );
    expect(summary.error?.hint).not.toContain('disk space');
    expect(summary.outputs.map((output) => output.written)).toEqual([true, true, false, false]);
    expect(summary.report?.written).toBe(false);
    const journal = await readJournal(journalPath(at('out.csv')));
    expect(journal).toMatchObject({
      committedRows: ROWS,
      finishing: { outputs: FORMATS.map(() => ({ records: ROWS, unknownKeyRows: 0 })), reportRows: 1 },
    });
  });

  it('resumes to the files of an uninterrupted run, renaming only, with nothing requested again', async () => {
    const dir = prepared();
    const { summary: stopped, blocker } = await blocked(dir);
    rmdirSync(blocker);
    const resumed = specOf(dir, { resume: true });
    const summary = await runJob(resumed.spec);
    expect(resumed.fake.calls).toHaveLength(0);
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 3,
      error: null,
      rows: { read: ROWS, written: ROWS, ok: ROWS - 1, failed: 1 },
      requests: { http: stopped.requests.http },
      resume: { resumed: true, fromRow: ROWS, checkpoint: null },
      report: { rows: 1, written: true },
    });
    expect(summary.outputs.map((output) => [output.records, output.written])).toEqual(
      FORMATS.map(() => [ROWS, true]),
    );
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial') || name.endsWith('.json'))).toEqual([
      'out.csv.summary.json',
    ]);

    const reference = prepared();
    await runJob(specOf(reference).spec);
    for (const file of ['out.csv', 'out.ndjson', 'out.geojson', 'errors.csv'])
      expect(read(join(dir, file)), file).toBe(read(join(reference, file)));
    expect(gpkgFeatures(dir)).toEqual(gpkgFeatures(reference));
  });

  /** A run of standard input stopped at its renames, the blocking directory then removed. */
  async function finishingFromStdin() {
    const dir = prepared();
    const { blocker, summary } = await blocked(dir, {
      ...STDIN,
      stdin: Readable.from([Buffer.from(read(join(dir, 'in.csv')))]),
    });
    rmdirSync(blocker);
    return { dir, summary };
  }

  async function expectFinished(dir: string, stdin: Readable): Promise<string[]> {
    const resumed = specOf(dir, { ...STDIN, stdin, resume: true });
    const summary = await runJob(resumed.spec);
    expect(resumed.fake.calls).toHaveLength(0);
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      error: null,
      rows: { read: ROWS, written: ROWS, failed: 1 },
      resume: { resumed: true, fromRow: ROWS, checkpoint: null },
    });
    const reference = prepared();
    await runJob(specOf(reference).spec);
    for (const file of ['out.csv', 'out.ndjson', 'out.geojson', 'errors.csv'])
      expect(read(join(dir, file)), file).toBe(read(join(reference, file)));
    return resumed.lines().map((line) => line.msg as string);
  }

  it('resumes a run of standard input given nothing: nothing is piped again, a terminal not even read', async () => {
    const { dir, summary: stopped } = await finishingFromStdin();
    // Its closing line asks for the renames only, not for the data again.
    expect(stopped.resume.next).toBe('resume');
    expect(describeSummary(stopped)).not.toContain('standard input');
    // A terminal: a read would wait for someone to type.
    let asked = false;
    const terminal = Object.assign(
      new Readable({
        read() {
          asked = true;
          this.push(null);
        },
      }),
      { isTTY: true },
    );
    const lines = await expectFinished(dir, terminal);
    expect(asked).toBe(false);
    expect(lines).toContain(
      'The run being resumed had written every row: putting its files in place; standard input is not read',
    );
    // A nightly job that pipes nothing (< /dev/null): read, found empty, fine.
    const { dir: again } = await finishingFromStdin();
    await expectFinished(again, Readable.from([]));
  });

  it('finishes when the same rows are piped again, and refuses other or more rows rather than drop them unsaid', async () => {
    const { dir } = await finishingFromStdin();
    const rows = read(join(dir, 'in.csv'));
    await expectFinished(dir, Readable.from([Buffer.from(rows)]));
    for (const [other, received] of [
      [rows.replace('\n3,name 3\n', '\n3,name three\n'), 'other rows'],
      [
        `${rows}${csvInput(ROWS + 2)
          .split('\n')
          .slice(-3)
          .join('\n')}`,
        `${ROWS + 2} rows`,
      ],
    ] as const) {
      const { dir: next } = await finishingFromStdin();
      const journal = read(journalPath(join(next, 'out.csv')));
      const resumed = specOf(next, { ...STDIN, stdin: Readable.from([Buffer.from(other)]), resume: true });
      const error = await caught(runJob(resumed.spec));
      expect(error).toMatchObject({ code: 'CHECKPOINT_MISMATCH', context: { received } });
      expect(resumed.fake.calls).toHaveLength(0);
      // Nothing more put in place, the checkpoint kept for a resume with the right input.
      expect(existsSync(join(next, 'out.geojson'))).toBe(false);
      expect(read(journalPath(join(next, 'out.csv')))).toBe(journal);
    }
  });

  it('without resume, refuses to clobber the finishing checkpoint and says --resume puts the files in place', async () => {
    const dir = prepared();
    const { blocker } = await blocked(dir);
    rmdirSync(blocker);
    const error = await caught(runJob(specOf(dir).spec));
    expect(error).toMatchObject({ code: 'USAGE', context: { file: journalPath(join(dir, 'out.csv')) } });
    expect(error.context.hint).toMatch(
      /^Pass --resume to put its finished files in place \(nothing is read or requested\), or delete /,
    );
    // Once a finished file is gone, --resume cannot finish it: the hint does not send the user there.
    unlinkSync(partialPath(join(dir, 'out.gpkg')));
    const gone = await caught(runJob(specOf(dir).spec));
    expect(gone.context.hint).toMatch(
      /^--resume would refuse it \(.*out\.gpkg\.partial is gone and .*out\.gpkg is not the file the run finished\): delete .* to start over, or pass --resume --restart-if-changed, which does so\.$/,
    );
  });

  it('refuses a resume while the directory is still there (USAGE, before anything), checkpoint unchanged', async () => {
    const dir = prepared();
    const { blocker } = await blocked(dir);
    const path = journalPath(join(dir, 'out.csv'));
    const before = read(path);
    const resumed = specOf(dir, { resume: true });
    const error = await caught(runJob(resumed.spec));
    // Not "name a file": another output path would not resume the checkpoint.
    expect(error).toMatchObject({
      code: 'USAGE',
      message: `The output ${blocker} is an existing directory, not a file`,
      context: {
        file: blocker,
        hint: `Move ${blocker} away, then run again with --resume: the checkpoint ${path} continues the files at these paths, so another path would not resume it.`,
      },
    });
    expect(resumed.fake.calls).toHaveLength(0);
    expect(read(path)).toBe(before);
    expect(existsSync(partialPath(blocker))).toBe(true);
  });

  it('refuses to resume over a finished file removed by hand (CHECKPOINT_MISMATCH), naming it', async () => {
    const dir = prepared();
    const { blocker } = await blocked(dir);
    rmdirSync(blocker);
    unlinkSync(partialPath(join(dir, 'out.gpkg')));
    const resumed = specOf(dir, { resume: true });
    const summary = await runJob(resumed.spec);
    expect(resumed.fake.calls).toHaveLength(0);
    const checkpoint = journalPath(join(dir, 'out.csv'));
    expect(summary).toMatchObject({
      ended: 'stopped',
      exitCode: 1,
      error: {
        code: 'CHECKPOINT_MISMATCH',
        message: `${partialPath(join(dir, 'out.gpkg'))} is gone and ${join(dir, 'out.gpkg')} is not the file the run finished`,
        hint: 'The finished file was changed or removed, so the run cannot be finished: start over with --resume --restart-if-changed, or delete the checkpoint and the .partial files and run again.',
      },
      resume: { checkpoint, next: 'start-over' },
    });
    // The closing line does not send the user to a --resume that would be refused again.
    const closing = describeSummary(summary);
    expect(closing).toContain(
      `checkpoint kept: ${checkpoint}, but --resume cannot finish it (a finished file was changed or removed): run with --resume --restart-if-changed to start over from the first row`,
    );
    expect(closing).not.toContain('rerun with --resume');
    // What could be put in place was, before the file that is gone.
    expect(existsSync(join(dir, 'out.geojson'))).toBe(true);
    expect(existsSync(checkpoint)).toBe(true);
  });

  it('with restartIfChanged, starts over from a finishing checkpoint whose finished file was removed', async () => {
    const dir = prepared();
    const { blocker } = await blocked(dir);
    rmdirSync(blocker);
    unlinkSync(partialPath(join(dir, 'out.gpkg')));
    const restarted = specOf(dir, { resume: true, restartIfChanged: true });
    const summary = await runJob(restarted.spec);
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      error: null,
      resume: { resumed: false, fromRow: 0, checkpoint: null, next: null },
    });
    expect(restarted.fake.calls.length).toBeGreaterThan(0);
    const warning = restarted.lines().find((line) => String(line.msg).includes('--restart-if-changed'));
    expect(warning?.msg).toBe(
      `${partialPath(join(dir, 'out.gpkg'))} is gone and ${join(dir, 'out.gpkg')} is not the file the run finished: starting over from the first row (--restart-if-changed); the checkpoint and the .partial files of this run's outputs and error report are deleted`,
    );
    const reference = prepared();
    await runJob(specOf(reference).spec);
    for (const file of ['out.csv', 'out.ndjson', 'out.geojson', 'errors.csv'])
      expect(read(join(dir, file)), file).toBe(read(join(reference, file)));
    expect(gpkgFeatures(dir)).toEqual(gpkgFeatures(reference));
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial') || name.endsWith('.json'))).toEqual([
      'out.csv.summary.json',
    ]);
  });

  it('without a checkpoint, keeps the finished files and says how to rename them, not to resume', async () => {
    const dir = prepared();
    const { summary, blocker } = await blocked(dir, { checkpoint: { enabled: false } });
    expect(summary).toMatchObject({
      ended: 'stopped',
      error: { code: 'IO_ERROR' },
      resume: { checkpoint: null },
    });
    const waiting = [blocker, join(dir, 'out.gpkg'), join(dir, 'errors.csv')];
    expect(summary.error?.hint).toBe(
      `${blocker} is a directory: move it away, then rename each file still waiting over its target (${waiting
        .map((file) => `mv ${partialPath(file)} ${file}`)
        .join('; ')}).`,
    );
    for (const file of waiting) expect(existsSync(partialPath(file)), file).toBe(true);
  });

  it('writes the finishing checkpoint before the first rename: a journal refused leaves no file renamed', async () => {
    const dir = prepared();
    const journal = join(dir, 'missing', 'journal.json');
    const summary = await runJob({ ...specOf(dir).spec, checkpoint: { path: journal } });
    expect(summary.error).toMatchObject({ code: 'IO_ERROR' });
    expect(summary.error?.message).toContain(journal);
    for (const format of FORMATS) expect(existsSync(join(dir, `out.${format}`)), format).toBe(false);
  });
});
