import { check } from '@placemarkio/check-geojson';
import { describe, expect, it } from 'vitest';
import { createGeojsonWriter } from '../../src/output/geojson.js';
import type { Outcome } from '../../src/types.js';
import { failed, memorySink, ok, row } from './_outcomes.js';

const options = { jobColumns: ['lat', 'lon'], inputColumns: () => ['name'] };
const point: GeoJSON.Point = { type: 'Point', coordinates: [8.4, 49.0] };

async function writeAll(outcomes: Outcome[]) {
  const { sink, text } = memorySink();
  const writer = createGeojsonWriter(sink, options);
  for (const outcome of outcomes) writer.write(outcome);
  writer.end();
  return text();
}

describe('GeoJSON writer', () => {
  it('writes a FeatureCollection a GeoJSON validator accepts, with the geometry each record asks for', async () => {
    const text = await writeAll([
      ok(row(0, { name: 'input geometry' }, point), { columns: { lat: 49, lon: 8.4 } }),
      ok(row(1, { name: 'job point' }), {
        columns: { lat: 50 },
        geometry: { type: 'Point', coordinates: [7, 50] },
      }),
      ok(row(2, { name: 'job null' }, point), { columns: {}, geometry: null }),
      ok(row(3, { name: 'no geometry anywhere' }), { columns: {} }),
      failed(row(4, { name: 'failed keeps input' }, point), 4),
      failed(undefined, 5, 'INPUT_MALFORMED'),
    ]);
    const collection = check(text) as GeoJSON.FeatureCollection;
    expect(collection.features.map((f) => f.geometry)).toEqual([
      point,
      { type: 'Point', coordinates: [7, 50] },
      null,
      null,
      point,
      null,
    ]);
    expect(collection.features[0]?.properties).toEqual({
      name: 'input geometry',
      lat: 49,
      lon: 8.4,
      geobatch_status: 'ok',
      geobatch_error: '',
    });
    expect(collection.features[4]?.properties).toMatchObject({
      lat: null,
      geobatch_status: 'failed',
      geobatch_error: 'NO_MATCH',
    });
  });

  it('writes a valid empty collection when no row comes', async () => {
    expect(check(await writeAll([]))).toEqual({ type: 'FeatureCollection', features: [] });
  });

  it('continues a collection from its stored state with the same bytes as one uninterrupted write', async () => {
    const outcomes = [0, 1, 2].map((i) => ok(row(i, { name: `n${i}` }, point), { columns: { lat: i } }));
    const whole = await writeAll(outcomes);
    const first = memorySink();
    const w1 = createGeojsonWriter(first.sink, options);
    w1.write(outcomes[0] as Outcome);
    const second = memorySink();
    const w2 = createGeojsonWriter(second.sink, { ...options, resume: w1.state() });
    w2.write(outcomes[1] as Outcome);
    w2.write(outcomes[2] as Outcome);
    w2.end();
    const joined = (await first.text()) + (await second.text());
    expect(joined).toBe(whole);
    check(joined);
  });
});
