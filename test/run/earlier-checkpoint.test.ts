/**
 * A checkpoint written before c287dbb, for a job with a constant written as a number: its
 * fingerprint holds the number YAML read (`{ value: 52.50 }` was 52.5) where the job is now its
 * text; the nightly run the day after an upgrade resumes it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, fingerprintParts, type JobConfig, loadJobFile } from '../../src/config/load.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

let emulator: EmulatorHandle;
let dir: string;
let stopAfter: { requests: number; stop: AbortController } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-earlier-checkpoint-'));
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

/** A reverse-geocoding job whose latitude is the constant `lat`, as written. */
function jobFile(name: string, lat: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'job: reverse-geocode',
      `input: ${join(ROOT, 'samples', 'gps-fixes.csv')}`,
      `output: ${join(dir, `${name}.csv`)}`,
      `mapping: { lon: lon, lat: { value: ${lat} } }`,
      '',
    ].join('\n'),
  );
  return file;
}

/** Runs the job and stops it once some rows are committed, leaving its checkpoint. */
async function stopped(job: string): Promise<string> {
  emulator.setFaults({ latency: { fixedMs: 20 } });
  const stop = new AbortController();
  stopAfter = { requests: 30, stop };
  const summary = await runJobFile(job, { emulator, concurrency: 2, signal: stop.signal });
  stopAfter = undefined;
  emulator.setFaults({});
  expect(summary.ended).toBe('stopped');
  expect(summary.resume.checkpoint).not.toBeNull();
  return summary.resume.checkpoint as string;
}

/**
 * The job as the code before c287dbb fingerprinted it: the constant was the number YAML read,
 * which resolveMapping made text with String() ("52.5"); nothing else of the fingerprint changed.
 */
function asBefore(config: JobConfig, field: string, read: number): JobConfig {
  const [step] = config.steps;
  if (step === undefined) throw new Error('no step');
  return { ...config, steps: [{ ...step, mapping: { ...step.mapping, [field]: { value: String(read) } } }] };
}

/** Rewrites the checkpoint at `path` as the earlier version wrote it for `config`. */
function writtenBefore(path: string, config: JobConfig): void {
  const journal = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  journal.job = fingerprintOf(config);
  journal.jobParts = fingerprintParts(config);
  // Those versions did not write the mark of the form this version writes.
  expect(journal.constantsAsWritten).toBe(true);
  delete journal.constantsAsWritten;
  writeFileSync(path, `${JSON.stringify(journal, null, 2)}\n`);
}

describe('a checkpoint of a version before constants kept their text', () => {
  it('resumes a job whose constant `{ value: 52.50 }` it fingerprinted as 52.5', async () => {
    const job = jobFile('lat', '52.50');
    const checkpoint = await stopped(job);
    const config = await loadJobFile(job, {});
    const before = asBefore(config, 'lat', 52.5);
    expect(fingerprintOf(before)).not.toBe(fingerprintOf(config));
    writtenBefore(checkpoint, before);

    const summary = await runJobFile(job, { emulator, resume: true });
    expect(summary.error).toBeNull();
    expect(summary.ended).toMatch(/^complete/);
    expect(summary.resume.resumed).toBe(true);
    expect(summary.resume.fromRow).toBeGreaterThan(0);
    expect(summary.rows.ok + summary.rows.failed).toBe(152);
    expect(readFileSync(join(dir, 'lat.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(153);
  });

  it('still refuses one made with another constant, in either form', async () => {
    const job = jobFile('other', '52.50');
    const checkpoint = await stopped(job);
    const config = await loadJobFile(job, {});
    writtenBefore(checkpoint, asBefore(config, 'lat', 52.6));
    const error = await runJobFile(job, { emulator, resume: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context.file).toBe(checkpoint);
    expect(isGeobatchError(error) && error.message).toMatch(/other settings: the job differs/);
  });

  it("refuses this version's checkpoint once the constant is re-spelled (52.5 to 52.50), which reads the same number", async () => {
    const job = jobFile('respelled', '52.5');
    const checkpoint = await stopped(job);
    jobFile('respelled', '52.50');
    const error = await runJobFile(job, { emulator, resume: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context.file).toBe(checkpoint);
  });
});
