import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAutocompleteResponse } from '../../src/client/autocomplete.js';
import { clearSecrets, scrub } from '../../src/secrets.js';
import type { Rig } from './_emulator.js';
import { rig } from './_emulator.js';

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterAll(async () => {
  await r.stop();
  clearSecrets();
});

describe('autocomplete against the emulator', () => {
  it('gives the same entities whether the service answers a list or a FeatureCollection', async () => {
    const list = await r.client.autocomplete({ query: 'Karlsr', top: 3 });
    const collection = await r.client.autocomplete({ query: 'Karlsr', top: 3, geoJson: true });
    expect(list.length).toBeGreaterThan(0);
    expect(list[0]).toMatchObject({
      geoEntityType: expect.any(String),
      displayValue: expect.stringContaining('Karlsruhe'),
    });
    expect(collection.map((e) => [e.geoEntityType, e.displayValue, e.osmid])).toEqual(
      list.map((e) => [e.geoEntityType, e.displayValue, e.osmid]),
    );
    expect(r.emulator.stats().tokensIssued).toBe(1);
  });

  it('fetches a token from the token endpoint on request, registered as a secret', async () => {
    const token = await r.client.token();
    expect(token.length).toBeGreaterThan(8);
    expect(scrub(`x ${token} x`)).toBe('x [redacted] x');
  });
});

describe('readAutocompleteResponse', () => {
  it('reads a bare array of entities', () => {
    expect(readAutocompleteResponse([{ geoEntityType: 'CITY', city: 'Karlsruhe' }])).toEqual([
      { geoEntityType: 'CITY', city: 'Karlsruhe' },
    ]);
  });

  it('reads capitalised properties, `_osmid` and the feature geometry of a FeatureCollection', () => {
    const entities = readAutocompleteResponse({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [8.4, 49] },
          properties: {
            GeoEntityType: 'CITY',
            DisplayValue: 'Karlsruhe',
            RepositoryScore: 0.9,
            _osmid: 62518,
          },
        },
      ],
    });
    expect(entities).toEqual([
      {
        geoEntityType: 'CITY',
        displayValue: 'Karlsruhe',
        repositoryScore: 0.9,
        osmid: 62518,
        geometry: { type: 'Point', coordinates: [8.4, 49] },
      },
    ]);
  });

  it('names the feature whose properties lack an entity type', () => {
    expect(() =>
      readAutocompleteResponse({
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: null, properties: { DisplayValue: 'x' } }],
      }),
    ).toThrow(
      expect.objectContaining({
        context: expect.objectContaining({ path: 'features[0].properties.geoEntityType' }),
      }),
    );
  });
});
