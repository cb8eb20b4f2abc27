/**
 * The request cache is a file of its own. `--cache out.csv` made the run replace its cache with
 * its output, leave the cache's -wal beside it, and the next night stop on "not an SQLite
 * database" with `cache clear --force` as the advice, which would have deleted the output.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError, runJobFile } from '../../src/index.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cache-file-'));
  copyFileSync(resolve('samples/community-centres.csv'), join(dir, 'addresses.csv'));
  copyFileSync(resolve('samples/depots.csv'), join(dir, 'depots.csv'));
  copyFileSync(resolve('samples/stores.csv'), join(dir, 'stores.csv'));
  writeFileSync(
    join(dir, 'geocode.yaml'),
    'job: geocode\ninput: addresses.csv\noutput: out.csv\nmapping: { street: street, houseNo: housenumber, zip: plz, city: city }\n',
  );
  writeFileSync(
    join(dir, 'matrix.yaml'),
    'job: matrix\ninput: depots.csv\noutput: matrix.csv\noptions:\n  destinations: { path: stores.csv, mapping: { id: store_id } }\n',
  );
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

async function refused(job: string, cache: string, more: { errors?: string } = {}) {
  const before = emulator.stats().total;
  const input = readFileSync(join(dir, 'addresses.csv'));
  const error = await runJobFile(join(dir, job), {
    emulator,
    cache: { location: join(dir, cache) },
    ...more,
  }).catch((e: unknown) => e);
  expect(emulator.stats().total).toBe(before);
  expect(readFileSync(join(dir, 'addresses.csv'))).toEqual(input);
  expect(existsSync(join(dir, `${cache}-wal`))).toBe(false);
  expect(isGeobatchError(error) && error.code).toBe('USAGE');
  return error as { message: string; context: Record<string, unknown> };
}

describe('a request cache named as a file the run writes or reads', () => {
  it('is refused before anything is sent, naming which file it is', async () => {
    for (const [cache, role, more] of [
      ['out.csv', 'an output', {}],
      ['out.errors.csv', 'the error report', {}],
      ['failed.csv', 'the error report', { errors: join(dir, 'failed.csv') }],
      ['out.csv.report.html', 'the run report', {}],
      ['out.csv.summary.json', 'the run summary', {}],
      ['addresses.csv', 'the input', {}],
      ['out.csv.checkpoint.json', "the run's checkpoint", {}],
      ['out.csv.partial', "an output's .partial file", {}],
      ['out.errors.csv.partial', "the error report's .partial file", {}],
    ] as const) {
      const error = await refused('geocode.yaml', cache, more);
      expect(error.message, cache).toBe(`The request cache ${join(dir, cache)} is ${role} too`);
      expect(error.context, cache).toMatchObject({ file: join(dir, cache), field: 'cache' });
      expect(existsSync(join(dir, 'out.csv')), cache).toBe(false);
    }
    const side = await refused('matrix.yaml', 'stores.csv');
    expect(side.message).toBe(
      `The request cache ${join(dir, 'stores.csv')} is options.destinations, a file the run reads too`,
    );
  });

  it('of its own, is used', async () => {
    const summary = await runJobFile(join(dir, 'geocode.yaml'), {
      emulator,
      cache: { location: join(dir, 'own.sqlite') },
      rows: { limit: 5 },
    });
    expect(summary.cache?.location).toBe(join(dir, 'own.sqlite'));
  });
});
