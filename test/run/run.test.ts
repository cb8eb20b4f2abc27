import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PassThrough, Readable } from 'node:stream';
import { check } from '@placemarkio/check-geojson';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { isGeobatchError, ServiceError } from '../../src/errors.js';
import type { InputFormat } from '../../src/input/reader.js';
import { partialPath } from '../../src/output/_sink.js';
import type { OutputFormat } from '../../src/output/writer.js';
import { journalPath, readJournal } from '../../src/run/checkpoint.js';
import { acquireLock, lockPath } from '../../src/run/lock.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { type FakeJobOptions, fakeJob } from '../engine/_fake.js';
import {
  csvInput,
  geojsonInput,
  memoryLogger,
  ndjsonInput,
  read,
  tempDir,
  write,
} from '../fixtures/run-helpers.js';

const INPUTS: Record<InputFormat, (count: number, bad: ReadonlySet<number>) => string> = {
  csv: csvInput,
  ndjson: ndjsonInput,
  geojson: geojsonInput,
};

interface Setup {
  dir: string;
  inputFormat?: InputFormat;
  outputFormat?: OutputFormat;
  job?: FakeJobOptions;
  spec?: Partial<RunSpec>;
}

/** A spec over files in `dir`: in.<format>, out.<format>, errors.csv. */
function specFor({ dir, inputFormat = 'csv', outputFormat = 'csv', job = {}, spec = {} }: Setup) {
  const { logger, lines } = memoryLogger();
  const fake = fakeJob(job);
  const full: RunSpec = {
    job: fake,
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, `in.${inputFormat}`), format: inputFormat },
    output: { path: join(dir, `out.${outputFormat}`), format: outputFormat },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 10 },
    ...spec,
  };
  return { spec: full, fake, lines };
}

/** Each output record as [status, error, id] in file order. */
function outputRows(path: string, format: OutputFormat): [string, string, string][] {
  const text = read(path);
  const objects: Record<string, unknown>[] =
    format === 'csv'
      ? parse(text, { columns: true })
      : format === 'ndjson'
        ? text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l))
        : (check(text) as GeoJSON.FeatureCollection).features.map((f) => f.properties ?? {});
  return objects.map((o) => [String(o.geobatch_status), String(o.geobatch_error), String(o.id ?? '')]);
}

function reportRows(path: string): number[] {
  return (parse(read(path), { columns: true }) as Record<string, string>[]).map((r) =>
    Number(r.geobatch_row),
  );
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('runJob: row accounting', () => {
  it.each(['csv', 'ndjson', 'geojson'] as const)(
    'accounts for every %s row: in input order in the output, ok or listed in the report',
    async (format) => {
      const dir = tempDir();
      const badInput = new Set([3, 11, 12, 29]);
      write(join(dir, `in.${format}`), INPUTS[format](30, badInput));
      const { spec } = specFor({
        dir,
        inputFormat: format,
        job: {
          keys: (row) =>
            row.ref.index === 5 ? { code: 'FIELD_MISSING', message: 'no street' } : [`k${row.ref.index}`],
          omit: (key) => key === 'k20',
        },
      });
      const summary = await runJob(spec);
      const failed = [3, 5, 11, 12, 20, 29];
      const rows = outputRows(spec.output.path, 'csv');
      expect(rows.map(([status]) => status)).toEqual(
        range(30).map((i) => (failed.includes(i) ? 'failed' : 'ok')),
      );
      // Where a row's fields could be read, its id shows it is in its place.
      for (const [i, [, , id]] of rows.entries()) if (id !== '') expect(Number(id)).toBe(i);
      expect(rows.map(([, error]) => error).filter(Boolean)).toEqual([
        'INPUT_MALFORMED',
        'FIELD_MISSING',
        'INPUT_MALFORMED',
        'INPUT_MALFORMED',
        'INTERNAL',
        'INPUT_MALFORMED',
      ]);
      expect(reportRows(join(dir, 'errors.csv'))).toEqual(failed.map((i) => i + 1));
      expect(summary).toMatchObject({
        ended: 'complete_with_failures',
        exitCode: 3,
        rows: { read: 30, written: 30, ok: 24, failed: 6 },
        report: { rows: 6 },
      });
    },
  );

  it('ends complete with exit code 0 when every row is ok, leaving no checkpoint, lock or partial file', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(5));
    const { spec } = specFor({ dir });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'complete', exitCode: 0, error: null });
    const out = spec.output.path;
    for (const leftover of [
      journalPath(out),
      lockPath(out),
      partialPath(out),
      partialPath(join(dir, 'errors.csv')),
    ]) {
      expect(existsSync(leftover)).toBe(false);
    }
    expect(JSON.parse(read(`${out}.summary.json`))).toMatchObject({ ended: 'complete', rows: { ok: 5 } });
  });
});

/** Runs `spec` and aborts it once the job has been asked for `after` rows; the run ends stopped. */
async function interrupted(setup: Setup, after: number) {
  const controller = new AbortController();
  const { spec } = specFor({
    ...setup,
    job: {
      ...setup.job,
      delay: () => 1,
      onExecute: () => {
        if (fake.executedRows.size >= after) controller.abort();
      },
    },
    spec: { ...setup.spec, signal: controller.signal, engine: { window: 32, concurrency: 4 } },
  });
  const fake = spec.job as ReturnType<typeof fakeJob>;
  return { summary: await runJob(spec), spec };
}

function prepare(format: OutputFormat) {
  const dirs = [tempDir(), tempDir()];
  for (const dir of dirs) write(join(dir, 'in.csv'), csvInput(300, new Set([7, 150, 151, 299])));
  const job: FakeJobOptions = { omit: (key) => key === 'k42' || key === 'k210' };
  return { dirs, job, setup: (dir: string): Setup => ({ dir, outputFormat: format, job }) };
}

async function uninterrupted(setup: Setup) {
  const { spec } = specFor(setup);
  await runJob(spec);
  return { output: read(spec.output.path), report: read(join(setup.dir, 'errors.csv')) };
}

