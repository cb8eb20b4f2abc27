import { describe, expect, it } from 'vitest';
import { CRS84, GEOCODE_NO_MATCH_CODE, geocodeResponseSchema } from '../../src/contract/index.js';
import type { Json } from './_helpers.js';
import { postJson, useEmulator } from './_helpers.js';

const emulator = useEmulator();

const request = (
  geocodingType: string,
  location: Record<string, string>,
  coordinates = [0, 0],
  coordFormatOut = 'GEODECIMAL_POINT',
) => ({
  type: 'Feature',
  properties: {},
  geometry: { type: 'Point', coordinates },
  crs: CRS84,
  searchparams: { geocodingType, coordFormatOut },
  authentication: { channel: 'test' },
  location,
});

async function geocode(payload: unknown, query?: string) {
  const e = emulator();
  const res = await postJson(
    `${e.urls.geojson}/geocode?${query ?? `apiKey=${e.credentials.apiKey}`}`,
    payload,
  );
  if (res.status === 200) expect(geocodeResponseSchema.safeParse(res.json).success).toBe(true);
  return { ...res, body: res.json as Json };
}

const first = async (location: Record<string, string>) =>
  (await geocode(request('GEOCODE', location))).body.features[0];

describe('geocoding request checks', () => {
  it('answers 412 without apiKey, 401 with a wrong one, 400 for malformed JSON', async () => {
    const payload = request('GEOCODE', { zip: '76131' });
    expect((await geocode(payload, '')).status).toBe(412);
    expect((await geocode(payload, 'systemPartner=demo-system&securityID=nope')).status).toBe(401);
    expect((await geocode('{"searchparams": {')).status).toBe(400);
  });

  it('accepts the legacy systemPartner and securityID pair', async () => {
    const { systemPartner, securityID } = emulator().credentials;
    const res = await geocode(
      request('GEOCODE', { zip: '76131' }),
      `systemPartner=${systemPartner}&securityID=${securityID}`,
    );
    expect(res.status).toBe(200);
  });

  it.each([undefined, 'GEOCODE_ALL'])('answers 400 for geocodingType %s', async (type) => {
    const payload = { ...request('GEOCODE', { zip: '76131' }), searchparams: { geocodingType: type } };
    expect((await geocode(payload)).status).toBe(400);
  });
});

