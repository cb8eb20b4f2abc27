/**
 * Boundaries are cached as areas: a second run starts with a warm spatial index, so points it has
 * never seen, inside areas it has, cost no request; a point outside every area is remembered too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import type { RunSummary } from '../../src/output/summary.js';
import { cli, emulatorEnv, ROOT } from '../cli/_cli.js';

let emulator: EmulatorHandle;
let dir: string;
let areaRequests = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cache-areas-'));
  emulator = await startEmulator({
    preload: true,
    onRequest: (info) => {
      if (info.interface === 'area') areaRequests++;
    },
  });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The first 300 places of the sample, moved by `shift` degrees, and one point in the North Sea;
 * with `only`, just those places.
 */
function points(name: string, shift: number, only?: ReadonlySet<string>): string {
  const places = readFileSync(join(ROOT, 'samples', 'places.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1, 301);
  const lines = ['id,lat,lon'];
  for (const line of places) {
    const [id, , , lat, lon] = line.split(',');
    if (only !== undefined && !only.has(id as string)) continue;
    lines.push(`${id},${(Number(lat) + shift).toFixed(6)},${(Number(lon) + shift).toFixed(6)}`);
  }
  lines.push('sea,54.9,4.5');
  const file = join(dir, `${name}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function boundaries(input: string, output: string, cache: string, spatialIndex = true) {
  const job = join(dir, `${output}.yaml`);
  writeFileSync(
    job,
    `job: boundaries\ninput: ${input}\noutput: ${output}/r.csv\noptions: { levels: [4, 6], spatialIndex: ${spatialIndex} }\n`,
  );
  areaRequests = 0;
  const run = cli(['run', job, '--no-progress'], { ...emulatorEnv(emulator), GEOBATCH_CACHE: cache });
  expect(await run.exited, run.err()).toBe(3); // the sea point is outside every area
  const summary = JSON.parse(readFileSync(join(dir, output, 'r.csv.summary.json'), 'utf8')) as RunSummary;
  const report = readFileSync(join(dir, output, 'r.csv.report.html'), 'utf8');
  return {
    requests: areaRequests,
    output: readFileSync(join(dir, output, 'r.csv')),
    summary,
    lead: /<p class="lead">([^<]*)/.exec(report)?.[1] ?? '',
  };
}

/** Every item once: sent in a first pass, spared by batching, dedup, a local answer or the cache. */
function itemsOf(s: RunSummary): number {
  const q = s.requests;
  const hits = s.cache?.hits ?? 0;
  return q.sent - (q.resent ?? 0) + q.savedByBatching + q.savedByDedup + q.savedByLocalAnswers + hits;
}

describe('the boundaries job with the cache', () => {
  it('answers a second run, and points it never saw inside known areas, without a request', async () => {
    const cache = join(dir, 'a.sqlite');
    const first = await boundaries(points('first', 0), 'first', cache);
    expect(first.requests).toBeGreaterThan(0);
    const again = await boundaries(points('first', 0), 'again', cache);
    expect(again.requests).toBe(0);
    expect(again.output.equals(first.output)).toBe(true);
    // The summary and the run report count each item once, and no request where none went: a
    // fully cached run said "4 requests for 778 items" for 601 items and no HTTP request.
    const items = first.summary.rows.read;
    expect(itemsOf(first.summary)).toBe(items);
    expect(itemsOf(again.summary)).toBe(items);
    expect(again.summary.requests).toMatchObject({ http: 0, sent: 0, itemsSent: 0, savedByBatching: 0 });
    expect(first.summary.cache?.misses).toBe(first.summary.requests.itemsSent);
    expect(again.summary.cache).toMatchObject({ misses: 0, writes: 0 });
    expect(again.summary.cache?.hits).toBeGreaterThan(0);
    // The requests the cache saved are the HTTP requests the run without it sent (one per level
    // and batch, and again for points an answer did not place), not the engine's batches: a fully
    // cached run said 2 where the first had sent 6.
    expect(first.summary.requests.http).toBe(first.requests);
    expect(again.summary.cache?.requestsSaved).toBe(first.requests);
    // Unique items are those a request was sent for: neither the items the areas learnt since
    // placed before their batch left (local answers) nor those the cache answered.
    expect(first.summary.requests.uniqueItems).toBe(first.summary.requests.itemsSent);
    expect(again.summary.requests.uniqueItems).toBe(0);
    expect(again.lead).toMatch(
      new RegExp(
        `^0 requests for ${items} items: .* 100% saved\\. 0 reached the service over HTTP, each request once\\.`,
      ),
    );
    // Other points (moved by ~10 m) in the areas known: the warm index answers them all. (A place
    // no area covered is left out: moved, it is a new point outside, and is asked.)
    const covered = new Set(
      first.output
        .toString()
        .split('\n')
        .filter((line) => line.includes(',ok,'))
        .map((line) => line.split(',')[0] as string),
    );
    expect(covered.size).toBeGreaterThan(290);
    const moved = await boundaries(points('moved', 0.0001, covered), 'moved', cache);
    expect(moved.requests).toBe(0);
    expect(moved.summary.requests.sent).toBe(0);
    expect(itemsOf(moved.summary)).toBe(moved.summary.rows.read);
    const reference = await boundaries(
      points('moved', 0.0001, covered),
      'reference',
      join(dir, 'empty.sqlite'),
    );
    expect(reference.requests).toBeGreaterThan(0);
    expect(moved.output.equals(reference.output)).toBe(true);
    expect(moved.summary.cache?.requestsSaved).toBe(reference.requests);
    expect(moved.summary.requests.uniqueItems).toBe(0);
    // Partly cached: the places moved by half a degree fall in areas the cache has and in others
    // it has not (the sea point is remembered outside); the figures still add up.
    const partly = await boundaries(points('partly', 0.5), 'partly', cache);
    expect(partly.requests).toBeGreaterThan(0);
    expect(itemsOf(partly.summary)).toBe(partly.summary.rows.read);
    expect(partly.summary.requests.sent).toBeGreaterThan(0);
    expect(partly.summary.requests.sent).toBeLessThanOrEqual(partly.requests);
    expect(partly.summary.cache?.misses).toBe(partly.summary.requests.itemsSent);
    expect(partly.summary.requests.uniqueItems).toBe(partly.summary.requests.itemsSent);
    // What went and what the cache spared make what the run without the cache sends.
    const partlyUncached = await boundaries(points('partly', 0.5), 'partly-ref', join(dir, 'empty2.sqlite'));
    expect(partly.requests + (partly.summary.cache?.requestsSaved ?? 0)).toBe(partlyUncached.requests);
  });

  it('shares its areas with the one-GET-per-point mode', async () => {
    const cache = join(dir, 'b.sqlite');
    const first = await boundaries(points('get', 0), 'get1', cache, false);
    expect(first.requests).toBeGreaterThan(0);
    const second = await boundaries(points('get', 0), 'get2', cache, false);
    expect(second.requests).toBe(0);
    expect(second.output.equals(first.output)).toBe(true);
  });
});
