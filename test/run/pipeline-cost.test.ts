/**
 * What a pipeline costs, as the README states it for jobs/enrich-addresses.yaml: a later step's
 * batches are packed full whatever the service's latency, since its rows arrive at the pace of the
 * step before it. Measured at the emulator, with a real service's latency and a small concurrency
 * (where rows trickle in slowest), and without latency.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-pipeline-cost-'));
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The README's "The three steps above cost A + B + C requests for N rows". */
function documented(): { perStep: number[]; rows: number } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const found = /The three steps above cost (\d+) \+ (\d+) \+ (\d+) requests for (\d+) rows/.exec(readme);
  if (found === null) throw new Error('README: the pipeline cost sentence is gone');
  return { perStep: found.slice(1, 4).map(Number), rows: Number(found[4]) };
}

describe('the enrich-addresses pipeline', () => {
  it.each([
    ['no latency, concurrency 16', 0, 16],
    ['20 ms a request, concurrency 4', 20, 4],
  ])('costs what the README says per step: %s', async (name, latency, concurrency) => {
    emulator.setFaults(latency === 0 ? {} : { latency: { fixedMs: latency } });
    const summary = await runJobFile(join(ROOT, 'jobs', 'enrich-addresses.yaml'), {
      emulator,
      concurrency,
      output: join(dir, `${concurrency}.csv`),
    });
    const { perStep, rows } = documented();
    expect(summary.rows.read).toBe(rows);
    expect(
      summary.steps?.map((step) => step.requests.sent),
      name,
    ).toEqual(perStep);
  });

  it('is planned by a dry run with its first step’s cache: what the cache holds is not counted as requests', async () => {
    emulator.setFaults({});
    const job = join(ROOT, 'jobs', 'enrich-addresses.yaml');
    const cache = { location: join(dir, 'dry.sqlite') };
    const real = await runJobFile(job, { emulator, cache, output: join(dir, 'dry.csv') });
    const geocoded = real.steps?.[0]?.requests.sent ?? 0;
    expect(geocoded).toBeGreaterThan(0);
    const dry = await runJobFile(job, { emulator, cache, dryRun: true, output: join(dir, 'dry.csv') });
    expect(dry.cache?.hits).toBe(geocoded);
    expect(dry.estimate?.requests).toBe(0);
    // Its counts are said to be the first step's: the later steps' are not planned.
    expect(dry.estimate?.firstStepOf).toEqual({ step: 'geocode', steps: 3 });
  });
});