describe('runJob: a job column an input column shares its name with', () => {
  const REPLACED = 'Job column(s) value replace the input column(s) of the same name';
  const replaced = (lines: () => Record<string, unknown>[]) =>
    lines().filter((line) => line.msg === REPLACED);

  it.each(['csv', 'ndjson', 'geojson', 'gpkg'] as const)(
    'warns in a %s output as in a CSV one, and writes this run’s value',
    async (format) => {
      const dir = tempDir();
      write(join(dir, 'in.csv'), 'id,value\n0,old\n1,old\n');
      const { spec, lines } = specFor({ dir, outputFormat: format });
      await runJob(spec);
      expect(replaced(lines)).toHaveLength(1);
      if (format === 'ndjson') expect(read(spec.output.path)).not.toContain('"old"');
    },
  );

  it('warns of a later NDJSON record that has the column, which a JSON output writes replaced', async () => {
    const dir = tempDir();
    write(join(dir, 'in.ndjson'), '{"id":"0"}\n{"id":"1","value":"old"}\n{"id":"2","value":"old"}\n');
    const { spec, lines } = specFor({ dir, inputFormat: 'ndjson', outputFormat: 'ndjson' });
    await runJob(spec);
    expect(replaced(lines)).toHaveLength(1);
    expect(read(spec.output.path)).not.toContain('"old"');
  });

  it('warns once for several outputs, and not at all when no name is shared', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), 'id,value\n0,old\n');
    const both = specFor({ dir, outputFormat: 'geojson' });
    await runJob({ ...both.spec, moreOutputs: [{ path: join(dir, 'also.csv'), format: 'csv' }] });
    expect(replaced(both.lines)).toHaveLength(1);
    write(join(dir, 'in.csv'), 'id,other\n0,old\n');
    const none = specFor({ dir, outputFormat: 'geojson' });
    await runJob({ ...none.spec, output: { path: join(dir, 'none.geojson'), format: 'geojson' } });
    expect(none.lines().some((line) => String(line.msg).includes('replace the input column'))).toBe(false);
  });
});

