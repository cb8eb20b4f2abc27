import { describe, expect, it } from 'vitest';
import type { GeocodeLocation } from '../../src/contract/index.js';
import { planRow } from '../../src/engine/_render.js';
import type { AnyJob } from '../../src/engine/job.js';
import type { GeocodeResult } from '../../src/jobs/_ports.js';
import { createGeocodeJob, locationKey } from '../../src/jobs/geocode.js';
import { row, signal } from './_rows.js';

const mapping = {
  street: { column: 'street' },
  zip: { column: 'plz' },
  city: { column: 'city' },
  country: { value: 'DE' },
};

function fakeClient(answer: (location: GeocodeLocation) => GeocodeResult) {
  const calls: GeocodeLocation[] = [];
  return {
    calls,
    geocode: async (location: GeocodeLocation) => {
      calls.push(location);
      return answer(location);
    },
  };
}

const karlsruhe: GeocodeResult = {
  candidates: 1,
  match: {
    lon: 8.4,
    lat: 49.0,
    street: null,
    houseNo: null,
    zip: '76131',
    city: 'Karlsruhe',
    cityPart: null,
    district: 'Baden-Württemberg',
    isoCountry: 'DE',
    description: '76131 Karlsruhe',
    matchLevel: 'ZIP',
  },
};

describe('geocode job', () => {
  it('restores the leading zero a spreadsheet dropped from a German postcode', () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping },
    );
    expect(job.plan(row({ street: 'Hauptstr. 1', plz: '1067', city: 'Dresden' }))).toEqual([
      { street: 'Hauptstr. 1', zip: '01067', city: 'Dresden', country: 'DE' },
    ]);
  });

  it('sends a country as its code, one request for one country however written, and fails a cell that is none', () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping: { zip: { column: 'plz' }, country: { column: 'land' } } },
    );
    const plan = (land: string) => job.plan(row({ plz: '76131', land }));
    const written = ['Deutschland', 'de', ' DEU ', 'Germany', 'D', 'Österreich'];
    expect(written.map((land) => (plan(land) as GeocodeLocation[])[0]?.country)).toEqual([
      'DE',
      'DE',
      'DE',
      'DE',
      'D',
      'AT',
    ]);
    const keys = new Set(
      written.slice(0, 4).map((land) => job.key((plan(land) as GeocodeLocation[])[0] as GeocodeLocation)),
    );
    expect(keys.size).toBe(1);
    expect(plan('GER')).toEqual({
      code: 'FIELD_INVALID',
      field: 'land',
      message:
        'land: expected an ISO country code such as DE (or D, DEU), or a country\'s name in German or English; got "GER"',
    });
    // No country given is the service's default, not a country to check.
    expect((plan('') as GeocodeLocation[])[0]).toEqual({ zip: '76131' });
  });

  it('fails a row with neither postcode nor city, naming both columns and how each is unfilled', () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping },
    );
    expect(job.plan(row({ street: 'Hauptstr. 1', plz: '', city: ' ' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'plz',
      message: 'plz and city: both empty; expected a postcode or a city (or a single-slot address)',
    });
    expect(job.plan(row({ street: 'Hauptstr. 1', plz: '' }))).toMatchObject({
      field: 'plz',
      message: 'plz: empty, city: missing; expected a postcode or a city (or a single-slot address)',
    });
  });

  it('says which key an NDJSON record has when the mapped one differs only in case', () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping: { zip: { column: 'PLZ' }, city: { column: 'Ort' } } },
    );
    expect(planRow(job as AnyJob, row({ plz: '76133', ort: 'Karlsruhe' }))).toMatchObject({
      status: 'failed',
      issue: {
        code: 'FIELD_MISSING',
        field: 'PLZ',
        message:
          'PLZ and Ort: both missing; expected a postcode or a city (or a single-slot address); the record has "plz"',
      },
    });
  });

  it('fails a malformed German postcode, naming the column and the value', () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping },
    );
    expect(job.plan(row({ plz: '7613A', city: 'Karlsruhe' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'plz',
      message: 'plz: expected a 5-digit German postcode, got `7613A`',
    });
  });

  it('keys addresses so that case and spacing do not cost a second request', () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping },
    );
    const [a] = job.plan(row({ plz: '76131', city: 'Karlsruhe' })) as GeocodeLocation[];
    const [b] = job.plan(row({ plz: '76131 ', city: 'KARLSRUHE' })) as GeocodeLocation[];
    expect(locationKey(a as GeocodeLocation)).toBe(locationKey(b as GeocodeLocation));
  });

  it('writes the match and a Point geometry', async () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping },
    );
    const r = row({ plz: '76131', city: 'Karlsruhe' });
    const items = job.plan(r) as GeocodeLocation[];
    const results = await job.execute(items, signal);
    const rendered = job.render(
      r,
      items.map(
        (i) =>
          results.get(job.key(i)) ?? {
            ok: false,
            failure: { code: 'INTERNAL', stage: 'response', message: '' },
          },
      ),
    );
    expect(rendered).toEqual({
      ok: true,
      records: [
        {
          columns: {
            geo_lon: 8.4,
            geo_lat: 49.0,
            geo_street: null,
            geo_house_no: null,
            geo_zip: '76131',
            geo_city: 'Karlsruhe',
            geo_district: 'Baden-Württemberg',
            geo_iso_country: 'DE',
            geo_description: '76131 Karlsruhe',
            geo_match_level: 'ZIP',
          },
          geometry: { type: 'Point', coordinates: [8.4, 49.0] },
        },
      ],
    });
    expect(job.columns).toEqual(rendered.ok ? Object.keys(rendered.records[0]?.columns ?? {}) : []);
  });

  it("turns no match into a row failure carrying the service's errCode and publicReport", () => {
    const job = createGeocodeJob(
      fakeClient(() => karlsruhe),
      { mapping },
    );
    const rendered = job.render(row({}), [
      {
        ok: true,
        value: {
          match: null,
          candidates: 0,
          exception: { errCode: 'NO_RESULT', publicReport: 'Adresse nicht gefunden' },
        },
      },
    ]);
    expect(rendered).toEqual({
      ok: false,
      failure: {
        code: 'NO_MATCH',
        stage: 'response',
        message: 'no match: Adresse nicht gefunden',
        detail: { errCode: 'NO_RESULT', publicReport: 'Adresse nicht gefunden' },
      },
    });
  });
});
