import { describe, expect, it } from 'vitest';
import {
  AUTOCOMPLETE_MAX_TOP,
  autocompleteCollectionSchema,
  autocompleteListSchema,
  tokenResponseSchema,
} from '../../src/contract/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Json } from './_helpers.js';
import { getJson, postJson, useEmulator } from './_helpers.js';

const emulator = useEmulator();

async function token(): Promise<string> {
  const e = emulator();
  const res = await getJson(`${e.urls.token}/api_rst/api/autocompleteToken?apiKey=${e.credentials.apiKey}`);
  return tokenResponseSchema.parse(res.json);
}

async function suggest(body: unknown, auth?: string) {
  const e = emulator();
  const headers: Record<string, string> = { authorization: auth ?? `Bearer ${await token()}` };
  const res = await postJson(e.urls.autocomplete, body, headers);
  return { ...res, body: res.json as Json };
}

describe('autocomplete token endpoints', () => {
  it('issues a token as a JSON string for a valid apiKey and counts it', async () => {
    const before = emulator().stats().tokensIssued;
    const e = emulator();
    const res = await getJson(`${e.urls.token}/api_rst/api/autocompleteToken?apiKey=${e.credentials.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(typeof res.json).toBe('string');
    expect((res.json as string).length).toBeGreaterThan(20);
    expect(emulator().stats().tokensIssued).toBe(before + 1);
  });

  it('issues a token on the v2 authtoken path for systemPartner and securityID', async () => {
    const e = emulator();
    const { systemPartner, securityID } = e.credentials;
    const res = await getJson(
      `${e.urls.token}/api_rst/v2/authtoken?systemPartner=${systemPartner}&securityID=${securityID}`,
    );
    expect(res.status).toBe(200);
    expect(typeof res.json).toBe('string');
  });

  it.each(['', 'apiKey=wrong', 'systemPartner=demo-system&securityID=wrong'])(
    'answers 401 for missing or wrong credentials (%s)',
    async (query) => {
      const res = await getJson(`${emulator().urls.token}/api_rst/api/autocompleteToken?${query}`);
      expect(res.status).toBe(401);
    },
  );
});

describe('autocomplete authentication and validation', () => {
  it('answers 401 without a token and with an unknown token', async () => {
    const e = emulator();
    expect((await postJson(e.urls.autocomplete, { query: 'Karlsruhe' })).status).toBe(401);
    expect((await suggest({ query: 'Karlsruhe' }, 'Bearer not-a-token')).status).toBe(401);
  });

  it('accepts the token as the AuthToken query parameter', async () => {
    const t = await token();
    const res = await postJson(`${emulator().urls.autocomplete}?AuthToken=${encodeURIComponent(t)}`, {
      query: 'Kiel',
    });
    expect(res.status).toBe(200);
  });

  it('answers 401 once the token has expired', async () => {
    const short = await startEmulator({ tokenTtlSeconds: 1 });
    try {
      const res = await getJson(
        `${short.urls.token}/api_rst/api/autocompleteToken?apiKey=${short.credentials.apiKey}`,
      );
      const auth = { authorization: `Bearer ${res.json as string}` };
      expect((await postJson(short.urls.autocomplete, { query: 'Kiel' }, auth)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await postJson(short.urls.autocomplete, { query: 'Kiel' }, auth)).status).toBe(401);
    } finally {
      await short.close();
    }
  });

  it.each([
    ['malformed JSON', '{"query": "Karl'],
    ['a missing query', {}],
    ['an empty query', { query: '  ' }],
    ['top 0', { query: 'Kiel', top: 0 }],
    ['top above the maximum', { query: 'Kiel', top: AUTOCOMPLETE_MAX_TOP + 1 }],
    ['an unknown entity type', { query: 'Kiel', filterOptions: { includedGeoEntities: ['PLANET'] } }],
    ['isoLanguages not a list', { query: 'Kiel', isoLanguages: 'de' }],
    ['isoLanguages naming no language code', { query: 'Kiel', isoLanguages: ['german'] }],
  ])('answers 400 for %s', async (_, body) => {
    const res = await suggest(body);
    expect(res.status).toBe(400);
    expect(res.body.publicReport).toEqual(expect.any(String));
  });
});

describe('autocomplete suggestions', () => {
  it('finds a city by prefix, best first, five by default, unused fields null', async () => {
    const res = await suggest({ query: 'Karlsr' });
    expect(res.status).toBe(200);
    const list = autocompleteListSchema.parse(res.body) as { geoEntities: Json[] };
    expect(list.geoEntities).toHaveLength(5);
    const [first] = list.geoEntities;
    expect(first).toMatchObject({ geoEntityType: 'CITY', city: 'Karlsruhe', country: 'DE', street: null });
    expect(first.geometry.coordinates[0]).toBeCloseTo(8.4, 1);
    expect(first.geometry.coordinates[1]).toBeCloseTo(49.0, 1);
    const scores = list.geoEntities.map((g) => g.repositoryScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('answers up to the maximum top', async () => {
    const res = await suggest({ query: 'B', top: AUTOCOMPLETE_MAX_TOP });
    expect(res.body.geoEntities).toHaveLength(AUTOCOMPLETE_MAX_TOP);
  });

  it('ignores case and diacritics, and reads ue as ü', async () => {
    for (const query of ['munchen', 'MÜNCHEN', 'Muenchen']) {
      const res = await suggest({ query, top: 1 });
      expect(res.body.geoEntities[0]).toMatchObject({ geoEntityType: 'CITY', city: 'München' });
    }
  });

  it('finds zips by prefix and zip-with-city pairs', async () => {
    const zips = await suggest({ query: '7613', filterOptions: { includedGeoEntities: ['ZIP'] }, top: 10 });
    expect(zips.body.geoEntities.length).toBeGreaterThan(1);
    for (const g of zips.body.geoEntities) {
      expect(g.geoEntityType).toBe('ZIP');
      expect(g.zip.startsWith('7613')).toBe(true);
    }
    const pair = await suggest({
      query: '76131 Karl',
      filterOptions: { includedGeoEntities: ['CITY_WITH_ZIP'] },
    });
    expect(pair.body.geoEntities[0]).toMatchObject({ zip: '76131', city: 'Karlsruhe' });
  });

  it('finds states and districts', async () => {
    const state = await suggest({ query: 'Bayern', top: 1 });
    expect(state.body.geoEntities[0]).toMatchObject({ geoEntityType: 'STATE', state: 'Bayern' });
    const district = await suggest({
      query: 'Breisgau',
      filterOptions: { includedGeoEntities: ['DISTRICT'] },
    });
    expect(district.body.geoEntities[0].geoEntityType).toBe('DISTRICT');
  });

  it('applies excluded types, plzSearch, inBoundingBox and isoCountries', async () => {
    const noCity = await suggest({
      query: 'Karlsruhe',
      filterOptions: { excludedGeoEntities: ['CITY'] },
      top: 20,
    });
    expect(noCity.body.geoEntities.some((g: Json) => g.geoEntityType === 'CITY')).toBe(false);
    const withZip = await suggest({ query: 'Karlsruhe', filterOptions: { plzSearch: true }, top: 20 });
    for (const g of withZip.body.geoEntities) expect(g.zip).not.toBeNull();
    const boundingbox = {
      leftDown: { latitude: 53, longitude: 9 },
      rightUp: { latitude: 55, longitude: 11 },
    };
    const inBox = await suggest({
      query: 'Neustadt',
      boundingbox,
      filterOptions: { inBoundingBox: true },
      top: 20,
    });
    expect(inBox.body.geoEntities.length).toBeGreaterThan(0);
    for (const g of inBox.body.geoEntities) expect(g.geometry.coordinates[1]).toBeGreaterThanOrEqual(53);
    const austria = await suggest({ query: 'Karlsruhe', isoCountries: ['AT'] });
    expect(austria.body.geoEntities).toEqual([]);
  });

  it('names the country in the first of isoLanguages it has, German by default', async () => {
    const names = async (isoLanguages?: string[]) => {
      const res = await suggest({ query: 'Kiel', top: 1, ...(isoLanguages ? { isoLanguages } : {}) });
      return res.body.geoEntities.map((e: Json) => e.countryLongName);
    };
    expect(await names()).toEqual(['Deutschland']);
    expect(await names(['en'])).toEqual(['Germany']);
    expect(await names(['fr', 'en', 'de'])).toEqual(['Germany']);
    expect(await names(['de', 'en'])).toEqual(['Deutschland']);
  });

  it('ranks by proximity when asked to', async () => {
    const near = (latitude: number, longitude: number) =>
      suggest({
        query: 'Neustadt',
        top: 1,
        filterOptions: { includedGeoEntities: ['CITY'] },
        center: { latitude, longitude },
        boostOptions: { proximityBoost: { radius: 50_000, value: 5 } },
      });
    const north = await near(54.1, 10.8);
    const south = await near(49.35, 8.14);
    expect(north.body.geoEntities[0].geometry.coordinates[1]).toBeGreaterThan(53.5);
    expect(south.body.geoEntities[0].geometry.coordinates[1]).toBeLessThan(50);
  });

  it('answers a GeoJSON FeatureCollection with capitalised property names for geoJson true', async () => {
    const res = await suggest({ query: 'Karlsruhe', geoJson: true, top: 3 });
    const fc = autocompleteCollectionSchema.parse(res.body);
    expect(fc.features).toHaveLength(3);
    const props = fc.features[0]?.properties ?? {};
    expect(props).toMatchObject({
      GeoEntityType: 'CITY',
      DisplayValue: expect.stringContaining('Karlsruhe'),
    });
    expect(props).toHaveProperty('RepositoryScore');
    expect(props).toHaveProperty('_osmid');
  });
});