describe('runJob: checkpoint and resume', () => {
  it.each(['csv', 'ndjson', 'geojson'] as const)(
    'resumes an aborted run to %s output and report byte-identical to an uninterrupted run',
    async (format) => {
      const { dirs, setup } = prepare(format);
      const [dir, reference] = dirs as [string, string];
      const first = await interrupted(setup(dir), 120);
      expect(first.summary).toMatchObject({ ended: 'stopped', exitCode: 1, error: { code: 'ABORTED' } });
      const journal = await readJournal(journalPath(first.spec.output.path));
      expect(journal?.committedRows).toBeGreaterThan(0);
      expect(journal?.committedRows).toBeLessThan(300);
      expect(existsSync(first.spec.output.path)).toBe(false);

      const { spec, fake } = specFor({ ...setup(dir), spec: { resume: true } });
      const summary = await runJob(spec);
      expect(Math.min(...fake.executedRows)).toBeGreaterThanOrEqual(journal?.committedRows ?? 0);
      expect(summary).toMatchObject({
        ended: 'complete_with_failures',
        rows: { written: 300, ok: 294, failed: 6 },
        resume: { resumed: true, fromRow: journal?.committedRows },
      });
      const expected = await uninterrupted(setup(reference));
      expect(read(spec.output.path)).toBe(expected.output);
      expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
      expect(existsSync(journalPath(spec.output.path))).toBe(false);
    },
  );

  it('writes a CSV byte order mark once, before the header, through a resume', async () => {
    const { dirs, job } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    const setup = (at: string): Setup => ({
      dir: at,
      job,
      spec: { output: { path: join(at, 'out.csv'), format: 'csv', bom: true, delimiter: ';' } },
    });
    await interrupted(setup(dir), 120);
    const { spec } = specFor({ ...setup(dir), spec: { ...setup(dir).spec, resume: true } });
    await runJob(spec);
    const expected = await uninterrupted(setup(reference));
    const bytes = readFileSync(spec.output.path);
    const mark = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(0, 3).equals(mark)).toBe(true);
    expect(bytes.indexOf(mark, 3)).toBe(-1);
    expect(read(spec.output.path)).toBe(expected.output);
    expect(expected.output.startsWith('\uFEFFid;')).toBe(true);
  });

  it('cuts off what a killed run wrote after its last checkpoint and resumes byte-identical', async () => {
    const { dirs, setup } = prepare('geojson');
    const [dir, reference] = dirs as [string, string];
    const first = await interrupted(setup(dir), 100);
    const out = first.spec.output.path;
    // As after kill -9: half-written records beyond the journal's offsets.
    write(partialPath(out), `${read(partialPath(out))},\n{"type":"Feature","geometry":nu`);
    write(partialPath(join(dir, 'errors.csv')), `${read(partialPath(join(dir, 'errors.csv')))}999,1,fake,in`);
    const { spec } = specFor({ ...setup(dir), spec: { resume: true } });
    await runJob(spec);
    const expected = await uninterrupted(setup(reference));
    expect(read(out)).toBe(expected.output);
    expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
  });

  it('refuses to start over a checkpoint without resume, naming the files to delete', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    await interrupted(setup(dir), 50);
    const error = await runJob(specFor(setup(dir)).spec).catch((e: unknown) => e);
    const at = (name: string) => join(dir, name);
    expect(error).toMatchObject({
      code: 'USAGE',
      message: `An interrupted run of this job left a checkpoint: ${journalPath(at('out.csv'))}`,
      context: {
        hint: `Pass --resume to continue it, or delete ${journalPath(at('out.csv'))}, ${at('out.csv.partial')}, ${at('errors.csv.partial')} to start over.`,
      },
    });
  });

  it('without resume, does not send to --resume a checkpoint that --resume would refuse, and says so', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    await interrupted(setup(dir), 50);
    const checkpoint = journalPath(join(dir, 'out.csv'));
    const files = [checkpoint, join(dir, 'out.csv.partial'), join(dir, 'errors.csv.partial')].join(', ');
    const otherJob = await runJob(specFor({ ...setup(dir), spec: { jobFingerprint: 'fake:v2' } }).spec).catch(
      (e: unknown) => e,
    );
    expect(otherJob).toMatchObject({ code: 'USAGE', context: { file: checkpoint } });
    // Not "of this job": it may be another job's, which --restart-if-changed would throw away.
    expect(isGeobatchError(otherJob) && otherJob.message).toBe(
      `An interrupted run left a checkpoint: ${checkpoint}`,
    );
    expect(isGeobatchError(otherJob) && otherJob.context.hint).toBe(
      `--resume would refuse it (Checkpoint ${checkpoint} was made with other settings: another job (kind, mapping, options, input settings) or other outputs (-o, -e, outputs:) or another row selection (--limit, --sample)): delete ${files} to start over, or pass --resume --restart-if-changed, which does so.`,
    );
    // A .partial file removed since: --resume finds it gone, so it is not the advice.
    const moved = `${partialPath(join(dir, 'out.csv'))}.moved`;
    renameSync(partialPath(join(dir, 'out.csv')), moved);
    const gone = await runJob(specFor(setup(dir)).spec).catch((e: unknown) => e);
    expect(isGeobatchError(gone) && gone.context.hint).toMatch(
      /^--resume would refuse it \(.*out\.csv\.partial is gone, though the checkpoint holds \d+ bytes of it\): delete /,
    );
    renameSync(moved, partialPath(join(dir, 'out.csv')));
    // The next night's file.
    write(join(dir, 'in.csv'), csvInput(301));
    const otherInput = await runJob(specFor(setup(dir)).spec).catch((e: unknown) => e);
    expect(isGeobatchError(otherInput) && otherInput.context.hint).toMatch(
      /^--resume would refuse it \(Checkpoint .* was made from other input, or the input changed\): delete .* to start over, or pass --resume --restart-if-changed, which does so\.$/,
    );
  });

  it('refuses to resume with another job or a changed input (CHECKPOINT_MISMATCH)', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    await interrupted(setup(dir), 50);
    const otherJob = specFor({ ...setup(dir), spec: { resume: true, jobFingerprint: 'fake:v2' } });
    const jobError = await runJob(otherJob.spec).catch((e: unknown) => e);
    expect(isGeobatchError(jobError) && jobError.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(jobError) && jobError.context).toMatchObject({
      expected: 'fake:v1',
      received: 'fake:v2',
    });
    expect(isGeobatchError(jobError) && jobError.message).toMatch(
      /was made with other settings: .*other outputs \(-o, -e, outputs:\) or another row selection \(--limit, --sample\)$/,
    );
    write(join(dir, 'in.csv'), csvInput(301));
    const inputError = await runJob(specFor({ ...setup(dir), spec: { resume: true } }).spec).catch(
      (e: unknown) => e,
    );
    expect(isGeobatchError(inputError) && inputError.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(inputError) && inputError.context.hint).toMatch(/delete/);
    expect(otherJob.fake.calls).toHaveLength(0);
  });

  it('says, for an input of the same size modified since, that the time is what differs', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    await interrupted(setup(dir), 50);
    const input = join(dir, 'in.csv');
    const before = statSync(input).mtime;
    // The same bytes written again: a new modification time.
    write(input, readFileSync(input, 'utf8'));
    utimesSync(input, before, new Date(before.getTime() + 60_000));
    const error = await runJob(specFor({ ...setup(dir), spec: { resume: true } }).spec).catch(
      (e: unknown) => e,
    );
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context.hint).toMatch(
      /^The input has the size it had, but was modified since \(.*\): a resume compares size and modification time, not the bytes, so a file written again with the same content counts as changed\. Resume with the job and input that made it/,
    );
    // Another size: the usual hint alone.
    write(input, csvInput(301));
    const other = await runJob(specFor({ ...setup(dir), spec: { resume: true } }).spec).catch(
      (e: unknown) => e,
    );
    expect(isGeobatchError(other) && other.context.hint).toMatch(
      /^Resume with the job and input that made it/,
    );
  });

  it('with restartIfChanged, starts over from a checkpoint of other input, deleting it, and writes what a fresh run writes', async () => {
    const { dirs, setup } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    await interrupted(setup(dir), 50);
    // The next night's file.
    for (const at of [dir, reference]) write(join(at, 'in.csv'), csvInput(301, new Set([7, 150])));
    const { spec, fake, lines } = specFor({ ...setup(dir), spec: { resume: true, restartIfChanged: true } });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      resume: { resumed: false, fromRow: 0 },
    });
    expect(Math.min(...fake.executedRows)).toBe(0);
    const warning = lines().find((line) => String(line.msg).includes('--restart-if-changed'));
    expect(warning?.msg).toMatch(
      /^Checkpoint .*out\.csv\.checkpoint\.json was made from other input, or the input changed: starting over from the first row \(--restart-if-changed\); the checkpoint and the \.partial files of this run's outputs and error report are deleted$/,
    );
    const expected = await uninterrupted(setup(reference));
    expect(read(spec.output.path)).toBe(expected.output);
    expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
    expect(existsSync(journalPath(spec.output.path))).toBe(false);
  });

  it('with restartIfChanged, starts over from a checkpoint that cannot be read, which --resume alone refuses', async () => {
    const { dirs, setup } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    await interrupted(setup(dir), 50);
    const output = join(dir, 'out.csv');
    const journal = journalPath(output);
    // Cut short, as a disk failing under it leaves it.
    write(journal, read(journal).slice(0, 40));
    const refused = await runJob(specFor({ ...setup(dir), spec: { resume: true } }).spec).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
      context: {
        file: journal,
        hint: `Run with --resume --restart-if-changed to start over from the first row (it deletes ${journal} and the .partial files beside it), or delete them yourself.`,
      },
    });
    expect(existsSync(partialPath(output))).toBe(true);
    const { spec, fake, lines } = specFor({ ...setup(dir), spec: { resume: true, restartIfChanged: true } });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      resume: { resumed: false, fromRow: 0 },
    });
    expect(Math.min(...fake.executedRows)).toBe(0);
    const warning = lines().find((line) => String(line.msg).includes('--restart-if-changed'));
    expect(String(warning?.msg)).toMatch(/: starting over from the first row \(--restart-if-changed\)/);
    expect(String(warning?.msg).startsWith(`Checkpoint ${journal} cannot be read: `)).toBe(true);
    const expected = await uninterrupted(setup(reference));
    expect(read(output)).toBe(expected.output);
    expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
    expect(existsSync(journal)).toBe(false);
  });

  it.each(['a file', 'standard input'] as const)(
    'with restartIfChanged, starts over from %s when a .partial file the checkpoint continues was removed, which --resume alone refuses',
    async (from) => {
      const { dirs, setup } = prepare('csv');
      const [dir, reference] = dirs as [string, string];
      const text = read(join(dir, 'in.csv'));
      const input = (extra: Partial<RunSpec>): Setup => ({
        ...setup(dir),
        spec: {
          ...extra,
          ...(from === 'a file'
            ? {}
            : { input: { path: '-', format: 'csv' }, stdin: Readable.from([Buffer.from(text)]) }),
        },
      });
      await interrupted(input({}), 50);
      const output = join(dir, 'out.csv');
      rmSync(partialPath(output));
      const refused = await runJob(specFor(input({ resume: true })).spec).catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'CHECKPOINT_MISMATCH',
        context: {
          file: partialPath(output),
          received: 'no file',
          hint: 'The partial output was changed or removed: start over with --resume --restart-if-changed, or delete the checkpoint and run again.',
        },
      });
      const { spec, fake, lines } = specFor(input({ resume: true, restartIfChanged: true }));
      const summary = await runJob(spec);
      expect(summary).toMatchObject({
        ended: 'complete_with_failures',
        resume: { resumed: false, fromRow: 0 },
      });
      expect(Math.min(...fake.executedRows)).toBe(0);
      const warning = lines().find((line) => String(line.msg).includes('--restart-if-changed'));
      expect(warning?.msg).toMatch(
        /out\.csv\.partial is gone, though the checkpoint holds \d+ bytes of it: starting over from the first row \(--restart-if-changed\)/,
      );
      const expected = await uninterrupted(setup(reference));
      expect(read(output)).toBe(expected.output);
      expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
      expect(existsSync(journalPath(output))).toBe(false);
    },
  );

  it('with restartIfChanged, tells the request cache that the run starts over, and only then', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    await interrupted(setup(dir), 50);
    let restarts = 0;
    const cache = {
      flush: async () => {},
      summary: () => ({}) as never,
      restarted: () => {
        restarts++;
      },
    };
    // The same input: resumed, the cache keeps the checkpoint's start.
    const resumed = specFor({ ...setup(dir), spec: { resume: true, restartIfChanged: true, cache } });
    expect((await runJob(resumed.spec)).resume).toMatchObject({ resumed: true });
    expect(restarts).toBe(0);
    // The next night's file: a refresh must take nothing the set-aside session bought.
    await interrupted(setup(dir), 50);
    write(join(dir, 'in.csv'), csvInput(301, new Set([7, 150])));
    const { spec } = specFor({ ...setup(dir), spec: { resume: true, restartIfChanged: true, cache } });
    await runJob(spec);
    expect(restarts).toBe(1);
  });

  it('refuses restartIfChanged without resume, where it would do nothing', async () => {
    const { dirs, setup } = prepare('csv');
    const { spec, fake } = specFor({ ...setup(dirs[0] as string), spec: { restartIfChanged: true } });
    const error = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe('--restart-if-changed: only applies with --resume');
    expect(isGeobatchError(error) && error.context.field).toBe('restartIfChanged');
    expect(fake.calls).toHaveLength(0);
  });

  it('with restartIfChanged, still resumes a checkpoint of the same job and input', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    await interrupted(setup(dir), 120);
    const journal = await readJournal(journalPath(join(dir, 'out.csv')));
    const { spec } = specFor({ ...setup(dir), spec: { resume: true, restartIfChanged: true } });
    const summary = await runJob(spec);
    expect(summary.resume).toMatchObject({ resumed: true, fromRow: journal?.committedRows });
  });

  it('starts from the first row when asked to resume without a checkpoint', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(10));
    const { spec, lines } = specFor({ dir, spec: { resume: true } });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'complete', rows: { written: 10 }, resume: { resumed: false } });
    expect(lines().some((l) => String(l.msg).includes('No checkpoint found'))).toBe(true);
  });

  it('stops with IO_ERROR when the checkpoint cannot be written, leaving the last good one in place', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    const first = await interrupted(setup(dir), 60);
    const path = journalPath(first.spec.output.path);
    const before = read(path);
    symlinkSync('/dev/full', `${path}.tmp`);
    const { spec } = specFor({
      ...setup(dir),
      job: { ...setup(dir).job, delay: () => 2 },
      spec: { resume: true, checkpoint: { intervalMs: 1 }, engine: { concurrency: 1 } },
    });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'stopped', exitCode: 1, error: { code: 'IO_ERROR' } });
    expect(read(path)).toBe(before);
    // The temporary journal is not left behind to take space.
    expect(existsSync(`${path}.tmp`)).toBe(false);
    const done = await runJob(specFor({ ...setup(dir), spec: { resume: true } }).spec);
    expect(done.ended).toBe('complete_with_failures');
  });

  it('stops with IO_ERROR naming the file and ENOSPC when the disk is full, leaving nothing that blocks a fresh run', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(5000));
    const { spec } = specFor({ dir });
    symlinkSync('/dev/full', partialPath(spec.output.path));
    const summary = await runJob(spec);
    expect(summary).toMatchObject({
      ended: 'stopped',
      exitCode: 1,
      error: { code: 'IO_ERROR', hint: 'Check free disk space and permissions.' },
      output: { written: false },
      report: { written: false },
      resume: { checkpoint: null },
      summaryFile: `${spec.output.path}.summary.json`,
    });
    expect(summary.error?.message).toContain(`Writing ${partialPath(spec.output.path)} failed: ENOSPC`);
    // No row was durable: no checkpoint, no lock, no partial file.
    expect(readdirSync(dir).sort()).toEqual(['in.csv', 'out.csv.report.html', 'out.csv.summary.json']);
    const again = await runJob(specFor({ dir }).spec);
    expect(again).toMatchObject({ ended: 'complete', rows: { written: 5000 } });
  });

  it('does not claim a checkpoint kept when the output directory was removed under the run', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(400));
    const out = join(dir, 'out');
    const { spec, fake } = specFor({
      dir,
      job: {
        delay: () => 2,
        onExecute: () => {
          if (fake.executedRows.size === 200) rmSync(out, { recursive: true, force: true });
        },
      },
      spec: {
        output: { path: join(out, 'x.csv'), format: 'csv' },
        report: { path: join(out, 'x.errors.csv'), format: 'csv' },
      },
    });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({
      ended: 'stopped',
      error: { code: 'IO_ERROR' },
      resume: { checkpoint: null },
    });
    expect(summary.error?.hint).not.toMatch(/still in place|--resume/);
    expect(existsSync(out)).toBe(false);
  });

  it('keeps the checkpoint of an interrupted run, names no file as written and releases the lock', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    const first = await interrupted(setup(dir), 60);
    expect(first.summary).toMatchObject({
      ended: 'stopped',
      output: { written: false },
      report: { written: false },
      resume: { checkpoint: journalPath(first.spec.output.path) },
    });
    expect(existsSync(lockPath(first.spec.output.path))).toBe(false);
  });

  it('leaves no checkpoint and no partial file when a fatal error stops a run before any row is committed', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(50));
    const rejected = new ServiceError('AUTH_REJECTED', 'the key was rejected');
    const { spec } = specFor({ dir, job: { fail: () => rejected } });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({
      ended: 'stopped',
      exitCode: 1,
      error: { code: 'AUTH_REJECTED' },
      resume: { checkpoint: null },
    });
    expect(readdirSync(dir).sort()).toEqual(['in.csv', 'out.csv.report.html', 'out.csv.summary.json']);
    // The key fixed, a plain run (no --resume) starts.
    const fixed = await runJob(specFor({ dir }).spec);
    expect(fixed).toMatchObject({ ended: 'complete', rows: { written: 50 } });
  });

  it('does not tell to resume a run interrupted before any row was committed', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(20));
    const controller = new AbortController();
    const { spec } = specFor({
      dir,
      job: { delay: () => 5, onExecute: () => controller.abort() },
      spec: { signal: controller.signal },
    });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({
      ended: 'stopped',
      error: { code: 'ABORTED' },
      resume: { checkpoint: null },
    });
    expect(summary.error?.hint).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(['in.csv', 'out.csv.report.html', 'out.csv.summary.json']);
  });

  it('adds up the HTTP requests of every session of a resumed run', async () => {
    const { dirs, setup } = prepare('csv');
    const dir = dirs[0] as string;
    const sent = { first: 0, second: 0 };
    const controller = new AbortController();
    const first = specFor({
      ...setup(dir),
      job: {
        ...setup(dir).job,
        delay: () => 1,
        onExecute: () => {
          sent.first++;
          if (sent.first >= 80) controller.abort();
        },
      },
      spec: {
        signal: controller.signal,
        engine: { window: 32, concurrency: 4 },
        metrics: () => ({ requests: { total: sent.first } }),
      },
    });
    const stopped = await runJob(first.spec);
    expect(stopped.requests.http).toBe(sent.first);
    const second = specFor({
      ...setup(dir),
      job: { ...setup(dir).job, onExecute: () => sent.second++ },
      spec: { resume: true, metrics: () => ({ requests: { total: sent.second } }) },
    });
    const summary = await runJob(second.spec);
    expect(sent.second).toBeGreaterThan(0);
    expect(summary.requests.http).toBe(sent.first + sent.second);
  });
});

