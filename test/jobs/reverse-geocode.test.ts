import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../../src/engine/job.js';
import type { GeocodeMatch, GeocodeResult } from '../../src/jobs/_ports.js';
import { createReverseGeocodeJob } from '../../src/jobs/reverse-geocode.js';
import { row } from './_rows.js';

const unused = {} as never;

function found(lon: number, lat: number): ItemResult<GeocodeResult> {
  const match: GeocodeMatch = {
    lon,
    lat,
    street: null,
    houseNo: null,
    zip: '76133',
    city: 'Karlsruhe',
    cityPart: null,
    district: 'Baden-Württemberg',
    isoCountry: 'DE',
    description: null,
    matchLevel: 'ZIP',
  };
  return { ok: true, value: { match, candidates: 1 } };
}

/** Metres between two nearby points on a flat map at their latitude: a check apart from haversine. */
function flatMetres(a: [number, number], b: [number, number]): number {
  const perDegree = (Math.PI / 180) * 6_371_008.8;
  const dx = (b[0] - a[0]) * perDegree * Math.cos(((a[1] + b[1]) / 2) * (Math.PI / 180));
  const dy = (b[1] - a[1]) * perDegree;
  return Math.hypot(dx, dy);
}

describe('reverse-geocode: how far the answer is', () => {
  it('writes the distance from the point to the address found, in whole metres, after the match', () => {
    const job = createReverseGeocodeJob(unused, { mapping: {}, prefix: 'r_' });
    expect(job.columns.at(-1)).toBe('r_distance_m');
    const result = job.render(row({ lon: '8.40444', lat: '49.00937' }), [found(8.4, 49.0)]);
    if (!result.ok) throw new Error(result.failure.message);
    const metres = result.records[0]?.columns.r_distance_m;
    expect(typeof metres).toBe('number');
    expect(Number.isInteger(metres)).toBe(true);
    expect(Math.abs((metres as number) - flatMetres([8.40444, 49.00937], [8.4, 49.0]))).toBeLessThan(2);
  });

  it('measures on the ground whatever the point columns are written in', () => {
    // The same Karlsruhe point in Mercator metres (a sphere of 6,371 km): the distance is still metres.
    const job = createReverseGeocodeJob(unused, { mapping: {}, coordFormat: 'MERCATOR' });
    const x = (8.40444 * Math.PI * 6_371_000) / 180;
    const y = 6_371_000 * Math.log(Math.tan(Math.PI / 4 + (49.00937 * Math.PI) / 360));
    const result = job.render(row({ lon: String(x), lat: String(y) }), [found(8.4, 49.0)]);
    if (!result.ok) throw new Error(result.failure.message);
    const metres = result.records[0]?.columns.rev_distance_m as number;
    expect(Math.abs(metres - flatMetres([8.40444, 49.00937], [8.4, 49.0]))).toBeLessThan(2);
  });

  it('writes no distance for a point the service placed nowhere', () => {
    const job = createReverseGeocodeJob(unused, { mapping: {} });
    const none: ItemResult<GeocodeResult> = { ok: true, value: { match: null, candidates: 0 } };
    expect(job.render(row({ lon: '8.4', lat: '49.0' }), [none])).toMatchObject({
      ok: false,
      failure: { code: 'NO_MATCH' },
    });
  });
});
