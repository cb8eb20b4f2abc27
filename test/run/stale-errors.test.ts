/**
 * The error report an earlier run of an output wrote beside it, which a rerun writing its report
 * elsewhere does not replace: removed once the new output is in place, on evidence that the
 * earlier run wrote it (the summary replaced names it, the file is geobatch's); otherwise left,
 * with a warning.
 */
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/index.js';
import { memoryLogger } from '../fixtures/run-helpers.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const JOB = join(ROOT, 'jobs', 'geocode.yaml');

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-stale-errors-'));
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const messages = (lines: () => Record<string, unknown>[]) => lines().map((r) => String(r.msg));
const HEADER = 'geobatch_row,geobatch_line,geobatch_job,geobatch_stage,geobatch_error,';

/** A finished run of the geocode sample to `output`, with its error report beside it. */
async function finished(output: string, errors?: string) {
  const done = await runJobFile(JOB, { emulator, output, ...(errors === undefined ? {} : { errors }) });
  expect(done.ended).toBe('complete_with_failures');
  expect(done.report).toMatchObject({ rows: 3, written: true });
  return done;
}

describe('the error report an earlier run of the output left', () => {
  it('is removed when a rerun writes its report elsewhere, and the log says so; NDJSON as CSV', async () => {
    const output = join(dir, 'a.csv');
    const old = join(dir, 'a.errors.csv');
    await finished(output);
    expect(readFileSync(old, 'utf8')).toContain(HEADER);
    const other = join(dir, 'a-other.ndjson');
    const { logger, lines } = memoryLogger();
    const rerun = await runJobFile(JOB, { emulator, output, errors: other, logger });
    expect(rerun.report).toMatchObject({ path: other, rows: 3, written: true });
    expect(existsSync(old)).toBe(false);
    expect(existsSync(other)).toBe(true);
    expect(messages(lines)).toContainEqual(
      expect.stringContaining(`Removed the error report ${old}, written by an earlier run of ${output}`),
    );
    // The report the user named (-e) is theirs, though the summary replaced names it: it stays.
    await finished(output);
    expect(existsSync(other)).toBe(true);
    expect(existsSync(old)).toBe(true);
  });

  it('removes the report an earlier version wrote at its default path (x.errors.csv for x.geojson)', async () => {
    const output = join(dir, 'g.geojson');
    // Earlier versions put a GeoJSON output's report at g.errors.csv: made here as they did.
    const legacy = join(dir, 'g.errors.csv');
    await finished(output, legacy);
    expect(readFileSync(legacy, 'utf8')).toContain(HEADER);
    const { logger, lines } = memoryLogger();
    const rerun = await runJobFile(JOB, { emulator, output, logger });
    expect(rerun.report).toMatchObject({ path: join(dir, 'g.geojson.errors.csv'), rows: 3, written: true });
    expect(existsSync(legacy)).toBe(false);
    expect(messages(lines)).toContainEqual(
      expect.stringContaining(`Removed the error report ${legacy}, written by an earlier run of ${output}`),
    );
  });

  it("leaves, without a word, the report another output's summary names: -o x.csv, then -o x.gpkg", async () => {
    // x.errors.csv is x.csv's report and the earlier default path of x.gpkg's, read at every run.
    const csv = join(dir, 'k.csv');
    const report = join(dir, 'k.errors.csv');
    await finished(csv);
    const written = readFileSync(report, 'utf8');
    for (const output of [join(dir, 'k.gpkg'), join(dir, 'k.geojson'), join(dir, 'k.gpkg')]) {
      const { logger, lines } = memoryLogger();
      const rerun = await runJobFile(JOB, { emulator, output, logger });
      expect(rerun.report).toMatchObject({ path: `${output}.errors.csv`, written: true });
      expect(readFileSync(report, 'utf8')).toBe(written);
      expect(messages(lines).filter((m) => m.includes(report))).toEqual([]);
    }
    // Changed since the summary that names it: whose it is no summary tells, and the warning says
    // what was found.
    writeFileSync(report, `${written}# my note\n`);
    let log = memoryLogger();
    await runJobFile(JOB, { emulator, output: join(dir, 'k.gpkg'), logger: log.logger });
    expect(existsSync(report)).toBe(true);
    expect(messages(log.lines)).toContainEqual(
      expect.stringContaining(
        `${join(dir, 'k.csv.summary.json')} names it as the error report of ${csv}, but it was changed after that summary was written`,
      ),
    );
    // A true leftover, which no summary names: left, with the warning saying just that.
    rmSync(join(dir, 'k.csv.summary.json'));
    log = memoryLogger();
    await runJobFile(JOB, { emulator, output: join(dir, 'k.gpkg'), logger: log.logger });
    expect(existsSync(report)).toBe(true);
    expect(messages(log.lines)).toContainEqual(
      expect.stringContaining(
        `Left ${report} beside ${join(dir, 'k.gpkg')}, though it is not this run's error report (this run's is ${join(dir, 'k.gpkg.errors.csv')}): neither a summary of ${join(dir, 'k.gpkg')} nor any other *.summary.json beside it names that file`,
      ),
    );
  });

  it("removes the old version's report another output's older summary still names, and one of a second output", async () => {
    // -o h.csv once, then nightly runs of h.geojson by a version that wrote over h.errors.csv.
    const csv = join(dir, 'h.csv');
    const geojson = join(dir, 'h.geojson');
    const legacy = join(dir, 'h.errors.csv');
    await finished(csv);
    utimesSync(join(dir, 'h.csv.summary.json'), new Date(2026, 0, 1), new Date(2026, 0, 1));
    await finished(geojson, legacy);
    const { logger, lines } = memoryLogger();
    await runJobFile(JOB, { emulator, output: geojson, logger });
    expect(existsSync(legacy)).toBe(false);
    expect(messages(lines)).toContainEqual(
      expect.stringContaining(`Removed the error report ${legacy}, written by an earlier run of ${geojson}`),
    );
    // A run that replaces h.csv as its second output: the report of h.csv's earlier run goes.
    await finished(csv);
    const both = memoryLogger();
    await runJobFile(JOB, { emulator, output: [geojson, csv], logger: both.logger });
    expect(existsSync(legacy)).toBe(false);
    expect(messages(both.lines)).toContainEqual(
      expect.stringContaining(`Removed the error report ${legacy}, written by an earlier run of ${csv}`),
    );
  });

  it('leaves a report the user named, wherever it is, and the report run again as input', async () => {
    const output = join(dir, 'n.csv');
    const reports = join(dir, 'reports');
    const yesterday = join(reports, '2026-11-27.errors.csv');
    // A nightly job keeping dated reports: each night's run names its own.
    await finished(output, yesterday);
    const { logger, lines } = memoryLogger();
    const tonight = await runJobFile(JOB, {
      emulator,
      output,
      errors: join(reports, '2026-11-28.errors.csv'),
      logger,
    });
    expect(tonight.output?.written).toBe(true);
    expect(readFileSync(yesterday, 'utf8')).toContain(HEADER);
    expect(messages(lines).filter((m) => m.includes(yesterday))).toEqual([]);
    // The README's retry: the report beside the output run again as the input, its report elsewhere.
    const report = join(dir, 'n.errors.csv');
    await finished(output);
    const retried = await runJobFile(JOB, {
      emulator,
      input: report,
      output,
      errors: join(dir, 'retry.csv'),
    });
    expect(retried.output?.written).toBe(true);
    expect(readFileSync(report, 'utf8')).toContain(HEADER);
  });

  it("leaves a file of the user's at that path, one changed since, a link, with a warning, and removes geobatch's", async () => {
    const output = join(dir, 'b.csv');
    const old = join(dir, 'b.errors.csv');
    const other = join(dir, 'b-other.csv');
    // The user's own notes where the report was, written after the summary: left.
    await finished(output);
    writeFileSync(old, 'my,notes\n1,2\n');
    let log = memoryLogger();
    await runJobFile(JOB, { emulator, output, errors: other, logger: log.logger });
    expect(readFileSync(old, 'utf8')).toBe('my,notes\n1,2\n');
    expect(messages(log.lines)).toContainEqual(
      expect.stringContaining(
        `Left ${old} beside ${output}, though it is not this run's error report (this run's is ${other})`,
      ),
    );
    // Named by the summary and as old as it, but not an error report of geobatch's: left.
    await finished(output);
    writeFileSync(old, 'my,notes\n');
    utimesSync(old, new Date(2000, 0, 1), new Date(2000, 0, 1));
    log = memoryLogger();
    await runJobFile(JOB, { emulator, output, errors: other, logger: log.logger });
    expect(readFileSync(old, 'utf8')).toBe('my,notes\n');
    expect(messages(log.lines)).toContainEqual(
      expect.stringContaining("it does not start as geobatch's error reports do"),
    );
    // A link where the report was: neither the link nor what it points to goes.
    await finished(output);
    const target = join(dir, 'b-kept.csv');
    renameSync(old, target);
    symlinkSync(target, old);
    log = memoryLogger();
    await runJobFile(JOB, { emulator, output, errors: other, logger: log.logger });
    expect(readFileSync(old, 'utf8')).toContain(HEADER);
    expect(existsSync(target)).toBe(true);
    expect(messages(log.lines)).toContainEqual(expect.stringContaining('it is a link'));
    // A file so named beside a second output is no report of geobatch's: not a word about it.
    const second = join(dir, 'b2.ndjson');
    writeFileSync(join(dir, 'b2.errors.csv'), 'notes\n');
    log = memoryLogger();
    await runJobFile(JOB, { emulator, output: [output, second], errors: other, logger: log.logger });
    expect(existsSync(join(dir, 'b2.errors.csv'))).toBe(true);
    expect(messages(log.lines).filter((m) => m.includes('b2.errors.csv'))).toEqual([]);
    // The report geobatch wrote, as it wrote it: removed.
    rmSync(old);
    await finished(output);
    await runJobFile(JOB, { emulator, output, errors: other });
    expect(existsSync(old)).toBe(false);
  });

  it('stays while no output is put in place (`-e -` refused, a dry run, a stop), and goes when the resume puts it there', async () => {
    const output = join(dir, 'c.csv');
    const old = join(dir, 'c.errors.csv');
    const other = join(dir, 'c-other.csv');
    await finished(output);
    const refused = await runJobFile(JOB, { emulator, output, errors: '-' }).catch((error: unknown) => error);
    expect(isGeobatchError(refused) && refused.code).toBe('USAGE');
    expect(isGeobatchError(refused) && refused.context).toMatchObject({ file: '-', received: '-' });
    expect(isGeobatchError(refused) && refused.context.hint).toContain('-e');
    const dry = await runJobFile(JOB, { emulator, output, errors: other, dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(existsSync(old)).toBe(true);
    // Stopped at the first request (nothing kept), then after 100 (a checkpoint kept).
    for (const quotaAfter of [0, 100]) {
      emulator.setFaults({ quotaAfter });
      const stopped = await runJobFile(JOB, { emulator, output, errors: other });
      emulator.setFaults({});
      expect(stopped.ended).toBe('stopped');
      expect(stopped.output?.written).toBe(false);
      expect(readFileSync(old, 'utf8')).toContain(HEADER);
      // The stop's summary replaced the finished run's, and with it the evidence: the next run
      // that puts the output in place leaves the report, and says it is not its own.
      if (quotaAfter === 0) {
        const { logger, lines } = memoryLogger();
        await runJobFile(JOB, { emulator, output, errors: other, logger });
        expect(readFileSync(old, 'utf8')).toContain(HEADER);
        expect(messages(lines)).toContainEqual(expect.stringContaining(`Left ${old} beside ${output}`));
        await finished(output);
      }
    }
    // The resume puts the output in place. The summary it replaces is the stopped session's,
    // which names c-other.csv; the checkpoint carries what the finished run's summary said.
    const { logger, lines } = memoryLogger();
    const resumed = await runJobFile(JOB, { emulator, output, errors: other, resume: true, logger });
    expect(resumed).toMatchObject({ ended: 'complete_with_failures', output: { written: true } });
    expect(existsSync(old)).toBe(false);
    expect(messages(lines)).toContainEqual(expect.stringContaining(`Removed the error report ${old}`));
    // A run with the report where the finished run had it, then one elsewhere: removed.
    await finished(output);
    await runJobFile(JOB, { emulator, output, errors: other });
    expect(existsSync(old)).toBe(false);
  });

  it('a checkpoint edited to name a report elsewhere deletes nothing', async () => {
    const output = join(dir, 'd.csv');
    const elsewhere = join(dir, 'd-elsewhere.errors.csv');
    // Another job's report, as geobatch wrote it.
    await finished(join(dir, 'd-elsewhere.csv'));
    expect(readFileSync(elsewhere, 'utf8')).toContain(HEADER);
    emulator.setFaults({ quotaAfter: 100 });
    const stopped = await runJobFile(JOB, { emulator, output });
    emulator.setFaults({});
    const checkpoint = stopped.resume.checkpoint as string;
    const journal = JSON.parse(readFileSync(checkpoint, 'utf8')) as Record<string, unknown>;
    const forged = {
      output,
      summary: join(dir, 'x.json'),
      summaryMs: Date.now() + 1e9,
      errors: elsewhere,
      format: 'csv',
      rows: 3,
    };
    writeFileSync(checkpoint, JSON.stringify({ ...journal, earlierErrors: [forged] }));
    const { logger, lines } = memoryLogger();
    const resumed = await runJobFile(JOB, { emulator, output, resume: true, logger });
    expect(resumed.output?.written).toBe(true);
    expect(readFileSync(elsewhere, 'utf8')).toContain(HEADER);
    expect(messages(lines).filter((m) => m.includes(elsewhere))).toEqual([]);
    // The same, carried for the report beside the output: that one goes.
    await finished(output);
    emulator.setFaults({ quotaAfter: 100 });
    await runJobFile(JOB, { emulator, output, errors: join(dir, 'd-other.csv') });
    emulator.setFaults({});
    expect(JSON.parse(readFileSync(checkpoint, 'utf8'))).toMatchObject({
      earlierErrors: [{ output, errors: join(dir, 'd.errors.csv'), format: 'csv', rows: 3 }],
    });
  });
});