describe('runJob: resuming standard input', () => {
  /** A spec reading `text` from standard input (a stream: what a pipe gives). */
  const fromStdin = (setup: Setup, text: string): Setup => ({
    ...setup,
    spec: { ...setup.spec, input: { path: '-', format: 'csv' }, stdin: Readable.from([Buffer.from(text)]) },
  });

  it('stops on input whose committed rows differ or that ends before them, keeping the checkpoint, and resumes the same rows', async () => {
    const { dirs, setup } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    const text = csvInput(300, new Set([7, 150, 151, 299]));
    const first = await interrupted(fromStdin(setup(dir), text), 120);
    const path = journalPath(first.spec.output.path);
    const journal = await readJournal(path);
    const committed = journal?.committedRows ?? 0;
    expect(committed).toBeGreaterThan(10);
    expect(journal?.input).toEqual({ path: '-', size: null, mtimeMs: null });
    expect(journal?.committedDigest).toMatch(/^[0-9a-f]{16}$/);
    const kept = { journal: read(path), output: read(partialPath(first.spec.output.path)) };

    // One committed row changed, its length kept: no size could tell.
    const changed = text.replace('\n5,name 5\n', '\n5,name X\n');
    expect(changed).not.toBe(text);
    const other = specFor(fromStdin({ ...setup(dir), spec: { resume: true } }, changed));
    const refused = await runJob(other.spec);
    expect(refused).toMatchObject({
      ended: 'stopped',
      exitCode: 1,
      error: {
        code: 'CHECKPOINT_MISMATCH',
        message: `Checkpoint ${path} was made from other input: the first ${committed} rows of standard input are not the rows it wrote`,
      },
      resume: { resumed: true, checkpoint: path, next: 'resume-same-input' },
    });
    // Not a bare "rerun with --resume": other data would be refused again.
    expect(describeSummary(refused)).toContain(
      `checkpoint kept: ${path}; it goes on only from the rows it was made from: rerun with --resume giving them on standard input again, or delete it and the .partial files to start over`,
    );
    expect(other.fake.calls).toHaveLength(0);

    const short = text.split('\n').slice(0, 6).join('\n');
    const shorter = specFor(fromStdin({ ...setup(dir), spec: { resume: true } }, `${short}\n`));
    expect((await runJob(shorter.spec)).error?.message).toMatch(/standard input ended after 5 rows/);
    // Nothing was sent, and the checkpoint and what it holds are as they were.
    expect(shorter.fake.calls).toHaveLength(0);
    expect(read(path)).toBe(kept.journal);
    expect(read(partialPath(first.spec.output.path))).toBe(kept.output);

    const { spec, fake, lines } = specFor(fromStdin({ ...setup(dir), spec: { resume: true } }, text));
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ rows: { written: 300 }, resume: { resumed: true, fromRow: committed } });
    expect(Math.min(...fake.executedRows)).toBeGreaterThanOrEqual(committed);
    expect(lines().some((l) => String(l.msg).includes('the same data must be piped again'))).toBe(false);
    const expected = await uninterrupted(setup(reference));
    expect(read(spec.output.path)).toBe(expected.output);
    expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
  });

  it('resumes a second interruption from the digest the first resume carried on', async () => {
    const { dirs, setup } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    const text = csvInput(300, new Set([7, 150, 151, 299]));
    await interrupted(fromStdin(setup(dir), text), 80);
    const first = (await readJournal(journalPath(join(dir, 'out.csv'))))?.committedRows ?? 0;
    await interrupted(fromStdin({ ...setup(dir), spec: { resume: true } }, text), 200);
    const second = (await readJournal(journalPath(join(dir, 'out.csv'))))?.committedRows ?? 0;
    expect(second).toBeGreaterThan(first);
    const { spec } = specFor(fromStdin({ ...setup(dir), spec: { resume: true } }, text));
    expect(await runJob(spec)).toMatchObject({ rows: { written: 300 }, resume: { fromRow: second } });
    expect(read(spec.output.path)).toBe((await uninterrupted(setup(reference))).output);
  });

  it("keeps the journal's digest when a resume is stopped while it reads the committed rows again", async () => {
    const { dirs, setup } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    const text = csvInput(300, new Set([7, 150, 151, 299]));
    await interrupted(fromStdin(setup(dir), text), 120);
    const path = journalPath(join(dir, 'out.csv'));
    const before = await readJournal(path);
    // A producer that has sent a few of the committed rows and then waits: the stop comes there.
    const stdin = new PassThrough();
    stdin.write(text.split('\n').slice(0, 6).join('\n'));
    const stop = new AbortController();
    const { spec, fake } = specFor({
      ...setup(dir),
      spec: { resume: true, input: { path: '-', format: 'csv' }, stdin, signal: stop.signal },
    });
    const running = runJob(spec);
    // Wherever the stop falls (opening, or skipping the rows read), it is before the check.
    while (stdin.readableLength > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    const stopped = await running;
    expect(stopped).toMatchObject({
      ended: 'stopped',
      error: { code: 'ABORTED' },
      resume: { checkpoint: path, next: 'resume-same-input' },
    });
    expect(describeSummary(stopped)).toContain(
      `checkpoint kept: ${path}; rerun with --resume, giving the same data on standard input again, to continue`,
    );
    expect(fake.calls).toHaveLength(0);
    const after = await readJournal(path);
    expect(after?.committedRows).toBe(before?.committedRows);
    expect(after?.committedDigest).toBe(before?.committedDigest);
    const resumed = specFor(fromStdin({ ...setup(dir), spec: { resume: true } }, text));
    expect(await runJob(resumed.spec)).toMatchObject({ rows: { written: 300 } });
    expect(read(resumed.spec.output.path)).toBe((await uninterrupted(setup(reference))).output);
  });
});

