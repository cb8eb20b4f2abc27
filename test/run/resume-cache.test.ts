/**
 * A resumed run's request cache figures cover every session, as its rows, requests and items do:
 * the checkpoint carries them. Counted for the last session alone, a run stopped after the cache
 * had answered its first rows said "1 item from the cache" when it finished.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import type { Journal } from '../../src/run/checkpoint.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const JOB = join(ROOT, 'jobs', 'geocode.yaml');

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-resume-cache-'));
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A cache holding the answers of the sample's first 100 rows. */
async function warmCache(name: string): Promise<{ location: string }> {
  const cache = { location: join(dir, `${name}.sqlite`) };
  emulator.setFaults({});
  await runJobFile(JOB, { emulator, cache, output: join(dir, `${name}.warm.csv`), rows: { limit: 100 } });
  return cache;
}

describe('a resumed run with the request cache', () => {
  it('adds up the cache figures of every session, as one run without a stop gives them', async () => {
    const reference = await runJobFile(JOB, {
      emulator,
      cache: await warmCache('reference'),
      output: join(dir, 'reference.csv'),
    });
    expect(reference.cache?.hits).toBeGreaterThan(90);

    const cache = await warmCache('resumed');
    const output = join(dir, 'resumed.csv');
    // The quota runs out past the rows the cache answers: the run stops with them written. One
    // request at a time, so that no answer is bought for a row the stop leaves unwritten (the
    // resume would take it from the cache, a hit beside the request that bought it).
    emulator.setFaults({ quotaAfter: 100 });
    const stopped = await runJobFile(JOB, { emulator, cache, output, concurrency: 1 });
    expect(stopped.ended).toBe('stopped');
    expect(stopped.error?.code).toBe('QUOTA_EXCEEDED');
    expect(stopped.rows.written).toBeGreaterThan(100);
    expect(stopped.cache?.hits).toBe(reference.cache?.hits);
    const journal = JSON.parse(readFileSync(`${output}.checkpoint.json`, 'utf8')) as Journal;
    expect(journal.cache).toMatchObject({
      hits: stopped.cache?.hits,
      requestsSaved: stopped.cache?.requestsSaved,
      writes: stopped.cache?.writes,
    });

    emulator.setFaults({});
    const resumed = await runJobFile(JOB, { emulator, cache, output, resume: true });
    expect(resumed.ended).toBe(reference.ended);
    expect(resumed.resume.resumed).toBe(true);
    expect(resumed.cache).toMatchObject({ store: 'sqlite', location: cache.location, mode: 'use' });
    // The hits before the stop stay counted, with the resumed session's on top (a key the stopped
    // session sent may come again after the resume point: a hit there, dedup in one pass).
    const hits = stopped.cache?.hits ?? 0;
    expect(resumed.cache?.hits).toBeGreaterThanOrEqual(hits);
    expect(resumed.cache?.hits).toBeLessThanOrEqual(hits + reference.requests.savedByDedup);
    expect(resumed.cache?.requestsSaved).toBeGreaterThanOrEqual(stopped.cache?.requestsSaved ?? 0);
    // Every answer bought is written once, whichever session bought it.
    expect(resumed.cache?.writes).toBe(reference.cache?.writes);
    // Items unique once sent: not those read ahead of the stop and never asked (302 for 101 sent).
    expect(stopped.requests.uniqueItems).toBe(stopped.requests.itemsSent - stopped.requests.resent);
    expect(resumed.requests.uniqueItems).toBe(resumed.requests.itemsSent - resumed.requests.resent);
    expect(readFileSync(output, 'utf8')).toBe(readFileSync(join(dir, 'reference.csv'), 'utf8'));
  });

  it('counts each row that needed an answer once, as a hit or a miss, over a stop with rows in flight and its resume', async () => {
    emulator.setFaults({});
    // Without a cache's help: every item is a miss, and dedup answers the rest of the rows.
    const cold = await runJobFile(JOB, {
      emulator,
      cache: { location: join(dir, 'cold.sqlite') },
      output: join(dir, 'cold.csv'),
    });
    const needed = (cold.cache?.misses ?? 0) + cold.requests.savedByDedup;
    expect(cold.cache?.hits).toBe(0);
    expect(needed).toBe(
      cold.rows.read -
        (cold.rows.failedByCode.FIELD_MISSING ?? 0) -
        (cold.rows.failedByCode.FIELD_INVALID ?? 0),
    );

    const cache = { location: join(dir, 'in-flight.sqlite') };
    const output = join(dir, 'in-flight.csv');
    // Sixteen requests at a time: the refused request's row holds back the rows behind it, whose
    // answers come back and are written to the cache, but not to the output.
    emulator.setFaults({ quotaAfter: 100 });
    const stopped = await runJobFile(JOB, { emulator, cache, output, concurrency: 16 });
    expect(stopped.error?.code).toBe('QUOTA_EXCEEDED');
    // Misses are the items sent, not every row read ahead of the stop and looked up.
    expect(stopped.cache?.misses).toBe(stopped.requests.uniqueItems);
    const journal = JSON.parse(readFileSync(`${output}.checkpoint.json`, 'utf8')) as Journal;
    // The checkpoint carries the rows it committed, not the refused one nor those behind it.
    const carried = (journal.cache?.hits ?? 0) + (journal.cache?.misses ?? 0);
    expect(carried).toBeLessThan(journal.committedRows);
    expect(carried).toBeLessThan((stopped.cache?.hits ?? 0) + (stopped.cache?.misses ?? 0));

    emulator.setFaults({});
    const resumed = await runJobFile(JOB, { emulator, cache, output, resume: true });
    expect(resumed.ended).toBe(cold.ended);
    // (The sample's repeated addresses lie far apart: the first of each is committed before the
    // stop, the other is a hit of the resume.)
    // Each row that needed an answer once: the refused row's item, sent by both sessions, and the
    // rows answered before the stop but not written, hits of the resume, are counted once.
    expect((resumed.cache?.hits ?? 0) + (resumed.cache?.misses ?? 0)).toBe(needed);
    expect(resumed.cache?.writes).toBe(cold.cache?.writes);
  });
});
