import { describe, expect, it } from 'vitest';
import { GEOCODE_PACKING } from '../../src/cache/_packing.js';
import { type GeocodeResult, readGeocodeResponse } from '../../src/client/geocoding.js';

/** An answer as the client reads it from the service, so that its keys come in the client's order. */
function answer(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): GeocodeResult {
  return readGeocodeResponse({
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [6.5783, 49.6667] }, properties }],
    ...extra,
  });
}

const FULL = {
  street: 'Kirchstraße',
  houseNo: '1a',
  zip: '54441',
  city: 'Kanzem',
  cityPart: 'Wiltingen',
  district: 'Rheinland-Pfalz',
  isoCountry: 'DE',
  description: 'Kirchstraße 1a, 54441 Kanzem',
  matchLevel: 'HOUSE',
};

const throughText = (packed: unknown[] | undefined) => JSON.parse(JSON.stringify(packed)) as unknown[];

describe('packed geocode answers', () => {
  it('come back as the client made them, key order included, with every field or with nulls', () => {
    for (const result of [answer(FULL), answer({ zip: '54441', city: 'Kanzem' })]) {
      const packed = GEOCODE_PACKING.pack(result);
      expect(packed).toHaveLength(12);
      const back = GEOCODE_PACKING.unpack(throughText(packed));
      expect(JSON.stringify(back)).toBe(JSON.stringify(result));
    }
  });

  it('are shorter than the plain form by the field names', () => {
    const result = answer(FULL);
    expect(JSON.stringify(GEOCODE_PACKING.pack(result)).length).toBeLessThan(
      JSON.stringify(result).length -
        'lonlatstreethouseNozipcitycityPartdistrictisoCountrydescriptionmatchLevel'.length,
    );
  });

  it('are not made for answers of another shape: no match, an exception, a field more', () => {
    const none = readGeocodeResponse({ type: 'FeatureCollection', features: [] });
    expect(none.match).toBeNull();
    expect(GEOCODE_PACKING.pack(none)).toBeUndefined();
    const warned = answer(FULL, { properties: { exception: { errCode: 'W1', publicReport: 'ambiguous' } } });
    expect(warned.exception).toEqual({ errCode: 'W1', publicReport: 'ambiguous' });
    expect(GEOCODE_PACKING.pack(warned)).toBeUndefined();
    const more = answer(FULL);
    (more.match as unknown as Record<string, unknown>).confidence = 0.9;
    expect(GEOCODE_PACKING.pack(more)).toBeUndefined();
    expect(GEOCODE_PACKING.pack('v:text')).toBeUndefined();
    expect(GEOCODE_PACKING.pack(null)).toBeUndefined();
  });

  it('of another shape read back as nothing: a miss, never a wrong answer', () => {
    const good = throughText(GEOCODE_PACKING.pack(answer(FULL)));
    expect(GEOCODE_PACKING.unpack(good.slice(0, 11))).toBeUndefined();
    expect(GEOCODE_PACKING.unpack([...good, 'more'])).toBeUndefined();
    for (const [at, wrong] of [
      [0, '1'],
      [1, '6.5'],
      [2, null],
      [5, 54441],
      [11, true],
    ] as const) {
      const bad = [...good];
      bad[at] = wrong;
      expect(GEOCODE_PACKING.unpack(bad), `index ${at}`).toBeUndefined();
    }
  });
});