describe('runJob: inputs without data rows', () => {
  it.each([
    ['0 bytes', '', 'is empty (0 bytes)'],
    ['only a header', 'id,name\n', 'has no data rows'],
  ])('ends `empty` with exit status 4 for an input of %s, and says so', async (_what, text, message) => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), text);
    const { spec } = specFor({ dir });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'empty', exitCode: 4, error: { code: 'INPUT_EMPTY' } });
    expect(summary.error?.message).toBe(`The input ${join(dir, 'in.csv')} ${message}`);
    const dry = await runJob(specFor({ dir, spec: { dryRun: true } }).spec);
    expect(dry).toMatchObject({ ended: 'empty', exitCode: 4 });
  });
});

describe('runJob: usage', () => {
  it.each([
    ['output', (dir: string) => join(dir, 'out.csv'), 'out.csv/result.csv'],
    ['error report', (dir: string) => join(dir, 'errors.csv'), 'errors.csv/errors.csv'],
  ])(
    'refuses an %s that is an existing directory before any request, naming it',
    async (role, target, hint) => {
      const dir = tempDir();
      write(join(dir, 'in.csv'), csvInput(3));
      mkdirSync(target(dir));
      const { spec, fake } = specFor({ dir });
      const error = await runJob(spec).catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.code).toBe('USAGE');
      expect(isGeobatchError(error) && error.message).toBe(
        `The ${role} ${target(dir)} is an existing directory, not a file`,
      );
      expect(isGeobatchError(error) && error.context.hint).toBe(`Name a file, e.g. ${join(dir, hint)}.`);
      expect(fake.calls).toHaveLength(0);
      // Nothing else was created: no lock, no partial file.
      expect(readdirSync(dir).sort()).toEqual(['in.csv', basename(target(dir))].sort());
    },
  );

  it('refuses an output that is a pipe or a device, and leaves it as it is', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(3));
    execFileSync('mkfifo', [join(dir, 'out.csv')]);
    const fifo = await runJob(specFor({ dir }).spec).catch((e: unknown) => e);
    expect(isGeobatchError(fifo) && fifo.code).toBe('USAGE');
    expect(isGeobatchError(fifo) && fifo.message).toBe(
      `The output ${join(dir, 'out.csv')} is a pipe, not a file geobatch can write`,
    );
    expect(isGeobatchError(fifo) && fifo.context).toMatchObject({
      file: join(dir, 'out.csv'),
      expected: 'a regular file path',
      received: 'a pipe',
    });
    expect(isGeobatchError(fifo) && fifo.context.hint).toContain('-o -');
    expect(statSync(join(dir, 'out.csv')).isFIFO()).toBe(true);

    // /dev/null through a link, as the error report: renamed over, the link would become a file.
    rmSync(join(dir, 'out.csv'));
    symlinkSync('/dev/null', join(dir, 'errors.csv'));
    const { spec, fake } = specFor({ dir });
    const device = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(device) && device.message).toBe(
      `The error report ${join(dir, 'errors.csv')} is a device, not a file geobatch can write`,
    );
    expect(fake.calls).toHaveLength(0);
    expect(lstatSync(join(dir, 'errors.csv')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['errors.csv', 'in.csv']);
  });

  it("writes an empty cell, not Object.prototype's function, for a column named constructor a row lacks", async () => {
    const dir = tempDir();
    write(join(dir, 'in.ndjson'), '{"id":"1","constructor":"c","toString":"t"}\n{"id":"2"}\n{"id":"3"}\n');
    const { spec } = specFor({
      dir,
      inputFormat: 'ndjson',
      job: {
        keys: (row) =>
          row.ref.index === 2
            ? { code: 'FIELD_INVALID', field: 'id', message: 'id: no' }
            : [`k${row.ref.index}`],
      },
      spec: { moreOutputs: [{ path: join(dir, 'out.gpkg'), format: 'gpkg' }] },
    });
    await runJob(spec);
    const rows: Record<string, string>[] = parse(read(join(dir, 'out.csv')), { columns: true });
    expect(rows.map((r) => [r.id, r.constructor, r.toString])).toEqual([
      ['1', 'c', 't'],
      ['2', '', ''],
      ['3', '', ''],
    ]);
    const report: Record<string, string>[] = parse(read(join(dir, 'errors.csv')), { columns: true });
    expect(report.map((r) => [r.geobatch_row, r.constructor, r.toString])).toEqual([['3', '', '']]);
    const db = new DatabaseSync(join(dir, 'out.gpkg'), { readOnly: true });
    const cells = db.prepare('SELECT "constructor", "toString" FROM "out" ORDER BY fid').all();
    db.close();
    expect(cells.map((c) => [c.constructor, c.toString])).toEqual([
      ['c', 't'],
      [null, null],
      [null, null],
    ]);
  });

  it("writes the CSV error report in the first CSV output's dialect: its byte order mark and delimiter", async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), 'id,name\n1,Straße\n2,Köln\n');
    const { spec } = specFor({
      dir,
      job: { keys: (row) => ({ code: 'FIELD_INVALID', field: 'id', message: `no ${row.ref.index}` }) },
      spec: {
        output: { path: join(dir, 'out.geojson'), format: 'geojson' },
        moreOutputs: [{ path: join(dir, 'out.csv'), format: 'csv', bom: true, delimiter: ';' }],
      },
    });
    await runJob(spec);
    const report = read(join(dir, 'errors.csv'));
    expect(report.startsWith('\uFEFFgeobatch_row;geobatch_line;')).toBe(true);
    expect(report.split('\n')[2]).toBe('2;3;fake;input;FIELD_INVALID;;no 1;;;;2;Köln');
    expect(report.match(/\uFEFF/g)).toHaveLength(1);
  });

  it('counts the blank lines it skipped in the summary and the run report, which no row stands for', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), '\nid,name\n1,a\n\n2,b\n,\n  \n3,c\n');
    const { spec } = specFor({ dir, spec: { runReport: join(dir, 'report.html') } });
    const summary = await runJob(spec);
    expect(summary.rows.read).toBe(3);
    expect(summary.input.blankLines).toBe(4);
    expect(read(join(dir, 'report.html'))).toContain(
      '<span class="value" data-count="blank lines skipped">4</span><span class="label">blank lines skipped</span>',
    );
  });

  it('refuses a GeoJSON input that is a bare Feature before writing anything', async () => {
    const dir = tempDir();
    write(
      join(dir, 'in.geojson'),
      '{"type":"Feature","properties":{"id":"1"},"geometry":{"type":"Point","coordinates":[8.4,49]}}\n',
    );
    const { spec, fake } = specFor({ dir, inputFormat: 'geojson' });
    const error = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `Expected a GeoJSON FeatureCollection in ${join(dir, 'in.geojson')}: it is a single Feature`,
    );
    expect(fake.calls).toHaveLength(0);
    expect(readdirSync(dir)).toEqual(['in.geojson']);
  });

  it('does not start a run whose signal has already fired', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(3));
    const controller = new AbortController();
    controller.abort();
    const { spec, fake } = specFor({ dir, spec: { signal: controller.signal } });
    const error = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(fake.calls).toHaveLength(0);
    expect(readdirSync(dir)).toEqual(['in.csv']);
  });

  it('refuses bad options before touching a file', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(3));
    const { spec } = specFor({ dir, spec: { engine: { window: 0 } } });
    await expect(runJob(spec)).rejects.toThrow('Expected `window` to be a positive integer, got `0`');
    expect(existsSync(lockPath(spec.output.path)) || existsSync(partialPath(spec.output.path))).toBe(false);
  });

  it('refuses an output that would overwrite the input', async () => {
    const dir = tempDir();
    const input = write(join(dir, 'in.csv'), csvInput(3));
    const { spec } = specFor({ dir, spec: { output: { path: input, format: 'csv' } } });
    const error = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(read(input)).toBe(csvInput(3));
  });

  it('refuses one output named twice, once through a linked directory, before anything is written', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(3));
    symlinkSync(dir, join(dir, 'here'));
    const { spec, fake } = specFor({
      dir,
      spec: {
        output: { path: join(dir, 'out.ndjson'), format: 'ndjson' },
        moreOutputs: [{ path: join(dir, 'here', 'out.ndjson'), format: 'ndjson' }],
      },
    });
    const error = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `The output ${join(dir, 'here', 'out.ndjson')} is named twice (the job file's outputs:, or -o)`,
    );
    expect(fake.calls).toHaveLength(0);
    expect(readdirSync(dir).sort()).toEqual(['here', 'in.csv']);
  });

  it('refuses an output or error report that is the input reached through a symbolic link', async () => {
    const dir = tempDir();
    const input = write(join(dir, 'in.csv'), csvInput(3));
    const linked = join(dir, 'linked.csv');
    symlinkSync(input, linked);
    const { spec } = specFor({
      dir,
      spec: { input: { path: linked, format: 'csv' }, output: { path: input, format: 'csv' } },
    });
    const error = await runJob(spec).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `The output ${input} is the input: writing it would overwrite the input`,
    );
    expect(read(input)).toBe(csvInput(3));
    const { spec: reportSpec } = specFor({ dir, spec: { report: { path: linked, format: 'csv' } } });
    const reportError = await runJob(reportSpec).catch((e: unknown) => e);
    expect(isGeobatchError(reportError) && reportError.code).toBe('USAGE');
    expect(isGeobatchError(reportError) && reportError.context.file).toBe(linked);
    expect(read(input)).toBe(csvInput(3));
  });
});

