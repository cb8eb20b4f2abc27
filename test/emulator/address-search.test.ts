import { describe, expect, it } from 'vitest';
import {
  ADDRESS_SEARCH_STATUS,
  addressSearchResponseSchema,
  BAD_LOCATION_MESSAGE_PREFIX,
  BRANCHES_REQUIRED_MESSAGE,
} from '../../src/contract/index.js';
import { DUPLICATE_CUSTOMER_IDS } from '../../src/emulator/index.js';
import type { Json } from './_helpers.js';
import { getJson, useEmulator } from './_helpers.js';

const emulator = useEmulator();
const KARLSRUHE = 'LocX=8.4037&LocY=49.0069';
/** Distance is filled only with both Addition keys (spec); this one names the search point itself. */
const AT_KARLSRUHE = 'Addition=LocXForDistanceCalculation%3D8.4037%26LocYForDistanceCalculation%3D49.0069';

/** GET an address search endpoint with the demo Basic header; every JSON object answer must parse. */
async function search(endpoint: string, query: string, headers?: Record<string, string>) {
  const e = emulator();
  const res = await getJson(`${e.urls.addressSearch}/${endpoint}?${query}`, {
    authorization: e.credentials.basicHeader,
    ...headers,
  });
  if (res.status === 200) expect(addressSearchResponseSchema.safeParse(res.json).success).toBe(true);
  return { ...res, body: res.json as Json };
}

const count = async (branches: string) =>
  (await search('ByBranchesAndPosition', `Branches=${branches}&${KARLSRUHE}&MaxRadius=-1`)).body.Paging
    .MaxCount;

describe('address search authentication', () => {
  it('answers 401 with a plain-text body when the Basic header is missing', async () => {
    const res = await fetch(
      `${emulator().urls.addressSearch}/ByBranchesAndPosition?Branches=100&${KARLSRUHE}`,
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/Basic/);
  });

  it('does not accept apiKey in the query instead of the Basic header', async () => {
    const e = emulator();
    const res = await fetch(
      `${e.urls.addressSearch}/ByCustomerId?CustomerIds=X&apiKey=${e.credentials.apiKey}`,
    );
    expect(res.status).toBe(401);
  });

  it('answers wrong credentials with 200, NOT_AUTHENTICATED and no results', async () => {
    const wrong = `Basic ${Buffer.from('demo-partner:nope').toString('base64')}`;
    const res = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}`, { authorization: wrong });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      IsRequestAuthenticated: false,
      IsAccessApproved: false,
      StatusCode: ADDRESS_SEARCH_STATUS.NOT_AUTHENTICATED,
      AddressItems: [],
    });
    expect(res.body.PublicReport).not.toBe('');
  });
});

describe('address search 400 answers', () => {
  it.each(['', 'Branches=', 'Branches=%7C', 'Branches=%26'])(
    'rejects a search without categories (%s) with the German JSON string',
    async (branches) => {
      const res = await search('ByBranchesAndPosition', `${branches}&${KARLSRUHE}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toBe(BRANCHES_REQUIRED_MESSAGE);
    },
  );

  it.each([
    ['a missing LocX', 'LocY=49'],
    ['a LocY that is no number', 'LocX=8.4&LocY=abc'],
    ['a latitude out of range', 'LocX=8.4&LocY=91'],
  ])('rejects %s with the location message', async (_, coords) => {
    const res = await search('ByBranchesAndPosition', `Branches=100&${coords}`);
    expect(res.status).toBe(400);
    expect(typeof res.body).toBe('string');
    expect(res.body.startsWith(BAD_LOCATION_MESSAGE_PREFIX)).toBe(true);
    expect(res.body.length).toBeGreaterThan(BAD_LOCATION_MESSAGE_PREFIX.length);
  });

  it('rejects a rectangle with a missing corner with the location message', async () => {
    const res = await search('ByBranchesAndRectangle', 'Branches=100&Lux=8.3&Luy=49.1&Rlx=8.5');
    expect(res.status).toBe(400);
    expect(res.body.startsWith(BAD_LOCATION_MESSAGE_PREFIX)).toBe(true);
  });

  it('rejects ByCustomerId without CustomerIds and ByIdentifier without Identifier', async () => {
    expect((await search('ByCustomerId', '')).status).toBe(400);
    expect((await search('ByIdentifier', '')).status).toBe(400);
  });
});

