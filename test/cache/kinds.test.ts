/**
 * Every job kind, as its sample job runs it, twice over one cache file: the second run asks
 * again only for its failed rows and writes the same bytes, trip and match (kept per whole trip or
 * track) as every other kind. A kind added without a way to be cached fails here until it gets one
 * (README, "The request cache").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

const JOBS = new URL('../../jobs/', import.meta.url).pathname;

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = await mkdtemp(join(tmpdir(), 'geobatch-cache-kinds-'));
});

afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

const jobs = readdirSync(JOBS).filter((name) => name.endsWith('.yaml'));

describe('the request cache, every sample job twice', () => {
  it.each(jobs)('%s', async (name) => {
    const cache = { location: join(dir, `${name}.sqlite`) };
    const run = (n: number) =>
      runJobFile(join(JOBS, name), { emulator, cache, output: join(dir, `${name}.${n}.csv`) });
    const first = await run(1);
    const second = await run(2);
    expect(first.requests.http).toBeGreaterThan(0);
    expect(readFileSync(join(dir, `${name}.2.csv`), 'utf8')).toBe(
      readFileSync(join(dir, `${name}.1.csv`), 'utf8'),
    );
    expect(second.cache?.uncached).toEqual([]);
    // Only failures are asked again (they are never kept): at most a request per failed row.
    expect(second.requests.http).toBeLessThanOrEqual(first.rows.failed);
    expect(second.requests.http).toBeLessThan(first.requests.http);
    expect(second.cache?.hits).toBeGreaterThan(0);
  });
});
