/**
 * The run report's map shows a failed row of a CSV input where its job read it (the mapped lon/lat
 * columns): a point outside every area is drawn in red, not only counted below the map.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-report-map-'));
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

interface MapFeature {
  readonly geometry: { type: string; coordinates: number[] };
  readonly properties: { r: number; s: string };
}

function mapOf(html: string): MapFeature[] {
  const json = /<script type="application\/json" id="gb-data">(.*?)<\/script>/s.exec(html)?.[1];
  if (json === undefined) throw new Error('no data in the page');
  return (JSON.parse(json) as { map: { features: { features: MapFeature[] } } }).map.features.features;
}

describe('the run report map of a CSV input', () => {
  it.each([
    ['boundaries', 'job: boundaries\nmapping: { lon: x, lat: y }\n'],
    [
      'a pipeline',
      'steps:\n  - job: elevation\n    mapping: { lon: x, lat: y }\n  - job: boundaries\n    mapping: { lon: x, lat: y }\n',
    ],
  ])('draws a failed row at its mapped point: %s', async (name, body) => {
    const input = join(dir, 'points.csv');
    writeFileSync(input, 'id,y,x\nkarlsruhe,49.00937,8.40444\nsea,54.9,4.5\nbad,,\n');
    const job = join(dir, `${name}.yaml`);
    writeFileSync(job, `input: ${input}\noutput: ${join(dir, `${name}.csv`)}\n${body}`);
    const summary = await runJobFile(job, { emulator });
    expect(summary.rows).toMatchObject({ ok: 1, failed: 2 });
    const features = mapOf(readFileSync(summary.runReport as string, 'utf8'));
    expect(features.map((f) => [f.properties.r, f.properties.s, f.geometry.coordinates])).toEqual([
      [1, 'ok', [8.40444, 49.00937]],
      [2, 'failed', [4.5, 54.9]],
    ]);
  });
});