describe('address search limits (200 with StatusCode and PublicReport)', () => {
  it('accepts MaxRadius 300000 and rejects 300001', async () => {
    const ok = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&MaxRadius=300000`);
    expect(ok.body.StatusCode).toBe(0);
    expect(ok.body.PublicReport).toBe('');
    const bad = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&MaxRadius=300001`);
    expect(bad.status).toBe(200);
    expect(bad.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER);
    expect(bad.body.PublicReport).toMatch(/300/);
    expect(bad.body.AddressItems).toEqual([]);
  });

  it('treats MaxRadius -1 as the 300 km cap', async () => {
    const capped = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&MaxRadius=300000&Top=1`);
    const unlimited = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&Top=1`);
    expect(unlimited.body.Paging.MaxCount).toBe(capped.body.Paging.MaxCount);
    const all = await search('ByBranchesAndRectangle', 'Branches=100&Lux=5&Luy=56&Rlx=16&Rly=47&Top=1');
    expect(capped.body.Paging.MaxCount).toBeLessThan(all.body.Paging.MaxCount);
  });

  it.each(['Top=0', 'Top=101', 'Page=0', 'OrderBy=RANDOM', 'CoordFormatIn=WGS84'])(
    'reports %s as INVALID_PARAMETER',
    async (param) => {
      const res = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&${param}`);
      expect(res.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER);
      expect(res.body.PublicReport).not.toBe('');
    },
  );

  it('reports an upside-down rectangle as INVALID_PARAMETER', async () => {
    const res = await search('ByBranchesAndRectangle', 'Branches=100&Lux=8.5&Luy=49.0&Rlx=8.3&Rly=49.1');
    expect(res.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER);
  });
});

describe('address search categories', () => {
  it('reads `|` as OR and `%26` as AND', async () => {
    const [a, b, both, either] = await Promise.all([
      count('1301'),
      count('1201'),
      count('1301%261201'),
      count('1301|1201'),
    ]);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    expect(both).toBeGreaterThan(0);
    expect(either).toBe(a + b - both);
  });

  it('binds the pipe stronger than the ampersand: a&b|c = a AND (b OR c)', async () => {
    const [ab, ac, abc, expr] = await Promise.all([
      count('1101%261301'),
      count('1101%261201'),
      count('1101%261301%261201'),
      count('1101%261301|1201'),
    ]);
    expect(expr).toBe(ab + ac - abc);
    expect(expr).not.toBe(await count('1201'));
  });

  it('gives every record the base code, so it matches everything', async () => {
    const res = await search('ByBranchesAndPosition', `Branches=100%261301&${KARLSRUHE}&Top=3`);
    expect(res.body.Paging.MaxCount).toBe(await count('1301'));
    for (const item of res.body.AddressItems) {
      const codes = item.BasicData.BranchListElements.map((b: Json) => b.BranchCode);
      expect(codes).toEqual(expect.arrayContaining(['100', '1301']));
    }
  });

  it('filters by Catchwords in the company name', async () => {
    const res = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&Catchwords=sparkasse`);
    expect(res.body.Paging.MaxCount).toBeGreaterThan(0);
    for (const item of res.body.AddressItems)
      expect(item.BasicData.Address.CompanyName).toMatch(/sparkasse/i);
  });
});

describe('address search IsoLocale', () => {
  const texts = (body: Json) =>
    body.AddressItems.flatMap((item: Json) =>
      item.BasicData.BranchListElements.map((b: Json) => `${b.BranchText} (${b.Language})`),
    );

  it('names the categories in English for an English locale, in German by default', async () => {
    const query = `Branches=1301&${KARLSRUHE}&Top=2`;
    const [german, english, french] = await Promise.all([
      search('ByBranchesAndPosition', query),
      search('ByBranchesAndPosition', `${query}&IsoLocale=en-GB`),
      search('ByBranchesAndPosition', `${query}&IsoLocale=fr-FR`),
    ]);
    expect(texts(german.body)).toContain('Banken/Versicherungen (de)');
    expect(texts(english.body)).toContain('Banks/Insurance (en)');
    expect(texts(english.body)).not.toContain('Banken/Versicherungen (de)');
    // The same records either way: only the language of their content changes.
    expect(english.body.Paging.MaxCount).toBe(german.body.Paging.MaxCount);
    expect(texts(french.body)).toEqual(texts(german.body));
  });

  it('refuses a value that is no locale with StatusCode 2 and a report naming it', async () => {
    const res = await search('ByBranchesAndPosition', `Branches=1301&${KARLSRUHE}&IsoLocale=english`);
    expect(res.status).toBe(200);
    expect(res.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER);
    expect(res.body.PublicReport).toContain('IsoLocale=english');
    expect(res.body.AddressItems).toEqual([]);
  });
});

