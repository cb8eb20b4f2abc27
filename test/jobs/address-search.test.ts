import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromWgs84, toWgs84 } from '../../src/client/coords.js';
import { createClient, type PagedEndpoint } from '../../src/client/index.js';
import { parseJobFile } from '../../src/config/load.js';
import type { AddressItem, AddressSearchParams, AddressSearchResponse } from '../../src/contract/index.js';
import { ServiceError } from '../../src/errors.js';
import {
  type AddressSearchJobOptions,
  createAddressSearchJob,
  type Search,
} from '../../src/jobs/address-search.js';
import { runJob } from '../../src/run/run.js';
import type { LonLat } from '../../src/types.js';
import { type Rig, rig } from '../client/_emulator.js';
import { json, startServer } from '../client/_server.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { row, signal } from './_rows.js';

function hit(i: number): AddressItem {
  return {
    BasicData: {
      Identifiers: { YMID: `Y${i}`, YMIDUrlEncoded: `Y${i}`, ProviderForeignKey: `K${i}` },
      Address: { CompanyName: `Firma ${i}`, Zip: '76131', City: 'Karlsruhe', Street: `Weg ${i}` },
      Geo: { XCoord: '8.4', YCoord: '49.0', Distance: String(100 * i) },
      BranchListElements: [
        { BranchCode: '100', BranchText: 'Gesamtsortiment' },
        { BranchCode: '1201', BranchText: 'Gesundheit' },
      ],
    },
  };
}

/** 7 hits in pages of `Top`; records the pages asked for. */
function pagingClient(total: number) {
  const pagesAsked: number[] = [];
  return {
    pagesAsked,
    addressSearch: {
      async *pages(
        _endpoint: 'ByBranchesAndPosition',
        params: AddressSearchParams,
        options?: { maxPages?: number },
      ) {
        const top = params.Top ?? 20;
        const maxPage = Math.max(1, Math.ceil(total / top));
        for (let page = 1; page <= Math.min(maxPage, options?.maxPages ?? maxPage); page++) {
          pagesAsked.push(page);
          const items = Array.from({ length: Math.min(top, total - (page - 1) * top) }, (_, i) =>
            hit((page - 1) * top + i + 1),
          );
          const response: AddressSearchResponse = {
            Paging: { Page: page, MaxPage: maxPage, Count: items.length, MaxCount: total },
            AddressItems: items,
            StatusCode: 0,
          };
          yield response;
        }
      },
    },
  };
}

describe('address-search job', () => {
  it('pages only as far as the nearest N need', async () => {
    const client = pagingClient(7);
    const job = createAddressSearchJob(client, { mapping: {}, branches: '1201', nearest: 4, pageSize: 3 });
    const results = await job.execute([{ key: 'p', params: { LocX: 8.4, LocY: 49 } }], signal);
    const value = [...results.values()][0];
    expect(value).toMatchObject({ ok: true, value: { total: 7 } });
    expect(value?.ok && value.value.hits.map((h) => h.BasicData.Identifiers.YMID)).toEqual([
      'Y1',
      'Y2',
      'Y3',
      'Y4',
    ]);
    expect(client.pagesAsked).toEqual([1, 2]);
  });

  it('writes the nearest hit and the count, or one row per hit when exploding', async () => {
    const client = pagingClient(2);
    const r = row({ lon: '8.4', lat: '49' });
    const nearest = createAddressSearchJob(client, { mapping: {}, branches: '1201', nearest: 2 });
    const [result] = [
      ...(await nearest.execute([{ key: 'p', params: { LocX: 8.4, LocY: 49 } }], signal)).values(),
    ];
    if (result === undefined) throw new Error('none');
    expect(nearest.render(r, [result])).toMatchObject({
      ok: true,
      records: [
        {
          columns: {
            near_count: 2,
            near_rank: 1,
            near_name: 'Firma 1',
            near_distance_m: 100,
            near_category: 'Gesundheit',
          },
        },
      ],
    });
    const explode = createAddressSearchJob(client, {
      mapping: {},
      branches: '1201',
      nearest: 2,
      mode: 'explode',
    });
    const rendered = explode.render(r, [result]);
    expect(rendered.ok && rendered.records.map((x) => x.columns.near_rank)).toEqual([1, 2]);
  });

  it('keeps a row with no hits, with a zero count and empty hit columns', () => {
    const job = createAddressSearchJob(pagingClient(0), { mapping: {}, branches: '1201', mode: 'explode' });
    const rendered = job.render(row({ lon: '8.4', lat: '49' }), [
      { ok: true, value: { total: 0, hits: [] } },
    ]);
    expect(rendered).toMatchObject({
      ok: true,
      records: [{ columns: { near_count: 0, near_name: null, near_rank: null } }],
    });
  });
});