describe('runJob: lock', () => {
  it('refuses a second run of the same job while the first holds the lock', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(5));
    const { spec, fake } = specFor({ dir });
    const held = await acquireLock(lockPath(spec.output.path));
    try {
      const error = await runJob(spec).catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.code).toBe('LOCKED');
      expect(isGeobatchError(error) && error.message).toBe(
        `Another run is already writing ${spec.output.path} (pid ${process.pid})`,
      );
      expect(fake.calls).toHaveLength(0);
    } finally {
      await held.release();
    }
  });

  it.each([
    ['a second output', (dir: string) => join(dir, 'shared.ndjson')],
    ['the error report', (dir: string) => join(dir, 'errors.csv')],
  ])('refuses a run when another run (another first output) is writing %s', async (_what, shared) => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(5));
    const { spec, fake } = specFor({
      dir,
      spec: {
        output: { path: join(dir, 'mine.csv'), format: 'csv' },
        moreOutputs: [{ path: join(dir, 'shared.ndjson'), format: 'ndjson' }],
      },
    });
    // The other run: `-o theirs.csv -o shared.ndjson -e errors.csv`, holding its files' locks.
    const held = await acquireLock(lockPath(shared(dir)));
    try {
      const error = await runJob(spec).catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.code).toBe('LOCKED');
      expect(isGeobatchError(error) && error.context.file).toBe(lockPath(shared(dir)));
      // Not "this job": the other run may be another job writing the same file.
      expect(isGeobatchError(error) && error.message).toBe(
        `Another run is already writing ${shared(dir)} (pid ${process.pid})`,
      );
      expect(fake.calls).toHaveLength(0);
      expect(existsSync(partialPath(shared(dir)))).toBe(false);
      // The locks it took before the refusal are given back.
      expect(existsSync(lockPath(spec.output.path))).toBe(false);
    } finally {
      await held.release();
    }
    const summary = await runJob(spec);
    expect(summary.ended).toBe('complete');
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('refuses a run to standard output whose error report another run is writing', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(5));
    // `-o - -e errors.csv`: the error report is still written through errors.csv.partial.
    const { spec, fake } = specFor({ dir, spec: { output: { path: '-', format: 'csv' } } });
    const report = (spec.report as { path: string }).path;
    const held = await acquireLock(lockPath(report));
    try {
      const error = await runJob(spec).catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.code).toBe('LOCKED');
      expect(isGeobatchError(error) && error.context.file).toBe(lockPath(report));
      expect(fake.calls).toHaveLength(0);
      expect(existsSync(partialPath(report))).toBe(false);
    } finally {
      await held.release();
    }
  });

  it('takes over a lock left by a dead process, with a warning', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(5));
    const { spec, lines } = specFor({ dir });
    const deadPid = 2 ** 22 + 12345;
    write(
      lockPath(spec.output.path),
      JSON.stringify({ pid: deadPid, hostname: (await import('node:os')).hostname(), startedAt: 'x' }),
    );
    const summary = await runJob(spec);
    expect(summary.ended).toBe('complete');
    expect(lines().some((l) => l.level === 40 && String(l.msg).includes(`stale lock`))).toBe(true);
    expect(existsSync(lockPath(spec.output.path))).toBe(false);
  });
});