describe('address search paging and order', () => {
  it('pages with Top and Page and reports MaxPage', async () => {
    const q = `Branches=1301&${KARLSRUHE}&MaxRadius=50000&Top=5`;
    const p1 = await search('ByBranchesAndPosition', `${q}&Page=1`);
    const p2 = await search('ByBranchesAndPosition', `${q}&Page=2`);
    const { MaxCount, MaxPage } = p1.body.Paging;
    expect(MaxCount).toBeGreaterThan(10);
    expect(MaxPage).toBe(Math.ceil(MaxCount / 5));
    expect(p1.body.Paging).toMatchObject({ Page: 1, Count: 5 });
    const ids = (r: Json) => r.body.AddressItems.map((i: Json) => i.BasicData.Identifiers.YMID);
    expect(ids(p2)).toHaveLength(5);
    expect(ids(p1).filter((id: string) => ids(p2).includes(id))).toEqual([]);
    const beyond = await search('ByBranchesAndPosition', `${q}&Page=${MaxPage + 1}`);
    expect(beyond.body).toMatchObject({ StatusCode: 0, AddressItems: [] });
    expect(beyond.body.Paging.Count).toBe(0);
  });

  it('orders by distance, by German name, or keeps data order for NONE', async () => {
    const q = `Branches=1301&${KARLSRUHE}&MaxRadius=100000&Top=30`;
    const byDistance = await search('ByBranchesAndPosition', `${q}&OrderBy=DISTANCE&${AT_KARLSRUHE}`);
    const d = byDistance.body.AddressItems.map((i: Json) => Number(i.BasicData.Geo.Distance));
    expect(d).toEqual([...d].sort((x, y) => x - y));
    const byName = await search('ByBranchesAndPosition', q);
    const names = byName.body.AddressItems.map((i: Json) => i.BasicData.Address.CompanyName);
    expect(names).toEqual(
      [...names].sort(new Intl.Collator('de-DE', { sensitivity: 'base', numeric: true }).compare),
    );
    const none = await search('ByBranchesAndPosition', `${q}&OrderBy=NONE`);
    expect(none.body.Paging.MaxCount).toBe(byName.body.Paging.MaxCount);
    expect(none.body.AddressItems.map((i: Json) => i.BasicData.Address.CompanyName)).not.toEqual(names);
  });

  it('finds only records within MaxRadius of the position, with their distance', async () => {
    const res = await search(
      'ByBranchesAndPosition',
      `Branches=100&${KARLSRUHE}&MaxRadius=5000&Top=100&${AT_KARLSRUHE}`,
    );
    expect(res.body.AddressItems.length).toBeGreaterThan(0);
    for (const item of res.body.AddressItems) {
      expect(item.BasicData.Geo.Distance).toMatch(/^\d+$/);
      expect(Number(item.BasicData.Geo.Distance)).toBeLessThanOrEqual(5000);
    }
    expect(res.body.GeoItems[0]).toMatchObject({ City: 'Karlsruhe', District: 'Baden-Württemberg' });
  });

  it('reads MERCATOR and GEODECIMAL positions like GEODECIMAL_POINT', async () => {
    const R = 6371000;
    const [lon, lat] = [8.4037, 49.0069];
    const x = (R * lon * Math.PI) / 180;
    const y = R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
    const base = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&MaxRadius=20000`);
    const merc = await search(
      'ByBranchesAndPosition',
      `Branches=100&LocX=${x}&LocY=${y}&CoordFormatIn=MERCATOR&MaxRadius=20000`,
    );
    const gd = await search(
      'ByBranchesAndPosition',
      `Branches=100&LocX=840370&LocY=4900690&CoordFormatIn=GEODECIMAL&MaxRadius=20000`,
    );
    expect(merc.body.Paging.MaxCount).toBe(base.body.Paging.MaxCount);
    expect(gd.body.Paging.MaxCount).toBe(base.body.Paging.MaxCount);
  });

  it('answers an unsupported IsoCountryCode with an empty result', async () => {
    const res = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&IsoCountryCode=AT`);
    expect(res.body).toMatchObject({ StatusCode: 0, AddressItems: [], Paging: { MaxCount: 0 } });
  });
});