describe('address-search forms', () => {
  /** Records the endpoint and parameters of every page asked for. */
  function recordingClient(total: number) {
    const asked: { endpoint: string; params: AddressSearchParams }[] = [];
    const paging = pagingClient(total);
    return {
      asked,
      addressSearch: {
        pages(endpoint: PagedEndpoint, params: AddressSearchParams, options?: { maxPages?: number }) {
          asked.push({ endpoint, params });
          return paging.addressSearch.pages('ByBranchesAndPosition', params, options);
        },
      },
    };
  }

  it('searches around an address when the mapping names address columns, house number joined to the street', async () => {
    const client = recordingClient(3);
    const mapping = {
      street: { column: 'str' },
      houseNo: { column: 'nr' },
      zip: { column: 'plz' },
      city: { column: 'ort' },
    };
    const job = createAddressSearchJob(client, { mapping, branches: '1301', radiusMeters: 3000 });
    const items = job.plan(
      row({ str: 'Kaiserstraße', nr: '12', plz: '76131', ort: 'Karlsruhe' }),
    ) as Search[];
    const same = job.plan(row({ str: 'kaiserstraße', nr: '12', plz: '76131', ort: 'KARLSRUHE' })) as Search[];
    expect(items[0] && job.key(items[0])).toBe(same[0] && job.key(same[0]));
    await job.execute(items, signal);
    expect(client.asked).toEqual([
      {
        endpoint: 'ByBranchesAndAddress',
        params: {
          Branches: '1301',
          OrderBy: 'DISTANCE',
          Top: 1,
          MaxRadius: 3000,
          Zip: '76131',
          City: 'Karlsruhe',
          Street: 'Kaiserstraße 12',
        },
      },
    ]);
    expect(job.plan(row({ str: 'Kaiserstraße', nr: '', plz: '', ort: '' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'plz',
      message:
        'plz and ort: both empty; expected a postcode, a city or a single-slot location to search around',
    });
  });

  it('fails a row with neither postcode nor city, naming every address column and how each is unfilled', () => {
    const mapping = { zip: { column: 'plz' }, city: { column: 'ort' }, location: { column: 'adresse' } };
    const job = createAddressSearchJob(recordingClient(1), { mapping, branches: '100' });
    expect(job.plan(row({ plz: '', ort: ' ', adresse: '' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'plz',
      message:
        'plz, ort and adresse: all empty; expected a postcode, a city or a single-slot location to search around',
    });
    expect(job.plan(row({ plz: '' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'plz',
      message:
        'plz: empty, ort: missing, adresse: missing; expected a postcode, a city or a single-slot location to search around',
    });
  });

  it("restores a German postcode's lost leading zero, alone too, and keeps a shorter or starred prefix alone", () => {
    const mapping = { zip: { column: 'plz' }, city: { column: 'ort' }, country: { column: 'land' } };
    const job = createAddressSearchJob(recordingClient(1), { mapping, branches: '100' });
    const zipOf = (cells: Record<string, string>) =>
      (job.plan(row({ plz: '', ort: '', land: '', ...cells })) as Search[])[0];
    const spreadsheet = zipOf({ plz: '1067', ort: 'Dresden' });
    expect(spreadsheet?.params.Zip).toBe('01067');
    expect(spreadsheet && job.key(spreadsheet)).toBe(
      job.key(zipOf({ plz: '01067', ort: 'Dresden' }) as Search),
    );
    // The spec: "may be partial when given alone; several separated by the pipe character, each then
    // complete". Four digits alone are a spreadsheet's Dresden, not a prefix into Berlin's 10670-10679.
    expect(zipOf({ plz: '1067' })?.params.Zip).toBe('01067');
    expect(zipOf({ plz: '1067' }) && job.key(zipOf({ plz: '1067' }) as Search)).toBe(
      job.key(zipOf({ plz: '01067' }) as Search),
    );
    expect(zipOf({ plz: '76' })?.params.Zip).toBe('76');
    expect(zipOf({ plz: '1067*' })?.params.Zip).toBe('1067');
    expect(zipOf({ plz: '1067*', ort: 'Dresden' })?.params.Zip).toBe('1067*');
    expect(zipOf({ plz: '1067|01069' })?.params.Zip).toBe('01067|01069');
    expect(zipOf({ plz: '1010', ort: 'Wien', land: 'AT' })?.params.Zip).toBe('1010');
    expect(zipOf({ plz: '1067', ort: 'Dresden', land: 'DE' })?.params.Zip).toBe('01067');
  });

  it("sends a country's ISO code, from a code in any case or a name, and fails a cell that is neither", () => {
    const mapping = { zip: { column: 'plz' }, country: { column: 'land' } };
    const job = createAddressSearchJob(recordingClient(1), { mapping, branches: '100' });
    const plan = (land: string) => job.plan(row({ plz: '76131', land }));
    const sent = (land: string) => (plan(land) as Search[])[0]?.params.IsoCountryCode;
    expect(['DE', 'de', ' D ', 'DEU', 'Deutschland', 'germany', 'Österreich', 'UK'].map(sent)).toEqual([
      'DE',
      'DE',
      'D',
      'DE',
      'DE',
      'DE',
      'AT',
      'GB',
    ]);
    // Letters that name no country (a sports abbreviation, an old name, a union) fail too.
    for (const land of ['GER', 'BRD', 'XY', 'Europäische Union', 'Q', 'x'])
      expect(plan(land), land).toMatchObject({ code: 'FIELD_INVALID', field: 'land' });
    // One search for one country, however it was written.
    expect(job.key((plan('Deutschland') as Search[])[0] as Search)).toBe(
      job.key((plan('de') as Search[])[0] as Search),
    );
    // Sent as written, the service found nothing and the row was written ok with no hit.
    expect(plan('Deutschlnd')).toEqual({
      code: 'FIELD_INVALID',
      field: 'land',
      message:
        'land: expected an ISO country code such as DE (or D, DEU), or a country\'s name in German or English; got "Deutschlnd"',
    });
  });

  it('sends a rectangle as its upper-left and lower-right corners, without a radius', async () => {
    const client = recordingClient(1);
    const mapping = {
      west: { column: 'w' },
      south: { column: 's' },
      east: { column: 'e' },
      north: { column: 'n' },
    };
    const job = createAddressSearchJob(client, { mapping, branches: '1101' });
    await job.execute(job.plan(row({ w: '8.35', s: '48.98', e: '8.45', n: '49.05' })) as Search[], signal);
    expect(client.asked[0]).toEqual({
      endpoint: 'ByBranchesAndRectangle',
      params: { Branches: '1101', OrderBy: 'DISTANCE', Top: 1, Lux: 8.35, Luy: 49.05, Rlx: 8.45, Rly: 48.98 },
    });
    expect(job.plan(row({ w: '8.35', s: '49.05', e: '8.45', n: '48.98' }))).toMatchObject({
      code: 'FIELD_INVALID',
      field: 's',
      message: 's: expected south to be less than north, got s 49.05 and n 48.98 (swapped?)',
    });
    expect(job.plan(row({ w: '8.4', s: '48.98', e: '8.4', n: '49.05' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'w',
      message: 'w: expected west to be less than east, got w 8.4 and e 8.4 (the rectangle has no width)',
    });
  });

  it('pages through every page the service has with nearest: all', async () => {
    const client = pagingClient(7);
    const job = createAddressSearchJob(client, {
      mapping: {},
      branches: '1201',
      nearest: 'all',
      pageSize: 3,
      mode: 'explode',
    });
    const [result] = [
      ...(await job.execute([{ key: 'p', params: { LocX: 8.4, LocY: 49 } }], signal)).values(),
    ];
    expect(client.pagesAsked).toEqual([1, 2, 3]);
    expect(result?.ok && result.value.hits).toHaveLength(7);
  });

  it('fails an address the service cannot locate as NO_MATCH, with its report', async () => {
    const client = {
      addressSearch: {
        // biome-ignore lint/correctness/useYield: the service fails before the first page.
        async *pages(): AsyncGenerator<AddressSearchResponse> {
          throw new ServiceError('SERVICE_REPORTED', 'address search reported status 4: Nicht gefunden.', {
            status: 200,
            detail: { StatusCode: '4', PublicReport: 'Die Adresse 99999 wurde nicht gefunden.' },
          });
        },
      },
    };
    const job = createAddressSearchJob(client, { mapping: { zip: { column: 'plz' } }, branches: '1' });
    const results = await job.execute(job.plan(row({ plz: '99999' })) as Search[], signal);
    expect([...results.values()]).toEqual([
      {
        ok: false,
        failure: {
          code: 'NO_MATCH',
          stage: 'response',
          message: 'no match: Die Adresse 99999 wurde nicht gefunden.',
          detail: { StatusCode: '4', PublicReport: 'Die Adresse 99999 wurde nicht gefunden.' },
        },
      },
    ]);
  });

  it('says exactly which keys to drop for each form when the mapping holds two; options.form alone is no way out', () => {
    const refusal = (body: string) => {
      try {
        parseJobFile(`job: address-search\ninput: in.csv\noutput: out.csv\n${body}`, '/jobs/a.yaml', {});
      } catch (error) {
        return error;
      }
      return undefined;
    };
    // It hinted "or name it with options.form", and a file that did was refused again for mapping.lon.
    expect(
      refusal('mapping: { lon: x, lat: y, zip: plz, city: ort }\noptions: { branches: "1" }'),
    ).toMatchObject({
      code: 'CONFIG_INVALID',
      context: {
        path: 'mapping.zip',
        hint: 'for the position form, drop mapping.zip, mapping.city; for the address form, drop mapping.lon, mapping.lat',
      },
    });
    expect(
      refusal('mapping: { lon: x, lat: y, zip: plz }\noptions: { branches: "1", form: address }'),
    ).toMatchObject({
      code: 'CONFIG_INVALID',
      context: {
        path: 'mapping.lon',
        hint: 'drop mapping.lon, mapping.lat; or, for the position form, set options.form: position and drop mapping.zip',
      },
    });
    // Each way the hints give loads.
    const ok = (body: string) => () =>
      parseJobFile(`job: address-search\ninput: in.csv\noutput: out.csv\n${body}`, '/jobs/a.yaml', {});
    expect(ok('mapping: { zip: plz, city: ort }\noptions: { branches: "1" }')).not.toThrow();
    expect(ok('mapping: { lon: x, lat: y }\noptions: { branches: "1", form: position }')).not.toThrow();
  });

  it('refuses job files whose mapping and options do not fit one form', () => {
    const file = (body: string) => () =>
      parseJobFile(`job: address-search\ninput: in.csv\noutput: out.csv\n${body}`, '/jobs/a.yaml', {});
    expect(file('mapping: { zip: plz, lon: x }\noptions: { branches: "1" }')).toThrow(/mapping\.(lon|zip)/);
    expect(file('mapping: { zip: plz }\noptions: { branches: "1", form: position }')).toThrow(
      /mapping\.zip: not used by the position form/,
    );
    expect(file('mapping: { west: w, south: s, east: e }\noptions: { branches: "1" }')).toThrow(
      /mapping\.north/,
    );
    expect(
      file(
        'mapping: { west: w, south: s, east: e, north: n }\noptions: { branches: "1", radiusMeters: 100 }',
      ),
    ).toThrow(/options\.radiusMeters/);
    // -1 is the service's "unlimited" (300 km); no other number below 1 is a radius.
    expect(file('options: { branches: "1", radiusMeters: -1 }')).not.toThrow();
    for (const radius of ['0', '-2', '300001'])
      expect(file(`options: { branches: "1", radiusMeters: ${radius} }`)).toThrow(/options\.radiusMeters/);
    expect(file('options: { branches: "1", nearest: all }')).toThrow(/options\.nearest/);
    expect(file('options: { branches: "1", nearest: all, mode: explode }')).not.toThrow();
  });
});

describe('address-search forms against the emulator', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(() => r.stop());

  async function run(
    input: string,
    options: Omit<AddressSearchJobOptions, 'branches'> & { readonly branches?: string },
  ) {
    const dir = tempDir();
    r.emulator.resetStats();
    const summary = await runJob({
      job: createAddressSearchJob(r.client, {
        branches: '1301',
        nearest: 'all',
        mode: 'explode',
        ...options,
      }),
      jobFingerprint: 'address-search:test',
      input: { path: write(join(dir, 'in.csv'), input), format: 'csv' },
      output: { path: join(dir, 'out.csv'), format: 'csv' },
      report: { path: join(dir, 'errors.csv'), format: 'csv' },
      logger: memoryLogger().logger,
      progress: { enabled: false },
    });
    const rows = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    return { summary, rows, requests: r.emulator.stats().total };
  }

  it('says where the service located an address it searched around, as its GeoItems do', async () => {
    const direct = await r.client.addressSearch.byBranchesAndAddress({
      Branches: '1301',
      City: 'Neustadt',
      MaxRadius: 20000,
    });
    const place = direct.GeoItems?.[0];
    expect(place?.Description).toMatch(/Neustadt/);
    const { rows } = await run('id,ort\n1,Neustadt\n2,Nirgendwo\n', {
      mapping: { city: { column: 'ort' } },
      radiusMeters: 20000,
      mode: 'nearest',
    });
    expect(rows[0]).toMatchObject({
      near_located: place?.Description,
      near_located_level: place?.GeoLevel,
      geobatch_status: 'ok',
    });
    // A place not found has no columns of where it was found.
    expect(rows[1]).toMatchObject({ near_located: '', near_located_level: '', geobatch_status: 'failed' });
    // Several postcodes: each place, in the service's order.
    const several = await run('id,plz\n1,76131|80331\n', {
      mapping: { zip: { column: 'plz' } },
      mode: 'nearest',
    });
    expect(several.rows[0]?.near_located).toMatch(/^76131 Karlsruhe, .+ \| 80331 München, .+$/);
    expect(several.rows[0]?.near_located_level).toBe('ZIP | ZIP');
  });

  it('writes every hit around an address, page by page, as many as the service counts', async () => {
    const direct = await r.client.addressSearch.byBranchesAndAddress({
      Branches: '1301',
      Zip: '76131',
      City: 'Karlsruhe',
      MaxRadius: 5000,
      Top: 1,
    });
    const total = direct.Paging.MaxCount;
    expect(total).toBeGreaterThan(7);
    const { summary, rows, requests } = await run('id,plz,ort\nA,76131,Karlsruhe\nB,99999,Nirgendwo\n', {
      mapping: { zip: { column: 'plz' }, city: { column: 'ort' } },
      pageSize: 7,
    });
    expect(summary.rows).toMatchObject({ read: 2, ok: 1, failed: 1, failedByCode: { NO_MATCH: 1 } });
    const hits = rows.filter((x) => x.id === 'A');
    expect(hits).toHaveLength(total);
    expect(hits.map((x) => Number(x.near_rank))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(hits.map((x) => x.near_ymid)).size).toBe(total);
    // No distances without distanceFrom: the spec leaves Distance empty without the Addition keys,
    // and the address form knows no point of its own to send.
    expect(hits.map((x) => x.near_distance_m)).toEqual(hits.map(() => ''));
    expect(requests).toBe(Math.ceil(total / 7) + 1);
  });

  it('writes the hits inside a SUPERKONFORM sheet, none outside it, though its edges bend in degrees', async () => {
    // A band 600 km wide: its north edge bends 0.08 degrees north of its corners.
    const sheet = { west: 4900000, south: 3600000, east: 5500000, north: 3700000 };
    const outline: LonLat[] = [];
    for (let i = 0; i <= 200; i++) {
      const x = sheet.west + ((sheet.east - sheet.west) * i) / 200;
      outline.push(toWgs84([x, sheet.south], 'SUPERKONFORM'), toWgs84([x, sheet.north], 'SUPERKONFORM'));
    }
    // What lies in the sheet, found by a wide box of degrees and each hit's own point.
    const inside = new Set<string>();
    const [west, south, east, north] = [
      Math.min(...outline.map((p) => p[0])) - 0.5,
      Math.min(...outline.map((p) => p[1])) - 0.5,
      Math.max(...outline.map((p) => p[0])) + 0.5,
      Math.max(...outline.map((p) => p[1])) + 0.5,
    ];
    for (let page = 1; ; page++) {
      const answer = await r.client.addressSearch.byBranchesAndRectangle({
        Branches: '1101',
        Lux: west,
        Luy: north,
        Rlx: east,
        Rly: south,
        Top: 100,
        Page: page,
      });
      for (const item of answer.AddressItems) {
        const { XCoord, YCoord } = item.BasicData.Geo;
        const [x, y] = fromWgs84([Number(XCoord), Number(YCoord)], 'SUPERKONFORM');
        if (x >= sheet.west && x <= sheet.east && y >= sheet.south && y <= sheet.north)
          inside.add(item.BasicData.Identifiers.YMID);
      }
      if (page * 100 >= answer.Paging.MaxCount) break;
    }
    const { rows } = await run(
      `id,w,s,e,n\nBAND,${sheet.west},${sheet.south},${sheet.east},${sheet.north}\n`,
      {
        mapping: {
          west: { column: 'w' },
          south: { column: 's' },
          east: { column: 'e' },
          north: { column: 'n' },
        },
        branches: '1101',
        pageSize: 100,
        coordFormat: 'SUPERKONFORM',
      },
    );
    expect(inside.size).toBeGreaterThan(50);
    expect(new Set(rows.map((hit) => hit.near_ymid))).toEqual(inside);
    for (const hit of rows) {
      expect(Number(hit.near_lat)).toBeGreaterThanOrEqual(sheet.south);
      expect(Number(hit.near_lat)).toBeLessThanOrEqual(sheet.north);
    }
  });

  it('writes every hit inside a rectangle given in GEODECIMAL, with the hits in GEODECIMAL too', async () => {
    const direct = await r.client.addressSearch.byBranchesAndRectangle({
      Branches: '1301',
      Lux: 8.35,
      Luy: 49.05,
      Rlx: 8.45,
      Rly: 48.98,
      Top: 1,
    });
    const { rows } = await run('id,w,s,e,n\nKA,835000,4898000,845000,4905000\n', {
      mapping: {
        west: { column: 'w' },
        south: { column: 's' },
        east: { column: 'e' },
        north: { column: 'n' },
      },
      pageSize: 10,
      coordFormat: 'GEODECIMAL',
    });
    expect(rows).toHaveLength(direct.Paging.MaxCount);
    for (const hit of rows) {
      expect(Number(hit.near_lon)).toBeGreaterThanOrEqual(835000);
      expect(Number(hit.near_lon)).toBeLessThanOrEqual(845000);
      expect(Number.isInteger(Number(hit.near_lat))).toBe(true);
    }
  });
});

describe('address-search run against a service reporting a problem of its own', () => {
  it('fails the rows, not the run, on a non-zero StatusCode whose answer says it is authenticated', async () => {
    // The reviewer's repro: StatusCode 1 means "not authenticated" only in the emulator's table.
    const server = await startServer((_, res) =>
      json(res, 200, {
        Paging: { Page: 1, MaxPage: 0, Count: 0, MaxCount: 0 },
        AddressItems: [],
        StatusCode: 1,
        IsRequestAuthenticated: true,
        PublicReport: 'Interner Fehler bei der Suche',
      }),
    );
    const client = createClient({
      endpoints: { addressSearch: server.url },
      credentials: { partner: 'p', partnerKey: 'k' },
    });
    try {
      const dir = tempDir();
      const summary = await runJob({
        job: createAddressSearchJob(client, { mapping: {}, branches: '1301' }),
        jobFingerprint: 'address-search:status-1',
        input: {
          path: write(join(dir, 'in.csv'), 'id,lon,lat\n1,8.4037,49.0069\n2,8.41,49.01\n'),
          format: 'csv',
        },
        output: { path: join(dir, 'out.csv'), format: 'csv', formulaGuard: false },
        report: { path: join(dir, 'errors.csv'), format: 'csv' },
        logger: memoryLogger().logger,
        progress: { enabled: false },
      });
      expect(summary.rows).toMatchObject({ read: 2, failed: 2, failedByCode: { SERVICE_REPORTED: 2 } });
      const errors = parse(read(join(dir, 'errors.csv')), { columns: true }) as Record<string, string>[];
      expect(errors.map((e) => e.geobatch_error)).toEqual(['SERVICE_REPORTED', 'SERVICE_REPORTED']);
      expect(errors[0]?.geobatch_message).toContain('Interner Fehler bei der Suche');
    } finally {
      await client.close();
      await server.close();
    }
  });
});