describe('runJob: dry run', () => {
  it('counts rows, row issues, unique items and requests after batching, sending and writing nothing', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), csvInput(100, new Set([4])));
    const { spec, fake } = specFor({
      dir,
      job: { keys: (row) => [`k${row.ref.index % 30}`], batching: { maxItems: 7, lingerMs: 1000 } },
      spec: { dryRun: true, requestsPerSecond: 2 },
    });
    const summary = await runJob(spec);
    expect(fake.calls).toHaveLength(0);
    expect(summary).toMatchObject({
      dryRun: true,
      exitCode: 3,
      rows: { read: 100, failed: 1 },
      requests: { uniqueItems: 30, sent: 5, savedByDedup: 69 },
      estimate: { requests: 5, requestsAtMost: 5, requestsPerSecond: 2, seconds: 3 },
    });
    expect(existsSync(spec.output.path) || existsSync(partialPath(spec.output.path))).toBe(false);
  });
});

describe('runJob: kill -9', () => {
  it('resumes after the process was killed mid-run to output identical to an uninterrupted run', async () => {
    const { dirs, setup } = prepare('csv');
    const [dir, reference] = dirs as [string, string];
    const out = join(dir, 'out.csv');
    // The child runs the same fake job, slowly, checkpointing every 20 ms.
    const script = [
      "import { pino } from 'pino';",
      "import { runJob } from './src/run/run.ts';",
      "import { fakeJob } from './test/engine/_fake.ts';",
      'const dir = process.env.DIR;',
      "const job = fakeJob({ delay: () => 3, omit: (key) => key === 'k42' || key === 'k210' });",
      'await runJob({',
      "  job, jobFingerprint: 'fake:v1',",
      "  input: { path: dir + '/in.csv', format: 'csv' },",
      "  output: { path: dir + '/out.csv', format: 'csv' },",
      "  report: { path: dir + '/errors.csv', format: 'csv' },",
      "  logger: pino({ level: 'silent' }), progress: { enabled: false },",
      '  checkpoint: { intervalMs: 20 }, engine: { concurrency: 1, window: 8 },',
      '});',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, DIR: dir },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    let committed = 0;
    for (let i = 0; i < 600 && committed < 60; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      committed = (await readJournal(journalPath(out)).catch(() => undefined))?.committedRows ?? 0;
    }
    child.kill('SIGKILL');
    await exited;
    expect(committed).toBeGreaterThanOrEqual(60);
    const journal = await readJournal(journalPath(out));
    expect(journal?.committedRows).toBeLessThan(300);
    expect(existsSync(lockPath(out))).toBe(true);

    const { spec, fake, lines } = specFor({ ...setup(dir), spec: { resume: true } });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'complete_with_failures', rows: { written: 300 } });
    expect(Math.min(...fake.executedRows)).toBeGreaterThanOrEqual(journal?.committedRows ?? 0);
    expect(lines().some((l) => String(l.msg).includes('stale lock'))).toBe(true);
    const expected = await uninterrupted(setup(reference));
    expect(read(out)).toBe(expected.output);
    expect(read(join(dir, 'errors.csv'))).toBe(expected.report);
  });
});