describe('address search by rectangle and address', () => {
  it('returns only records inside the rectangle, without a distance', async () => {
    const res = await search(
      'ByBranchesAndRectangle',
      'Branches=100&Lux=8.3&Luy=49.1&Rlx=8.5&Rly=48.9&Top=100',
    );
    expect(res.body.AddressItems.length).toBeGreaterThan(0);
    for (const item of res.body.AddressItems) {
      const { XCoord, YCoord, Distance } = item.BasicData.Geo;
      expect(Number(XCoord)).toBeGreaterThanOrEqual(8.3);
      expect(Number(XCoord)).toBeLessThanOrEqual(8.5);
      expect(Number(YCoord)).toBeGreaterThanOrEqual(48.9);
      expect(Number(YCoord)).toBeLessThanOrEqual(49.1);
      expect(Distance).toBe('');
    }
  });

  it('locates a zip, describes it in GeoItems and searches around it', async () => {
    const res = await search(
      'ByBranchesAndAddress',
      'Branches=100&Zip=76131&MaxRadius=10000&OrderBy=DISTANCE',
    );
    expect(res.body.StatusCode).toBe(0);
    expect(res.body.GeoItems[0]).toMatchObject({
      Zip: '76131',
      City: 'Karlsruhe',
      District: 'Baden-Württemberg',
      Country: 'D',
    });
    expect(Number(res.body.GeoItems[0].LocX)).toBeCloseTo(8.42, 1);
    expect(res.body.AddressItems.length).toBeGreaterThan(0);
  });

  it('locates a city, a zip prefix and several zips', async () => {
    const city = await search('ByBranchesAndAddress', 'Branches=100&City=M%C3%BCnchen&MaxRadius=5000');
    expect(city.body.GeoItems[0]).toMatchObject({ City: 'München', District: 'Bayern', GeoLevel: 'CITY' });
    const prefix = await search('ByBranchesAndAddress', 'Branches=100&Zip=761&MaxRadius=5000');
    expect(prefix.body.GeoItems[0]).toMatchObject({ Zip: '761', GeoLevel: 'ZIP_PREFIX' });
    const several = await search('ByBranchesAndAddress', 'Branches=100&Zip=76131%7C80331&MaxRadius=5000');
    expect(several.body.GeoItems.map((g: Json) => g.City)).toEqual(['Karlsruhe', 'München']);
  });

  it('reports an address it cannot locate, or none at all, with a StatusCode', async () => {
    const contradicting = await search('ByBranchesAndAddress', 'Branches=100&Zip=76131&City=Hamburg');
    expect(contradicting.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.LOCATION_NOT_FOUND);
    expect(contradicting.body.PublicReport).not.toBe('');
    const nothing = await search('ByBranchesAndAddress', 'Branches=100&Street=Hauptstra%C3%9Fe%201');
    expect(nothing.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER);
  });
});

