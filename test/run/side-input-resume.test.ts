/**
 * A resume answers the rows after its checkpoint against the side inputs as they are then: a
 * matrix whose destinations file was replaced between the stop and the resume mixed two sets of
 * stores in one output (the first depots' rows against 250 stores, the rest against 100) and
 * ended "done". The checkpoint marks each side input as the input is marked, and a changed one is
 * refused (or, with --restart-if-changed, the run starts over).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError, runJobFile } from '../../src/index.js';
import type { Journal } from '../../src/run/checkpoint.js';

let emulator: EmulatorHandle;
let dir: string;
const stores = readFileSync(resolve('samples/stores.csv'), 'utf8');
/** The next night's store list: the first 100 stores. */
const fewer = `${stores.split('\n').slice(0, 101).join('\n')}\n`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-side-resume-'));
  copyFileSync(resolve('samples/depots.csv'), join(dir, 'depots.csv'));
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A matrix job of its own directory's depots and stores, 10 stores a request. */
function job(name: string): { path: string; output: string; stores: string } {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(join(dir, `${name}.stores.csv`), stores);
  writeFileSync(
    path,
    `job: matrix\ninput: depots.csv\noutput: ${name}.csv\noptions:\n  tileSize: 10\n  destinations: { path: ${name}.stores.csv, mapping: { id: store_id } }\n`,
  );
  return { path, output: join(dir, `${name}.csv`), stores: join(dir, `${name}.stores.csv`) };
}

/** Stopped by the quota inside the second depot, its first committed. */
async function stopped(name: string) {
  const run = job(name);
  emulator.setFaults({ quotaAfter: 40 });
  const summary = await runJobFile(run.path, { emulator, concurrency: 1 });
  emulator.setFaults({});
  expect(summary.ended).toBe('stopped');
  const journal = JSON.parse(readFileSync(`${run.output}.checkpoint.json`, 'utf8')) as Journal;
  expect(journal.committedRows).toBeGreaterThan(0);
  expect(journal.sideInputs).toEqual([
    expect.objectContaining({
      key: 'options.destinations',
      path: run.stores,
      size: Buffer.byteLength(stores),
    }),
  ]);
  return run;
}

describe('a resume whose side input changed since the stop', () => {
  it('is refused, naming the side input, and nothing is sent', async () => {
    const run = await stopped('refused');
    writeFileSync(run.stores, fewer);
    const before = emulator.stats().total;
    const error = await runJobFile(run.path, { emulator, resume: true }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.message).toBe(
      `Checkpoint ${run.output}.checkpoint.json was made with another options.destinations file, or it changed since: the rows written were answered against it as it was`,
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({
      field: 'options.destinations',
      expected: expect.stringContaining(`${run.stores} (${Buffer.byteLength(stores)} bytes`),
      received: expect.stringContaining(`${run.stores} (${Buffer.byteLength(fewer)} bytes`),
    });
    expect(emulator.stats().total).toBe(before);
    // The same file put back: the resume goes on.
    writeFileSync(run.stores, stores);
    const again = await runJobFile(run.path, { emulator, resume: true }).catch((e: unknown) => e);
    // Written again, so its time changed: still refused, by its time alone.
    expect(isGeobatchError(again) && again.code).toBe('CHECKPOINT_MISMATCH');
  });

  it('starts over with --restart-if-changed and writes what a fresh run on the new file writes', async () => {
    const run = await stopped('restarted');
    writeFileSync(run.stores, fewer);
    const summary = await runJobFile(run.path, {
      emulator,
      resume: true,
      restartIfChanged: true,
    });
    expect(summary.resume).toMatchObject({ resumed: false, fromRow: 0 });
    const fresh = job('fresh');
    writeFileSync(fresh.stores, fewer);
    await runJobFile(fresh.path, { emulator });
    expect(readFileSync(run.output, 'utf8')).toBe(readFileSync(fresh.output, 'utf8'));
  });

  it('names a side input deleted since by its key, not as the input', async () => {
    const run = await stopped('deleted');
    rmSync(run.stores);
    const error = await runJobFile(run.path, { emulator, resume: true }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `options.destinations: ${run.stores} does not exist`,
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: run.stores,
      path: 'options.destinations',
    });
  });

  it('goes on when the side input is as it was', async () => {
    const run = await stopped('unchanged');
    const summary = await runJobFile(run.path, { emulator, resume: true });
    expect(summary.resume.resumed).toBe(true);
    const fresh = job('whole');
    await runJobFile(fresh.path, { emulator });
    expect(readFileSync(run.output, 'utf8')).toBe(readFileSync(fresh.output, 'utf8'));
  });
});
