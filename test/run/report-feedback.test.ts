/**
 * An error report fed back as the input of the same job: the README's way to retry the rows that
 * failed. The NDJSON report of a GeoJSON input keeps each row's geometry, so the rows read back are
 * the rows that failed, and fail (or pass) for the same reasons.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

const JOB = new URL('../../jobs/boundaries.yaml', import.meta.url).pathname;

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-feedback-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Reported {
  readonly code: string;
  readonly fields: Record<string, unknown>;
  readonly geometry?: unknown;
  readonly raw: string | null;
}

const records = (path: string): Reported[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Reported);

describe('an NDJSON error report fed back as input', () => {
  it('gives back the rows that failed, geometry included, and they fail again for the same reasons', async () => {
    const first = join(dir, 'first.errors.ndjson');
    const summary = await runJobFile(JOB, { emulator, output: join(dir, 'first.geojson'), errors: first });
    const failed = records(first);
    expect(failed.length).toBe(summary.rows.failed);
    // The readable rows carry the geometry they were read with (null for a feature without one).
    const readable = failed.filter((r) => r.raw === null);
    expect(readable.length).toBeGreaterThan(0);
    for (const r of readable) expect(r).toHaveProperty('geometry');
    expect(readable.some((r) => (r.geometry as { type?: string } | null)?.type === 'Point')).toBe(true);

    // The report alone as input: only the readable rows (an unreadable record has no fields to run).
    const input = join(dir, 'retry.ndjson');
    writeFileSync(input, readable.map((r) => JSON.stringify(r)).join('\n'));
    const second = join(dir, 'second.errors.ndjson');
    const again = await runJobFile(JOB, {
      emulator,
      input,
      output: join(dir, 'second.geojson'),
      errors: second,
    });
    expect(again.rows.read).toBe(readable.length);
    const refailed = records(second);
    expect(refailed.map((r) => [r.code, r.fields, r.geometry])).toEqual(
      readable.map((r) => [r.code, r.fields, r.geometry]),
    );
  });
});
