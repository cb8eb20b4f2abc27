import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { geocodeBody, readGeocodeResponse } from '../../src/client/geocoding.js';
import { createClient } from '../../src/client/index.js';
import { CRS84, type GeocodeLocation, type GeocodingType } from '../../src/contract/index.js';
import type { RequestInfo } from '../../src/emulator/index.js';
import { clearSecrets } from '../../src/secrets.js';
import type { Rig } from './_emulator.js';
import { rig } from './_emulator.js';
import type { TestServer } from './_server.js';
import { json, startServer } from './_server.js';

let r: Rig;
const seen: RequestInfo[] = [];
beforeAll(async () => {
  r = await rig({ channel: 'nightly' }, { onRequest: (info) => seen.push(info) });
});
afterAll(async () => {
  await r.stop();
  clearSecrets();
});

describe('geocoding against the emulator', () => {
  it('geocodes an address to a point and its components', async () => {
    const result = await r.client.geocode({ country: 'DE', zip: '76131', city: 'Karlsruhe' });
    expect(result.match).toMatchObject({ zip: '76131', city: 'Karlsruhe', isoCountry: 'DE' });
    expect(result.match?.lon).toBeCloseTo(8.42, 1);
    expect(result.match?.lat).toBeCloseTo(49.0, 1);
    expect(result.candidates).toBeGreaterThan(0);
  });

  it('sends the body the spec describes: placeholder point, CRS84, GEODECIMAL_POINT, channel', async () => {
    await r.client.geocode({ country: 'DE', zip: '76131' });
    expect(seen.at(-1)?.body).toMatchObject({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [0, 0] },
      crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } },
      searchparams: { geocodingType: 'GEOCODE', coordFormatOut: 'GEODECIMAL_POINT' },
      authentication: { channel: 'nightly' },
      location: { country: 'DE', zip: '76131' },
    });
  });

  it('reverse geocodes a point, sending it as [lon, lat]', async () => {
    const result = await r.client.reverseGeocode([8.4037, 49.0069]);
    expect(result.match?.city).toBe('Karlsruhe');
    expect(seen.at(-1)?.body).toMatchObject({
      geometry: { coordinates: [8.4037, 49.0069] },
      searchparams: { geocodingType: 'REVERSE_GEOCODE' },
      location: {},
    });
  });

  it('reports "no match" as data with the service\'s exception, not as an error', async () => {
    const result = await r.client.geocode({ country: 'DE', zip: '00000', city: 'Nirgendwo' });
    expect(result.match).toBeNull();
    expect(result.candidates).toBe(0);
    expect(result.exception).toEqual({ errCode: 'NO_RESULT', publicReport: expect.any(String) });
  });
});

describe('the geocoding request body', () => {
  it('is byte for byte JSON.stringify of the whole request, for either type, any channel and location', () => {
    const types: GeocodingType[] = ['GEOCODE', 'REVERSE_GEOCODE'];
    const channels = ['', 'nightly', 'quo"te\\back\nline', 'Grüße 𝄞'];
    const locations: GeocodeLocation[] = [
      {},
      { country: 'DE', zip: '76131', city: 'Karlsruhe' },
      { street: 'Straße "am" See\t', houseNo: '1a', city: '</script>\u2028', country: 'DE' },
      { city: undefined, zip: '0' } as GeocodeLocation,
    ];
    const points: [number, number][] = [
      [0, 0],
      [8.4037, 49.0069],
      [-0.000001, 1e-7],
    ];
    for (const type of types)
      for (const channel of channels)
        for (const location of locations)
          for (const coordinates of points) {
            const whole = JSON.stringify({
              type: 'Feature',
              properties: {},
              geometry: { type: 'Point', coordinates },
              crs: CRS84,
              searchparams: { geocodingType: type, coordFormatOut: 'GEODECIMAL_POINT' },
              authentication: { channel },
              location,
            });
            expect(geocodeBody(type, coordinates, channel, location)).toBe(whole);
          }
  });
});

describe('geocoding answers in other plausible forms', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function answer(status: number, body: unknown) {
    server = await startServer((_, res) => json(res, status, body));
    return createClient({
      endpoints: { geojson: server.url },
      credentials: { apiKey: 'geocoding-test-key' },
    });
  }

  it("reads a 404 carrying the service's error body as no match", async () => {
    const client = await answer(404, { errCode: 'NO_RESULT', publicReport: 'Adresse nicht gefunden' });
    expect(await client.geocode({ city: 'x' })).toEqual({
      match: null,
      candidates: 0,
      exception: { errCode: 'NO_RESULT', publicReport: 'Adresse nicht gefunden' },
    });
    await client.close();
  });

  it('reads a 404 carrying a geocoding answer with its exception as no match, whatever its code', async () => {
    const client = await answer(404, {
      type: 'FeatureCollection',
      features: [],
      properties: { exception: { errCode: 'NOT_FOUND', publicReport: 'Adresse nicht gefunden' } },
    });
    expect(await client.geocode({ city: 'x' })).toMatchObject({
      match: null,
      exception: { errCode: 'NOT_FOUND', publicReport: 'Adresse nicht gefunden' },
    });
    await client.close();
  });

  it('stops on a 404 whose error body says NOT_FOUND for its path (a path the service does not have)', async () => {
    // As the emulator answers an unknown path: read as no match, every row failed as a bad
    // address and the no-match was cached for a day; as HTTP_STATUS, every row was sent and failed.
    server = await startServer((seen, res) =>
      json(res, 404, { errCode: 'NOT_FOUND', publicReport: `Unbekannter Pfad ${seen.url.split('?')[0]}` }),
    );
    const client = createClient({
      endpoints: { geojson: `${server.url}/wrong` },
      credentials: { apiKey: 'k' },
    });
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      context: { status: 404, detail: { errCode: 'NOT_FOUND' } },
    });
    await client.close();
  });

  it('stops on a bare 404 (a wrong base address), so rows neither come back empty nor all fail', async () => {
    const client = await answer(404, 'Not Found');
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      context: { status: 404 },
    });
    await client.close();
  });

  it('reads empty strings as absent components and takes the bbox centre when the geometry is not a point', () => {
    const result = readGeocodeResponse({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Polygon', coordinates: [] },
          bbox: [8, 49, 9, 50],
          properties: { street: '', city: 'Karlsruhe', country: 'DE' },
        },
      ],
    });
    expect(result.match).toMatchObject({
      lon: 8.5,
      lat: 49.5,
      street: null,
      city: 'Karlsruhe',
      isoCountry: 'DE',
    });
  });

  it('names the field when a match carries no usable coordinates', () => {
    expect(() =>
      readGeocodeResponse({
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: ['x', 1] }, properties: {} }],
      }),
    ).toThrow(
      expect.objectContaining({
        context: expect.objectContaining({ path: 'features[0].geometry.coordinates' }),
      }),
    );
  });
});
