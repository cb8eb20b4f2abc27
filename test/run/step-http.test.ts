/**
 * What each step of a pipeline cost: its HTTP requests, counted by the client as the run's
 * `requests.http` is (retries, further pages, boundaries' calls a level included), so that the
 * steps' add up to the run's and each step's is what the service saw of it. A step's `sent`
 * counts one request a batch: a boundaries step said 5 where the service saw 8.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

let emulator: EmulatorHandle;
let dir: string;

const PIPELINE = `input: ${resolve('samples/community-centres.csv')}
steps:
  - job: geocode
    mapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }
    options: { prefix: geo_ }
  - job: boundaries
    mapping: { lon: geo_lon, lat: geo_lat }
    options: { levels: [4, 6] }
  - job: elevation
    mapping: { lon: geo_lon, lat: geo_lat }
  - job: reverse-geocode
    mapping: { lon: geo_lon, lat: geo_lat }
    options: { prefix: rev_ }
  - job: address-search
    mapping: { lon: geo_lon, lat: geo_lat }
    options: { branches: "1201", radiusMeters: 20000, nearest: all, pageSize: 5, mode: explode }
`;

beforeAll(async () => {
  emulator = await startEmulator();
  dir = mkdtempSync(join(tmpdir(), 'geobatch-step-http-'));
  writeFileSync(join(dir, 'pipe.yaml'), `output: pipe.csv\n${PIPELINE}`);
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a pipeline's steps", () => {
  it('each count the HTTP requests the service saw of them, retries and pages included', async () => {
    // Some 503s, retried: each step counts its retries, as the run's http does.
    emulator.setFaults({ error503: 0.1, seed: 3 });
    emulator.resetStats();
    const summary = await runJobFile(join(dir, 'pipe.yaml'), { emulator, rows: { limit: 40 } });
    emulator.setFaults({});
    const seen = emulator.stats();
    const byInterface = (name: string) =>
      (seen.byInterface as Record<string, { total: number } | undefined>)[name]?.total ?? 0;
    const http = Object.fromEntries((summary.steps ?? []).map((step) => [step.name, step.requests.http]));
    const retries = summary.client?.retries as { total?: number } | undefined;
    expect(retries?.total).toBeGreaterThan(0);
    // geocode and reverse-geocode share the geocoding interface.
    expect((http.geocode ?? 0) + (http['reverse-geocode'] ?? 0)).toBe(byInterface('geocoding'));
    expect(http.boundaries).toBe(byInterface('area'));
    expect(http.elevation).toBe(byInterface('elevation'));
    expect(http['address-search']).toBe(byInterface('addressSearch'));
    // They add up to the run's, which is what the service saw.
    const sum = Object.values(http).reduce((a, b) => (a ?? 0) + (b ?? 0), 0);
    expect(sum).toBe(summary.requests.http);
    expect(sum).toBe(seen.total);
    // One a batch leaves out boundaries' calls a level and the search's further pages.
    const step = (name: string) => summary.steps?.find((s) => s.name === name)?.requests;
    expect(step('boundaries')?.http).toBeGreaterThan(step('boundaries')?.sent ?? 0);
    expect(step('address-search')?.http).toBeGreaterThan(step('address-search')?.sent ?? 0);
  });

  it("show their HTTP requests in the run report's Steps table, beside the batches sent", async () => {
    const summary = await runJobFile(join(dir, 'pipe.yaml'), { emulator, rows: { limit: 10 } });
    const html = readFileSync(summary.runReport ?? '', 'utf8');
    const steps = /<section id="steps">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(steps).toContain('<th class="n">HTTP requests</th><th class="n">batches sent</th>');
    expect(steps).not.toContain('requests sent');
    for (const s of summary.steps ?? []) {
      const row = new RegExp(`<tr data-step="${s.name}">(.*?)</tr>`).exec(steps)?.[1] ?? '';
      const cells = [...row.matchAll(/<td class="n">([^<]*)<\/td>/g)].map((m) => m[1]);
      expect(cells.slice(3, 5), s.name).toEqual([String(s.requests.http), String(s.requests.sent)]);
    }
    expect(steps).toContain(`${summary.requests.http} in all, the run&#39;s HTTP requests`);
  });
});