describe('GEOCODE', () => {
  it('finds 76131 Karlsruhe at about (8.42, 49.01) with the documented properties', async () => {
    const res = await geocode(
      request('GEOCODE', { country: 'DE', zip: '76131', city: 'Karlsruhe', street: 'CAS-Weg' }),
    );
    expect(res.status).toBe(200);
    const [f] = res.body.features;
    expect(f.geometry.type).toBe('Point');
    expect(f.geometry.coordinates[0]).toBeCloseTo(8.42, 2);
    expect(f.geometry.coordinates[1]).toBeCloseTo(49.01, 2);
    expect(f.properties).toEqual({
      description: '76131 Karlsruhe, Baden-Württemberg',
      city: 'Karlsruhe',
      country: 'Deutschland',
      isoCountry: 'DE',
      district: 'Baden-Württemberg',
      cityAddon: '',
      cityPart: '',
      houseNo: '',
      street: '',
      zip: '76131',
      matchLevel: 'ZIP',
    });
    expect(f.bbox).toHaveLength(4);
    expect(res.body.bbox).toEqual(f.bbox);
  });

  it('matches a zip alone, a city alone (the biggest of that name) and a city prefix', async () => {
    expect((await first({ zip: '80331' })).properties).toMatchObject({ city: 'München', matchLevel: 'ZIP' });
    expect((await first({ city: 'münchen' })).properties).toMatchObject({
      city: 'München',
      matchLevel: 'CITY',
    });
    expect((await first({ city: 'Frankfurt' })).properties).toMatchObject({
      city: 'Frankfurt am Main',
      district: 'Hessen',
    });
    expect((await first({ zip: '60311', city: 'Frankfurt' })).properties.zip).toBe('60311');
  });

  it('takes the biggest place when GeoNames and the postal data name it apart', async () => {
    // GeoNames' "Halle (Saale)" is the postal "Halle"; its "Mülheim" the postal "Mülheim an der
    // Ruhr". Joined by exact name only, a town of 21,000 and a village won.
    expect((await first({ city: 'Halle' })).properties).toMatchObject({ district: 'Sachsen-Anhalt' });
    expect((await first({ city: 'Halle (Saale)' })).properties).toMatchObject({
      city: 'Halle',
      district: 'Sachsen-Anhalt',
    });
    expect((await first({ city: 'Mülheim' })).properties).toMatchObject({
      city: 'Mülheim an der Ruhr',
      district: 'Nordrhein-Westfalen',
    });
    // A name both data sets give alike is as before.
    expect((await first({ city: 'Offenbach' })).properties.city).toBe('Offenbach');
  });

  it('takes the zip row the city names exactly over one it names as a prefix', async () => {
    // 01067 lists "Dresden Innere Altstadt" first, "Dresden" second: the first match was a quarter.
    expect((await first({ zip: '01067', city: 'Dresden' })).properties.city).toBe('Dresden');
    expect((await first({ zip: '01067', city: 'Dresden Friedrichstadt' })).properties.city).toBe(
      'Dresden Friedrichstadt',
    );
    // A prefix alone still finds the first row it names.
    expect((await first({ zip: '01067', city: 'Dresd' })).properties.city).toBe('Dresden Innere Altstadt');
  });

  it('reads the single-slot field and the isoCountry spelling', async () => {
    expect((await first({ singleSlot: 'Kaiserstraße 12, 76133 Karlsruhe' })).properties.zip).toBe('76133');
    expect((await first({ singleSlot: 'Hauptstraße 5, Heidelberg' })).properties.city).toBe('Heidelberg');
    expect((await first({ isoCountry: 'D', zip: '76131' })).properties.city).toBe('Karlsruhe');
  });

  it.each([
    ['a zip and city that contradict', { zip: '76131', city: 'Hamburg' }],
    ['another country', { country: 'AT', zip: '76131' }],
    ['an unknown zip', { zip: '00000' }],
    ['a state that does not hold the zip', { zip: '76131', district: 'Bayern' }],
    ['no address at all', {}],
  ])('answers %s with 200, no features and the exception', async (_, location) => {
    const res = await geocode(request('GEOCODE', location));
    expect(res.status).toBe(200);
    expect(res.body.features).toEqual([]);
    expect(res.body.properties.exception).toEqual({
      errCode: GEOCODE_NO_MATCH_CODE,
      publicReport: expect.any(String),
    });
  });

  it('writes coordinates in coordFormatOut', async () => {
    const res = await geocode(request('GEOCODE', { zip: '76131' }, [0, 0], 'GEODECIMAL'));
    expect(res.body.features[0].geometry.coordinates).toEqual([841990, 4900780]);
  });
});

describe('REVERSE_GEOCODE', () => {
  it('finds the nearest place row', async () => {
    const res = await geocode(request('REVERSE_GEOCODE', {}, [8.4037, 49.0069]));
    expect(res.body.features[0].properties).toMatchObject({
      city: 'Karlsruhe',
      district: 'Baden-Württemberg',
    });
    expect(res.body.features[0].properties.zip).toMatch(/^761/);
  });

  it('finds nothing far from any place and rejects invalid coordinates', async () => {
    const sea = await geocode(request('REVERSE_GEOCODE', {}, [5.0, 55.5]));
    expect(sea.body.features).toEqual([]);
    expect(sea.body.properties.exception.errCode).toBe(GEOCODE_NO_MATCH_CODE);
    expect((await geocode(request('REVERSE_GEOCODE', {}, [200, 49]))).status).toBe(400);
    const missing = { ...request('REVERSE_GEOCODE', {}), geometry: { type: 'Point' } };
    expect((await geocode(missing)).status).toBe(400);
  });
});
