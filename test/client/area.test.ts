import { describe, expect, it } from 'vitest';
import { readAreaResponse } from '../../src/client/area.js';
import { fileRig } from './_emulator.js';

const r = fileRig();
const { seen } = r;

const KARLSRUHE = { latitude: 49.0069, longitude: 8.4037 };
const BOX = { northEast: { latitude: 49.1, longitude: 8.5 }, southWest: { latitude: 48.9, longitude: 8.3 } };

describe('area against the emulator', () => {
  it('finds the state covering a point by GET, normalised to key, name, level and polygon', async () => {
    const result = await r.client.area.point({ level: 4, ...KARLSRUHE });
    expect(result.features).toHaveLength(1);
    expect(result.features[0]).toMatchObject({
      name: 'Baden-Württemberg',
      key: '08',
      level: 4,
      isoCountry: 'DE',
    });
    expect(['Polygon', 'MultiPolygon']).toContain(result.features[0]?.geometry.type);
    expect(seen.at(-1)).toMatchObject({ method: 'GET' });
  });

  it('answers the POST form for several points with the same boundaries as the GET form', async () => {
    const byGet = await r.client.area.point({ level: 4, ...KARLSRUHE });
    const byPost = await r.client.area.points({ level: 4, points: [KARLSRUHE, KARLSRUHE] });
    expect(byPost.features.map((f) => f.key)).toEqual(byGet.features.map((f) => f.key));
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: { level: 4 } });
  });

  it('answers a rectangle alike in its GET and POST forms', async () => {
    const byPost = await r.client.area.rectangle({ level: 6, boundingBox: BOX });
    const byGet = await r.client.area.rectangle({ level: 6, boundingBox: BOX }, {}, 'GET');
    expect(byGet.features.length).toBeGreaterThan(1);
    expect(byGet.features.map((f) => f.key)).toEqual(byPost.features.map((f) => f.key));
    expect(seen.at(-1)?.query.get('northEastLatitude')).toBe('49.1');
  });

  it('fetches boundaries by OSM id', async () => {
    const first = (await r.client.area.point({ level: 4, ...KARLSRUHE })).features[0];
    expect(first?.osmid).toEqual(expect.any(Number));
    const byId = await r.client.area.osmids({ osmids: [first?.osmid as number] });
    expect(byId.features.map((f) => f.key)).toEqual([first?.key]);
  });
});

describe('readAreaResponse', () => {
  const polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 0],
      ],
    ],
  };
  const answer = (properties: unknown, geometry: unknown = polygon) => ({
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry, properties }],
  });

  it.each([
    ['name/key', { name: 'Karlsruhe', key: '08212', level: 6 }],
    ['Name/ARS', { Name: 'Karlsruhe', ARS: '08212', admin_level: '6' }],
    ['names by language and an id', { names: { en: 'Carlsruhe', de: 'Karlsruhe' }, id: '08212' }],
  ])('reads a boundary named in the %s spelling', (_, properties) => {
    expect(readAreaResponse(answer(properties), 6).features[0]).toMatchObject({
      name: 'Karlsruhe',
      key: '08212',
      level: 6,
    });
  });

  it('takes the name in the first language asked for, over the plain name and the German one', () => {
    const properties = { name: 'Bayern', names: { de: 'Bayern', en: 'Bavaria', fr: 'Bavière' }, key: '09' };
    const name = (languages?: string[]) =>
      readAreaResponse(answer(properties), 4, languages).features[0]?.name;
    expect(name(['en'])).toBe('Bavaria');
    expect(name(['fr', 'en'])).toBe('Bavière');
    // A language the boundary is not named in: the next asked for, else as without languages.
    expect(name(['it', 'en'])).toBe('Bavaria');
    expect(name(['it'])).toBe('Bayern');
    expect(name()).toBe('Bayern');
    expect(
      readAreaResponse(answer({ name: 'Bayern', 'name:en': 'Bavaria', key: '09' }), 4, ['en']).features[0]
        ?.name,
    ).toBe('Bavaria');
  });

  it('names the field when a boundary has no name, or a geometry that is not a polygon', () => {
    expect(() => readAreaResponse(answer({ key: '1' }), 4)).toThrow(
      expect.objectContaining({ context: expect.objectContaining({ path: 'features[0].properties.name' }) }),
    );
    expect(() =>
      readAreaResponse(answer({ name: 'x', key: '1' }, { type: 'Point', coordinates: [0, 0] }), 4),
    ).toThrow(
      expect.objectContaining({ context: expect.objectContaining({ path: 'features[0].geometry.type' }) }),
    );
  });
});
