/**
 * Two steps of one kind in a pipeline buy an identical request once: an item whose identical
 * request (same scope, same key) is in flight in another step waits for that answer. Without it,
 * a review's job of two geocode steps over the same 30 addresses (300 rows) sent 48 geocodes with
 * the request cache on: the cache answers only once an answer is stored.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

let emulator: EmulatorHandle;
let dir: string;
/** The distinct zip/city pairs the rows are made of. */
let places: [string, string][];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-shared-flights-'));
  emulator = await startEmulator({ preload: true });
  const rows = parse(readFileSync(join(ROOT, 'samples', 'community-centres.csv')), {
    columns: true,
  }) as Record<string, string>[];
  const seen = new Map<string, [string, string]>();
  for (const row of rows) {
    const zip = row.plz ?? '';
    if (/^\d{5}$/.test(zip) && !seen.has(zip)) seen.set(zip, [zip, row.city ?? '']);
    if (seen.size === 30) break;
  }
  places = [...seen.values()];
  // 300 rows, 30 distinct addresses on both sides: row i goes from place i to place i + 7.
  const lines = ['id,fzip,fcity,tzip,tcity'];
  for (let i = 0; i < 300; i++) {
    const [fzip, fcity] = places[i % 30] as [string, string];
    const [tzip, tcity] = places[(i + 7) % 30] as [string, string];
    lines.push(`${i},${fzip},"${fcity}",${tzip},"${tcity}"`);
  }
  writeFileSync(join(dir, 'two300.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'two300.yaml'),
    [
      'input: two300.csv',
      'output: two300.out.csv',
      'steps:',
      '  - job: geocode',
      '    name: from',
      '    mapping: { zip: fzip, city: fcity }',
      '    options: { prefix: f_ }',
      '  - job: geocode',
      '    name: to',
      '    mapping: { zip: tzip, city: tcity }',
      '    options: { prefix: t_ }',
      '  - job: route',
      '    mapping: { originLon: f_lon, originLat: f_lat, destinationLon: t_lon, destinationLat: t_lat }',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  emulator.setFaults({});
  emulator.resetStats();
});

function geocodes(): number {
  return emulator.stats().byEndpoint['POST /api_rst/v2/geojson/geocode']?.total ?? 0;
}

describe('two geocode steps over the same addresses', () => {
  it.each([
    ['a fresh request cache', 'fresh'],
    ['--no-cache', 'none'],
  ] as const)('buy each address once, with %s', async (_name, cache) => {
    expect(places).toHaveLength(30);
    const summary = await runJobFile(join(dir, 'two300.yaml'), {
      emulator,
      output: join(dir, `${cache}.csv`),
      cache: cache === 'fresh' ? { location: join(dir, 'fresh.sqlite') } : { location: false },
    });
    expect(summary.rows).toMatchObject({ read: 300, ok: 300, failed: 0 });
    // One request per distinct address, whichever step asked first.
    expect(geocodes()).toBe(30);
    const [from, to] = summary.steps ?? [];
    expect((from?.requests.sent ?? 0) + (to?.requests.sent ?? 0)).toBe(30);
    expect((from?.requests.itemsSent ?? 0) + (to?.requests.itemsSent ?? 0)).toBe(30);
    // The other 570 items were answered by dedup (an identical item's request, in this step or
    // in flight in the other) or by the cache, once an answer was stored.
    const hits = summary.cache?.hits ?? 0;
    const dedup = (from?.requests.savedByDedup ?? 0) + (to?.requests.savedByDedup ?? 0);
    expect(dedup + hits).toBe(570);
    if (cache === 'none') expect(summary.cache).toBeNull();
  });

  it('count the requests a warm cache saved as a run without it would have sent them: once per address', async () => {
    const cache = { location: join(dir, 'warm.sqlite') };
    await runJobFile(join(dir, 'two300.yaml'), { emulator, output: join(dir, 'cold.csv'), cache });
    emulator.resetStats();
    const summary = await runJobFile(join(dir, 'two300.yaml'), {
      emulator,
      output: join(dir, 'warm.csv'),
      cache,
    });
    expect(summary.rows).toMatchObject({ read: 300, ok: 300 });
    expect(geocodes()).toBe(0);
    // 30 geocodes and 30 routes: the two geocode steps share their dedup, so an address the cache
    // answered both spared one request, not two.
    expect(summary.cache?.requestsSaved).toBe(60);
  });

  it('buy each address once with a latency that keeps the requests in flight', async () => {
    emulator.setFaults({ latency: { fixedMs: 30 } });
    const summary = await runJobFile(join(dir, 'two300.yaml'), {
      emulator,
      output: join(dir, 'slow.csv'),
      cache: { location: join(dir, 'slow.sqlite') },
    });
    expect(summary.rows).toMatchObject({ read: 300, ok: 300 });
    expect(geocodes()).toBe(30);
  });
});
