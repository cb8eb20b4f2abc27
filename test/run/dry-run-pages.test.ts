/**
 * A dry run of an address search that pages: its count is one request a search, as before, and
 * beside it the most that further pages of hits could add, which only the answers tell. The run's
 * own count lies between the two.
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

function job(name: string, options: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    [
      'job: address-search',
      `input: ${resolve('samples/sites.csv')}`,
      `output: ${name}.csv`,
      'options:',
      '  branches: "1201"',
      '  radiusMeters: 20000',
      '  mode: explode',
      ...options.split('\n').map((line) => `  ${line}`),
      '',
    ].join('\n'),
  );
  return path;
}

beforeAll(async () => {
  emulator = await startEmulator({ onRequest: () => served++ });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-dry-pages-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a dry run of an address search that pages', () => {
  it('gives the most requests further pages could add, and the run sends between the two counts', async () => {
    const path = job('paged', 'nearest: 30\npageSize: 10');
    const dry = await runJobFile(path, { emulator, dryRun: true, rate: 5 });
    // Ten sites searched (one row fails before any request), up to three pages each.
    expect(dry.estimate).toEqual({ requests: 10, requestsAtMost: 30, requestsPerSecond: 5, seconds: 2 });
    expect(describeSummary(dry)).toContain(
      '  up to 30 requests (about 6 s) with further pages of hits, as the answers need them',
    );
    served = 0;
    const real = await runJobFile(path, { emulator });
    expect(real.requests.http).toBe(served);
    expect(served).toBeGreaterThan(10);
    expect(served).toBeLessThanOrEqual(30);
  });

  it('says that nothing bounds the pages of nearest: all', async () => {
    const dry = await runJobFile(job('all', 'nearest: all'), { emulator, dryRun: true });
    expect(dry.estimate).toMatchObject({ requests: 10, requestsAtMost: null });
    expect(describeSummary(dry)).toContain(
      '  and one more for every further page of hits the service has (nearest: all): only the answers tell',
    );
  });

  it('gives the same count twice when one page holds what nearest asks for', async () => {
    const dry = await runJobFile(job('single', 'nearest: 30'), { emulator, dryRun: true });
    expect(dry.estimate).toMatchObject({ requests: 10, requestsAtMost: 10 });
    expect(describeSummary(dry)).not.toContain('further page');
  });
});