describe('runJob: a GeoPackage of more columns than SQLite holds', () => {
  // fid, geom, the fake job's `value`, the status pair: 5 besides the input's, so 1996 make 2001.
  const columns = Array.from({ length: 1996 }, (_, i) => `c${i}`);
  const refusal = (dir: string) => ({
    code: 'USAGE',
    message: `The GeoPackage ${join(dir, 'out.gpkg')} would have 2001 columns (fid, geom, 1996 of the input, 3 geobatch adds), more than the 2000 an SQLite table holds`,
  });

  it('refuses a CSV input by its header as the run starts, before any request', async () => {
    const dir = tempDir();
    write(join(dir, 'in.csv'), `${columns.join(',')}\n${columns.map(() => '1').join(',')}\n`);
    const { spec, fake } = specFor({ dir, outputFormat: 'gpkg' });
    await expect(runJob(spec)).rejects.toMatchObject({
      ...refusal(dir),
      context: { file: join(dir, 'out.gpkg'), expected: 'at most 2000 columns', received: '2001 columns' },
    });
    expect(fake.calls).toEqual([]);
    expect(readdirSync(dir)).toEqual(['in.csv']);
  });

  it('stops on an NDJSON input at its first row, before any request, keeping nothing', async () => {
    const dir = tempDir();
    const record = JSON.stringify(Object.fromEntries(columns.map((c) => [c, 1])));
    write(join(dir, 'in.ndjson'), `not json\n${record}\n${record}\n`);
    const { spec, fake } = specFor({ dir, inputFormat: 'ndjson', outputFormat: 'gpkg' });
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'stopped', exitCode: 2, error: refusal(dir) });
    expect(fake.calls).toEqual([]);
    expect(existsSync(join(dir, 'out.gpkg'))).toBe(false);
  });
});
