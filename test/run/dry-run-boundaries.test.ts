/**
 * A dry run of boundaries counts what the run sends. Without the spatial index every point and
 * level is one GET, which the dry run knows exactly; with it, later batches are placed by the areas
 * earlier answers taught, which only the answers tell: the dry run gives the fewest, the first
 * batch's one request a level, says "at least", and states its rule.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

let emulator: EmulatorHandle;
let dir: string;
let served = 0;

function job(name: string, options: string, input = resolve('samples/places.csv')): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    ['job: boundaries', `input: ${input}`, `output: ${name}.csv`, `options: ${options}`, ''].join('\n'),
  );
  return path;
}

/** The dry run's estimate, then the requests the run made as the emulator saw them. */
async function both(path: string, limit: number) {
  const dry = await runJobFile(path, { emulator, dryRun: true, rate: 10, rows: { limit } });
  served = 0;
  const real = await runJobFile(path, { emulator, rows: { limit } });
  expect(real.requests.http).toBe(served);
  return { dry, served };
}

beforeAll(async () => {
  emulator = await startEmulator({ onRequest: () => served++ });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-dry-boundaries-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a dry run of boundaries without the spatial index', () => {
  it('counts one GET a point and level, as many as the run sends', async () => {
    const { dry, served } = await both(job('get', '{levels: [2, 4, 6], spatialIndex: false}'), 100);
    expect(served).toBe(300);
    expect(dry.estimate).toEqual({ requests: 300, requestsAtMost: 300, requestsPerSecond: 10, seconds: 30 });
    expect(describeSummary(dry)).toContain('  300 requests after dedup and batching');
    expect(describeSummary(dry)).not.toContain('at least');
  });

  it('counts each level once for a point where the finer levels have no area', async () => {
    // Level 8 has no area in the emulator's data: the run asks it, then the coarser ones.
    const { dry, served } = await both(job('missing', '{levels: [4, 6, 8], spatialIndex: false}'), 40);
    expect(served).toBe(120);
    expect(dry.estimate?.requests).toBe(served);
  });
});

describe('a dry run of boundaries with the spatial index', () => {
  it('gives the fewest requests, one a level for the first batch, and says it is at least that', async () => {
    const { dry, served } = await both(job('five', '{levels: [2, 4, 5, 6]}'), 5);
    expect(dry.estimate).toEqual({
      requests: 4,
      requestsAtMost: null,
      requestsRule:
        'with the spatial index, 1 batch of points: the first asks each of the 4 levels at least once; each batch asks only for the points the areas learnt from earlier answers do not place, 0 to 7 requests a batch, which only the answers tell',
      requestsPerSecond: 10,
      seconds: 1,
    });
    expect(served).toBeGreaterThanOrEqual(4);
    expect(served).toBeLessThanOrEqual(7);
    const lines = describeSummary(dry);
    expect(lines).toContain('  at least 4 requests after dedup and batching');
    expect(lines).toContain('at least 1 s at 10 requests/s');
    expect(lines).toContain('  with the spatial index, 1 batch of points:');
  });

  it('stays at or below what the run sends over many batches, at the levels it asks', async () => {
    for (const levels of ['[4, 6]', '[2, 4, 5, 6]']) {
      const { dry, served } = await both(job('many', `{levels: ${levels}}`), 2006);
      const count = JSON.parse(levels).length as number;
      expect(dry.estimate?.requests).toBe(count);
      expect(dry.estimate?.requestsRule).toMatch(/^with the spatial index, 21 batches of points:/);
      expect(served).toBeGreaterThanOrEqual(count);
      expect(served).toBeLessThanOrEqual(21 * (2 * count - 1));
    }
  });
});
