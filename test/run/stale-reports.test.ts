/**
 * A run report or summary beside an output describes that output: one an earlier run or session
 * left, which this run does not write over (--no-report on the resume, --report named on the
 * first session only), is removed once the output moves; one of the user's own is not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import { removeStaleReports } from '../../src/run/_stale-reports.js';
import type { Journal } from '../../src/run/checkpoint.js';
import { memoryLogger } from '../fixtures/run-helpers.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const JOB = join(ROOT, 'jobs', 'geocode.yaml');

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-stale-reports-'));
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A run of the geocode sample to `output` that the quota stops after 100 requests. */
async function stoppedRun(output: string, report?: string) {
  emulator.setFaults({ quotaAfter: 100 });
  const stopped = await runJobFile(JOB, { emulator, output, ...(report === undefined ? {} : { report }) });
  emulator.setFaults({});
  expect(stopped.ended).toBe('stopped');
  expect(stopped.resume.checkpoint).not.toBeNull();
  return stopped;
}

const ended = (page: string) => /data-ended="([a-z_]+)"/.exec(readFileSync(page, 'utf8'))?.[1];

describe('the run report and summary an earlier run left', () => {
  it('are removed when a resume with --no-report finishes the output', async () => {
    const output = join(dir, 'a.csv');
    const stopped = await stoppedRun(output);
    const page = `${output}.report.html`;
    expect(stopped.runReport).toBe(page);
    expect(ended(page)).toBe('stopped');
    const done = await runJobFile(JOB, { emulator, output, resume: true, report: false });
    expect(done.ended).toBe('complete_with_failures');
    expect(done.runReport).toBeNull();
    expect(existsSync(page)).toBe(false);
    expect(JSON.parse(readFileSync(`${output}.summary.json`, 'utf8'))).toMatchObject({
      ended: 'complete_with_failures',
      runReport: null,
    });
  });

  it('removes the report --report named on the first session when the resume writes its own elsewhere', async () => {
    const output = join(dir, 'b.csv');
    const named = join(dir, 'b-first.html');
    await stoppedRun(output, named);
    expect(ended(named)).toBe('stopped');
    const done = await runJobFile(JOB, { emulator, output, resume: true });
    expect(done.runReport).toBe(`${output}.report.html`);
    expect(ended(`${output}.report.html`)).toBe('complete_with_failures');
    expect(existsSync(named)).toBe(false);
  });

  it("removes a finished run's report when a run with --no-report writes the output again, not a page of the user's", async () => {
    const output = join(dir, 'c.csv');
    const page = `${output}.report.html`;
    await runJobFile(JOB, { emulator, output });
    expect(ended(page)).toBe('complete_with_failures');
    // Stopped before a row was written: the output and its report stay as they were.
    emulator.setFaults({ quotaAfter: 0 });
    const refused = await runJobFile(JOB, { emulator, output, report: false });
    emulator.setFaults({});
    expect(refused).toMatchObject({ ended: 'stopped', resume: { checkpoint: null } });
    expect(ended(page)).toBe('complete_with_failures');
    await runJobFile(JOB, { emulator, output, report: false });
    expect(existsSync(page)).toBe(false);
    writeFileSync(page, '<!doctype html><title>notes on c.csv</title>\n');
    await runJobFile(JOB, { emulator, output, report: false });
    expect(readFileSync(page, 'utf8')).toContain('notes on c.csv');
  });

  it('removes the summary file the checkpoint names when the resume writes it elsewhere, and says so', async () => {
    const output = join(dir, 'd.csv');
    const summaryOf = (of: string) =>
      `${JSON.stringify({ version: 1, job: 'geocode', ended: 'stopped', output: { path: of } }, null, 2)}\n`;
    const earlier = join(dir, 'd-first.summary.json');
    writeFileSync(earlier, summaryOf(output));
    // Named by the checkpoint, but not a summary geobatch wrote: left alone.
    const other = join(dir, 'd-notes.json');
    writeFileSync(other, '{"notes": true}\n');
    // A summary geobatch wrote of another output that shares the path since: left alone.
    const shared = join(dir, 'd-shared.summary.json');
    writeFileSync(shared, summaryOf(join(dir, 'e.csv')));
    const { logger, lines } = memoryLogger();
    const journal = { runReport: null, summaryFile: earlier } as Partial<Journal> as Journal;
    const summary = (written: boolean) =>
      ({ outputs: [{ path: output, written }] }) as unknown as Parameters<typeof removeStaleReports>[0];
    // A session that stops again before its output moves removes nothing: the files describe it.
    await removeStaleReports(summary(false), journal, { runReport: null, summaryFile: null }, logger);
    expect(existsSync(earlier)).toBe(true);
    await removeStaleReports(
      summary(true),
      journal,
      { runReport: null, summaryFile: join(dir, 'd.csv.summary.json') },
      logger,
    );
    expect(existsSync(earlier)).toBe(false);
    for (const named of [other, shared])
      await removeStaleReports(
        summary(true),
        { ...journal, summaryFile: named },
        { runReport: null, summaryFile: null },
        logger,
      );
    expect(existsSync(other)).toBe(true);
    expect(existsSync(shared)).toBe(true);
    expect(lines().map((r) => r.msg)).toContainEqual(
      expect.stringContaining(`Removed the summary file ${earlier}`),
    );
  });

  it('leaves the report of another output that shares a --report path, and one of an output a stopped resume did not replace', async () => {
    const shared = join(dir, 'shared.html');
    const b = join(dir, 'sb.csv');
    await stoppedRun(b, shared);
    const a = join(dir, 'sa.csv');
    await runJobFile(JOB, { emulator, output: a, report: shared });
    expect(readFileSync(shared, 'utf8')).toContain(`<dd>${a} (`);
    const resumed = await runJobFile(JOB, { emulator, output: b, resume: true, report: false });
    expect(resumed.output?.written).toBe(true);
    expect(readFileSync(shared, 'utf8')).toContain(`<dd>${a} (`);
    // A finished output, a stopped run of it, a resume stopped again: its page stays.
    const c = join(dir, 'sc.csv');
    await runJobFile(JOB, { emulator, output: c });
    const page = `${c}.report.html`;
    await stoppedRun(c, join(dir, 'sc-first.html'));
    emulator.setFaults({ quotaAfter: 1 });
    const again = await runJobFile(JOB, { emulator, output: c, resume: true, report: false });
    emulator.setFaults({});
    expect(again.ended).toBe('stopped');
    expect(existsSync(page)).toBe(true);
    expect(existsSync(join(dir, 'sc-first.html'))).toBe(true);
  });
});