describe('address search Addition distance', () => {
  const rect = 'Branches=100&Lux=8.3&Luy=49.1&Rlx=8.5&Rly=48.9&Top=5';

  it('computes Distance to the Addition point only when its = and & arrive encoded', async () => {
    const encoded = await search(
      'ByBranchesAndRectangle',
      `${rect}&Addition=LocXForDistanceCalculation%3D13.788%26LocYForDistanceCalculation%3D51.045`,
    );
    for (const item of encoded.body.AddressItems) {
      expect(Number(item.BasicData.Geo.Distance)).toBeGreaterThan(400_000);
      expect(item.BasicData.Geo.Distance).toMatch(/^\d+$/);
    }
    const bare = await search(
      'ByBranchesAndRectangle',
      `${rect}&Addition=LocXForDistanceCalculation=13.788&LocYForDistanceCalculation=51.045`,
    );
    const equalsOnly = await search(
      'ByBranchesAndRectangle',
      `${rect}&Addition=LocXForDistanceCalculation=13.788%26LocYForDistanceCalculation=51.045`,
    );
    for (const res of [bare, equalsOnly]) {
      expect(res.body.AddressItems.length).toBeGreaterThan(0);
      for (const item of res.body.AddressItems) expect(item.BasicData.Geo.Distance).toBe('');
    }
  });

  it('leaves Distance empty without the Addition keys, even for searches that have a location', async () => {
    // Spec, Addition keys: "without them the field stays empty".
    const position = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&MaxRadius=5000&Top=5`);
    const address = await search('ByBranchesAndAddress', 'Branches=100&Zip=76131&City=Karlsruhe&Top=5');
    for (const res of [position, address]) {
      expect(res.body.AddressItems.length).toBeGreaterThan(0);
      for (const item of res.body.AddressItems) expect(item.BasicData.Geo.Distance).toBe('');
    }
  });
});

describe('address search records by key', () => {
  async function someItems(n: number): Promise<Json[]> {
    const res = await search('ByBranchesAndPosition', `Branches=100&${KARLSRUHE}&Top=${n}`);
    return res.body.AddressItems;
  }

  it('derives the identifiers consistently', async () => {
    for (const item of await someItems(20)) {
      const ids = item.BasicData.Identifiers;
      expect(ids.YMIDUrlEncoded).toBe(encodeURIComponent(ids.YMID));
      expect(ids.YMIDDecoded).toMatch(/^\d{9}$/);
      expect(ids.ProviderForeignKey).toMatch(/^GN\d{10}$/);
      expect(ids.YMIDPathEncoded).not.toMatch(/[+/=]/);
    }
  });

  it('returns exactly one hit for ByIdentifier with YMIDUrlEncoded', async () => {
    const items = await someItems(20);
    const item = items.find((i) => /[+/]/.test(i.BasicData.Identifiers.YMID)) ?? items[0];
    const { YMID, YMIDUrlEncoded } = item.BasicData.Identifiers;
    const res = await search('ByIdentifier', `Identifier=${YMIDUrlEncoded}`);
    expect(res.body.StatusCode).toBe(0);
    expect(res.body.Paging.MaxCount).toBe(1);
    expect(res.body.AddressItems).toHaveLength(1);
    expect(res.body.AddressItems[0].BasicData.Identifiers.YMID).toBe(YMID);
    expect(res.body.AddressItems[0].BasicData.Geo.Distance).toBe('');
  });

  it('does not find a YMID sent without URL-encoding, nor an unknown one', async () => {
    const items = await someItems(40);
    const plus = items.find((i) => i.BasicData.Identifiers.YMID.includes('+'));
    expect(plus).toBeDefined();
    const raw = await search('ByIdentifier', `Identifier=${plus.BasicData.Identifiers.YMID}`);
    expect(raw.body).toMatchObject({ StatusCode: ADDRESS_SEARCH_STATUS.NOT_FOUND, AddressItems: [] });
    expect(raw.body.Paging.MaxCount).toBe(0);
  });

  it('returns the records of several supplier keys, skipping unknown ones', async () => {
    const [a, b] = (await someItems(2)).map((i) => i.BasicData.Identifiers.ProviderForeignKey);
    const res = await search('ByCustomerId', `CustomerIds=${a}%7CGN0000000000%7C${b}`);
    expect(res.body.StatusCode).toBe(0);
    expect(res.body.AddressItems.map((i: Json) => i.BasicData.Identifiers.ProviderForeignKey)).toEqual([
      a,
      b,
    ]);
    expect(res.body.Paging).toMatchObject({ Page: 1, MaxPage: 1, Count: 2, MaxCount: 2 });
    const none = await search('ByCustomerId', 'CustomerIds=GN0000000000');
    expect(none.body).toMatchObject({ StatusCode: 0, AddressItems: [], Paging: { MaxCount: 0 } });
  });

  it('answers each documented duplicate supplier key with two records', async () => {
    expect(DUPLICATE_CUSTOMER_IDS.length).toBeGreaterThan(0);
    for (const key of DUPLICATE_CUSTOMER_IDS) {
      const res = await search('ByCustomerId', `CustomerIds=${key}`);
      expect(res.body.AddressItems).toHaveLength(2);
      const ymids = res.body.AddressItems.map((i: Json) => i.BasicData.Identifiers.YMID);
      expect(new Set(ymids).size).toBe(2);
    }
  });

  it('rejects more than 100 supplier keys with INVALID_PARAMETER', async () => {
    const keys = Array.from({ length: 101 }, (_, i) => `GN${String(i).padStart(10, '0')}`).join('%7C');
    const res = await search('ByCustomerId', `CustomerIds=${keys}`);
    expect(res.body.StatusCode).toBe(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER);
  });

  it('fills Distance for ByCustomerId only with the Addition point', async () => {
    const [a] = (await someItems(1)).map((i) => i.BasicData.Identifiers.ProviderForeignKey);
    const plain = await search('ByCustomerId', `CustomerIds=${a}`);
    expect(plain.body.AddressItems[0].BasicData.Geo.Distance).toBe('');
    const withRef = await search(
      'ByCustomerId',
      `CustomerIds=${a}&Addition=LocXForDistanceCalculation%3D8.4037%26LocYForDistanceCalculation%3D49.0069`,
    );
    expect(withRef.body.AddressItems[0].BasicData.Geo.Distance).toMatch(/^\d+$/);
  });
});
