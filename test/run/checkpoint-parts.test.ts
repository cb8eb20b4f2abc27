/**
 * A checkpoint refused for other settings says which: the job, the input settings, the outputs,
 * the error report, or the row selection (with the selections themselves).
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/index.js';
import { verifyJournal } from '../../src/run/checkpoint.js';

const ROOT = new URL('../../', import.meta.url).pathname;

let emulator: EmulatorHandle;
let dir: string;
/** Stops the run being made once the emulator has answered this many requests: progress, not time. */
let stopAfter: { requests: number; stop: AbortController } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-checkpoint-parts-'));
  emulator = await startEmulator({
    preload: true,
    onRequest: () => {
      if (stopAfter !== undefined && --stopAfter.requests === 0) stopAfter.stop.abort();
    },
  });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a sample of the geocoding sample and stops it after the first rows are committed. */
async function stopped(job: string, output: string): Promise<void> {
  emulator.setFaults({ latency: { fixedMs: 20 } });
  const stop = new AbortController();
  stopAfter = { requests: 30, stop };
  const summary = await runJobFile(job, {
    emulator,
    output,
    concurrency: 2,
    rows: { sample: 200, seed: '7' },
    signal: stop.signal,
  });
  stopAfter = undefined;
  emulator.setFaults({});
  expect(summary.ended).toBe('stopped');
  expect(summary.resume.checkpoint, JSON.stringify([summary.rows, summary.error])).not.toBeNull();
}

async function refusal(job: string, options: Parameters<typeof runJobFile>[1]) {
  const error = await runJobFile(job, { emulator, resume: true, ...options }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
  return isGeobatchError(error) ? error.message : '';
}

describe('a checkpoint made with other settings', () => {
  it('names the row selection, with both, and the outputs when the formula guard changed', async () => {
    const job = join(ROOT, 'jobs', 'geocode.yaml');
    const output = join(dir, 'g.csv');
    await stopped(job, output);
    expect(await refusal(job, { output, rows: { sample: 200, seed: '8' } })).toMatch(
      /other settings: the row selection differs \(--limit, --sample, --seed: it was sample=200, seed=7, now sample=200, seed=8\)$/,
    );
    expect(await refusal(job, { output, rows: { sample: 200, seed: '7' }, formulaGuard: false })).toMatch(
      /other settings: the outputs differ \(-o, outputs:, or their format, delimiter or formula guard\)$/,
    );
    // The input's encoding is part of the input settings.
    const copy = join(dir, 'geocode.yaml');
    const text = readFileSync(job, 'utf8');
    const declared = `input: { path: ${join(ROOT, 'samples', 'community-centres.csv')}, encoding: windows-1252 }`;
    expect(text).toContain('input: ../samples/community-centres.csv');
    writeFileSync(copy, text.replace('input: ../samples/community-centres.csv', declared));
    expect(await refusal(copy, { output, rows: { sample: 200, seed: '7' } })).toMatch(
      /other settings: the input settings differ \(path, format, delimiter, encoding or record limits\)$/,
    );
  });

  it("names both inputs' paths, and says when they are one file by another path", async () => {
    const job = join(ROOT, 'jobs', 'geocode.yaml');
    const output = join(dir, 'paths.csv');
    await stopped(job, output);
    const made = join(ROOT, 'samples', 'community-centres.csv');
    const link = join(dir, 'centres-link.csv');
    symlinkSync(made, link);
    const copy = join(dir, 'centres-copy.csv');
    copyFileSync(made, copy);
    const options = { output, rows: { sample: 200, seed: '7' } };
    expect(await refusal(job, { ...options, input: link })).toMatch(
      new RegExp(
        `other settings: the input settings differ: its path was ${made}, now ${link} \\(the same file by another path: give the path it was made with\\)$`,
      ),
    );
    expect(await refusal(job, { ...options, input: copy })).toMatch(
      new RegExp(`other settings: the input settings differ: its path was ${made}, now ${copy}$`),
    );
  });

  it('resumes the same outputs named through a linked directory, writing what one run writes', async () => {
    const job = join(ROOT, 'jobs', 'geocode.yaml');
    const real = join(dir, 'real');
    mkdirSync(real);
    const link = join(dir, 'real-link');
    symlinkSync(real, link);
    const rows = { sample: 200, seed: '7' };
    await stopped(job, join(real, 'r.csv'));
    // Was CHECKPOINT_MISMATCH ("the outputs differ"), and the hint's --restart-if-changed paid again.
    const resumed = await runJobFile(job, { emulator, resume: true, output: join(link, 'r.csv'), rows });
    expect(resumed.ended).toBe('complete_with_failures');
    const whole = join(dir, 'whole.csv');
    await runJobFile(job, { emulator, output: whole, rows });
    expect(readFileSync(join(real, 'r.csv'), 'utf8')).toBe(readFileSync(whole, 'utf8'));
  });

  it('keeps the general words for a checkpoint of an earlier version, which has no parts', () => {
    let error: unknown;
    try {
      verifyJournal(
        { job: 'a', input: { path: 'p', size: 1, mtimeMs: 1 } } as Parameters<typeof verifyJournal>[0],
        'cp',
        'b',
        { path: 'p', size: 1, mtimeMs: 1 },
        { job: 'x' },
      );
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.message).toMatch(
      /another job \(kind, mapping, options, input settings\)/,
    );
  });
});
