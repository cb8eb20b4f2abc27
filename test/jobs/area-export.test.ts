import { join } from 'node:path';
import { check } from '@placemarkio/check-geojson';
import { parse } from 'csv-parse/sync';
import type { Feature, FeatureCollection, MultiPolygon, Polygon, Position } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromWgs84, toWgs84 } from '../../src/client/coords.js';
import { parseJobFile } from '../../src/config/load.js';
import type { AreaOsmidBody, AreaRectangleBody } from '../../src/contract/index.js';
import { toWkt } from '../../src/jobs/_geometry.js';
import { areaBox, bboxOf, inFormat, rewind } from '../../src/jobs/_polygons.js';
import type { AreaFeature, AreaResult } from '../../src/jobs/_ports.js';
import { createAreaExportJob, readOsmid } from '../../src/jobs/area-export.js';
import type { OutputFormat } from '../../src/output/writer.js';
import { runJob } from '../../src/run/run.js';
import type { LonLat } from '../../src/types.js';
import { type Rig, rig } from '../client/_emulator.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { row, signal } from './_rows.js';

/** Twice the signed area: positive for a counter-clockwise ring. */
const signedArea = (ring: Position[]) =>
  ring.reduce((sum, b, i) => {
    const a = ring[(i + ring.length - 1) % ring.length] as Position;
    return sum + ((a[0] as number) - (b[0] as number)) * ((a[1] as number) + (b[1] as number));
  }, 0);

/** True when every exterior ring is counter-clockwise and every hole clockwise (RFC 7946 3.1.6). */
function rightHanded(geometry: Polygon | MultiPolygon): boolean {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  return polygons.every((rings) => rings.every((ring, i) => signedArea(ring) > 0 === (i === 0)));
}

// A square with a square hole, both wound the wrong way round for RFC 7946.
const CLOCKWISE_SQUARE: Position[] = [
  [0, 0],
  [0, 1],
  [1, 1],
  [1, 0],
  [0, 0],
];
const COUNTER_CLOCKWISE_HOLE: Position[] = [
  [0.25, 0.25],
  [0.75, 0.25],
  [0.75, 0.75],
  [0.25, 0.75],
  [0.25, 0.25],
];

describe('polygons as geobatch writes them', () => {
  it('winds exterior rings counter-clockwise and holes clockwise, polygons and multipolygons', () => {
    const polygon: Polygon = { type: 'Polygon', coordinates: [CLOCKWISE_SQUARE, COUNTER_CLOCKWISE_HOLE] };
    expect(rightHanded(polygon)).toBe(false);
    const wound = rewind(polygon);
    expect(rightHanded(wound)).toBe(true);
    expect(wound.coordinates[0]).toEqual([...CLOCKWISE_SQUARE].reverse());
    const multi: MultiPolygon = {
      type: 'MultiPolygon',
      coordinates: [[CLOCKWISE_SQUARE], polygon.coordinates],
    };
    expect(rightHanded(rewind(multi))).toBe(true);
    // Already right: left as it is.
    expect(rewind(wound)).toEqual(wound);
  });

  it('writes WKT and a bounding box', () => {
    const polygon: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [8, 49],
          [9, 49],
          [9, 50],
          [8, 49],
        ],
      ],
    };
    expect(toWkt(polygon)).toBe('POLYGON ((8 49, 9 49, 9 50, 8 49))');
    expect(toWkt({ type: 'MultiPolygon', coordinates: [polygon.coordinates, polygon.coordinates] })).toBe(
      'MULTIPOLYGON (((8 49, 9 49, 9 50, 8 49)), ((8 49, 9 49, 9 50, 8 49)))',
    );
    expect(toWkt({ type: 'Polygon', coordinates: [] })).toBe('POLYGON EMPTY');
    expect(bboxOf(polygon)).toEqual([8, 49, 9, 50]);
    // Grown to the area's own box, as the service sent it; never shrunk by it.
    expect(areaBox(polygon, [7.5, 48.5, 9, 50.5], 'GEODECIMAL_POINT')).toEqual([7.5, 48.5, 9, 50.5]);
    expect(areaBox(polygon, [8.5, 49.5, 8.6, 49.6], 'GEODECIMAL_POINT')).toEqual([8, 49, 9, 50]);
    expect(areaBox(polygon, undefined, 'GEODECIMAL_POINT')).toEqual([8, 49, 9, 50]);
    // In SUPERKONFORM, whose lines of latitude bend, the box of degrees' corners lie beyond the
    // area (Germany's west edge by 23 km): the box is the outline's own.
    const sk = inFormat(polygon, 'SUPERKONFORM');
    expect(areaBox(sk, [8, 49, 9, 50], 'SUPERKONFORM', false)).toEqual(bboxOf(sk));
    // A simplified outline's grows to hold the area's box, its bent edges and all.
    // Across the projection's central meridian, where a line of latitude bends the most.
    const grown = areaBox(sk, [7, 48.5, 13, 50.5], 'SUPERKONFORM') as number[];
    // Lines of latitude sag there: the south edge's middle lies south of its corners.
    const south = [7, 8.5, 10, 11.5, 13].map((lon) => fromWgs84([lon, 48.5], 'SUPERKONFORM')[1]);
    expect(grown[1]).toBeCloseTo(Math.min(...south), 2);
    expect(grown[1]).toBeLessThan(Math.min(south[0] as number, south[4] as number) - 500);
  });

  it('reads OSM ids as people write them', () => {
    expect(['62422', 'r62422', 'R62422', 'relation/62422', ' 62422 '].map(readOsmid)).toEqual(
      Array(5).fill(62422),
    );
    for (const text of ['Karlsruhe', '-5', '0', '62422.5', 'way/62422'])
      expect(readOsmid(text), text).toBeUndefined();
  });
});

function area(osmid: number, name: string, ring: Position[] = CLOCKWISE_SQUARE): AreaFeature {
  return {
    osmid,
    key: String(osmid),
    name,
    level: 6,
    isoCountry: 'DE',
    geometry: { type: 'Polygon', coordinates: [ring] },
    properties: {},
  };
}

const SHEET_MAPPING = {
  west: { column: 'xw' },
  south: { column: 'ys' },
  east: { column: 'xe' },
  north: { column: 'yn' },
};
/** A band 600 km wide and 100 km tall across Germany, in SUPERKONFORM. */
const sheetBand = { xw: 4900000, ys: 3600000, xe: 5500000, yn: 3700000 };

describe('area-export job', () => {
  it('matches ids back by the osmid each area carries, not by position, and reports unknown ids', async () => {
    const asked: AreaOsmidBody[] = [];
    const client = {
      area: {
        osmids: async (body: AreaOsmidBody): Promise<AreaResult> => {
          asked.push(body);
          return { features: [area(2, 'Zwei'), area(1, 'Eins')], bbox: null };
        },
        rectangle: async (): Promise<AreaResult> => ({ features: [], bbox: null }),
      },
    };
    const job = createAreaExportJob(client, {
      mapping: { osmid: { column: 'id' } },
      reduceGeometry: 0.5,
      geometryColumn: 'none',
    });
    const items = ['1', '3', 'relation/2'].flatMap((id) => job.plan(row({ id })) as never[]);
    const results = await job.execute(items, signal);
    expect(asked).toEqual([{ osmids: [1, 3, 2], reduceGeometry: 0.5 }]);
    expect(results.get('o:3')).toEqual({
      ok: false,
      failure: {
        code: 'NOT_FOUND',
        stage: 'response',
        message: 'OSM id 3: the service has no area with this id',
      },
    });
    const two = results.get('o:2');
    const rendered = two && job.render(row({ id: '2' }), [two]);
    expect(rendered).toMatchObject({
      ok: true,
      records: [{ columns: { area_osmid: 2, area_name: 'Zwei', area_west: 0, area_north: 1 } }],
    });
    expect(rendered?.ok && rightHanded(rendered.records[0]?.geometry as Polygon)).toBe(true);
  });

  it('fails an unreadable id before any request, naming the column and the value', () => {
    const job = createAreaExportJob(
      {
        area: {
          osmids: async () => ({ features: [], bbox: null }),
          rectangle: async () => ({ features: [], bbox: null }),
        },
      },
      { mapping: { osmid: { column: 'id' } } },
    );
    expect(job.plan(row({ id: 'Karlsruhe' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'id',
      message: 'id: expected a positive integer OSM id (62422, r62422 or relation/62422), got `Karlsruhe`',
    });
    expect(job.plan(row({ id: '' }))).toMatchObject({ code: 'FIELD_MISSING', field: 'id' });
    expect(job.plan(row({ id: 'r1234567890123456' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'id',
      message: 'id: expected an OSM id of at most 15 digits, got one of 16',
    });
  });

  it('asks for a SUPERKONFORM sheet by the box of degrees holding its whole outline, bent edges and all', async () => {
    const asked: AreaRectangleBody[] = [];
    const client = {
      area: {
        osmids: async () => ({ features: [], bbox: null }),
        rectangle: async (body: AreaRectangleBody): Promise<AreaResult> => {
          asked.push(body);
          return { features: [], bbox: null };
        },
      },
    };
    const job = createAreaExportJob(client, {
      mapping: SHEET_MAPPING,
      level: 6,
      coordFormat: { input: 'SUPERKONFORM' },
    });
    // Its north edge bends 0.08 degrees.
    const sheet = sheetBand;
    const r = row(Object.fromEntries(Object.entries(sheet).map(([k, v]) => [k, String(v)])));
    const items = job.plan(r) as never[];
    await job.execute(items, signal);
    const box = asked[0]?.boundingBox;
    expect(asked[0]?.level).toBe(6);
    const [west, south, east, north] = [
      box?.southWest.longitude ?? 0,
      box?.southWest.latitude ?? 0,
      box?.northEast.longitude ?? 0,
      box?.northEast.latitude ?? 0,
    ];
    // Every point of the sheet's edges lies in the box asked for, its bent north edge included,
    // which the box of its four corners left out.
    const edge: LonLat[] = [];
    for (let i = 0; i <= 100; i++) {
      const x = sheet.xw + ((sheet.xe - sheet.xw) * i) / 100;
      const y = sheet.ys + ((sheet.yn - sheet.ys) * i) / 100;
      edge.push(
        toWgs84([x, sheet.ys], 'SUPERKONFORM'),
        toWgs84([x, sheet.yn], 'SUPERKONFORM'),
        toWgs84([sheet.xw, y], 'SUPERKONFORM'),
        toWgs84([sheet.xe, y], 'SUPERKONFORM'),
      );
    }
    for (const [lon, lat] of edge) {
      expect(lon).toBeGreaterThanOrEqual(west);
      expect(lon).toBeLessThanOrEqual(east);
      expect(lat).toBeGreaterThanOrEqual(south);
      expect(lat).toBeLessThanOrEqual(north);
    }
    const corners = [
      [sheet.xw, sheet.yn],
      [sheet.xe, sheet.yn],
    ].map(([x, y]) => toWgs84([x as number, y as number], 'SUPERKONFORM'));
    expect(north - Math.max(...corners.map((c) => c[1]))).toBeGreaterThan(0.05);
    expect(north - Math.max(...edge.map((c) => c[1]))).toBeLessThan(1e-4);
  });

  it('keeps the areas a SUPERKONFORM sheet meets, and leaves out those only its box meets', async () => {
    const answer: AreaFeature[] = [];
    const client = {
      area: {
        osmids: async () => ({ features: [], bbox: null }),
        rectangle: async (): Promise<AreaResult> => ({ features: answer, bbox: null }),
      },
    };
    const job = createAreaExportJob(client, {
      mapping: SHEET_MAPPING,
      level: 6,
      coordFormat: { input: 'SUPERKONFORM' },
    });
    const sheet = sheetBand;
    const at = (x: number, y: number) => toWgs84([x, y], 'SUPERKONFORM');
    const square = ([lon, lat]: LonLat, half: number): Position[] => [
      [lon - half, lat - half],
      [lon + half, lat - half],
      [lon + half, lat + half],
      [lon - half, lat + half],
      [lon - half, lat - half],
    ];
    const [westLon, westLat] = at(sheet.xw, 3650000);
    answer.push(
      // In the middle of the sheet.
      area(1, 'Inside', square(at(5200000, 3650000), 0.01)),
      // Across its west edge, with no corner inside: a long thin bar.
      area(2, 'Crossing', [
        [westLon - 0.5, westLat - 0.0005],
        [westLon + 0.5, westLat - 0.0005],
        [westLon + 0.5, westLat + 0.0005],
        [westLon - 0.5, westLat + 0.0005],
        [westLon - 0.5, westLat - 0.0005],
      ]),
      // Holding the whole sheet: only the sheet's corners lie in it.
      area(3, 'Around', square(at(5200000, 3650000), 6)),
      // Just north of the sheet's north-west corner: in the box of degrees, which bulges north there.
      area(4, 'Beyond the bend', square(at(sheet.xw + 20000, sheet.yn + 6000), 0.02)),
    );
    const r = row(Object.fromEntries(Object.entries(sheet).map(([k, v]) => [k, String(v)])));
    const results = await job.execute(job.plan(r) as never[], signal);
    const rendered = job.render(r, [...results.values()]);
    expect(rendered.ok && rendered.records.map((x) => [x.columns.area_count, x.columns.area_name])).toEqual([
      [3, 'Inside'],
      [3, 'Crossing'],
      [3, 'Around'],
    ]);
  });

  it('keeps, for a simplified outline, the areas whose own box meets the sheet, and drops the others', async () => {
    const at = (x: number, y: number) => toWgs84([x, y], 'SUPERKONFORM');
    const [lon, lat] = at(sheetBand.xw - 3, 3650000);
    // The outline stops 3 m short of the sheet's west edge (simplified); the area's box reaches in.
    const near = {
      ...area(1, 'Near', [
        [lon - 0.2, lat - 0.1],
        [lon, lat - 0.1],
        [lon, lat + 0.1],
        [lon - 0.2, lat + 0.1],
        [lon - 0.2, lat - 0.1],
      ]),
      bbox: [lon - 0.2, lat - 0.1, lon + 0.01, lat + 0.1] as [number, number, number, number],
    };
    const far = {
      ...area(2, 'Far', CLOCKWISE_SQUARE),
      bbox: [0, 0, 1, 1] as [number, number, number, number],
    };
    const client = {
      area: {
        osmids: async () => ({ features: [], bbox: null }),
        rectangle: async (): Promise<AreaResult> => ({ features: [near, far], bbox: null }),
      },
    };
    const job = createAreaExportJob(client, {
      mapping: SHEET_MAPPING,
      level: 6,
      reduceGeometry: 0.2,
      coordFormat: { input: 'SUPERKONFORM' },
    });
    const r = row(Object.fromEntries(Object.entries(sheetBand).map(([k, v]) => [k, String(v)])));
    const results = await job.execute(job.plan(r) as never[], signal);
    const rendered = job.render(r, [...results.values()]);
    expect(rendered.ok && rendered.records.map((x) => x.columns.area_name)).toEqual(['Near']);
  });

  it('refuses a SUPERKONFORM rectangle given the wrong way round', () => {
    const client = {
      area: {
        osmids: async () => ({ features: [], bbox: null }),
        rectangle: async (): Promise<AreaResult> => ({ features: [], bbox: null }),
      },
    };
    const job = createAreaExportJob(client, {
      mapping: SHEET_MAPPING,
      level: 6,
      coordFormat: { input: 'SUPERKONFORM' },
    });
    expect(job.plan(row({ xw: '5087871', ys: '3346184.5', xe: '5083871', yn: '3350184.5' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'xw',
      message: 'xw: expected west to be less than east, got xw 5087871 and xe 5083871 (swapped?)',
    });
    expect(job.plan(row({ xw: '5083871', ys: '3346184.5', xe: '5087871', yn: '3346184.5' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'ys',
      message:
        'ys: expected south to be less than north, got ys 3346184.5 and yn 3346184.5 (the rectangle has no height)',
    });
  });

  it('refuses a job file that mixes the forms, or asks for rectangles without a level', () => {
    const file = (body: string) => () =>
      parseJobFile(`job: area-export\ninput: in.csv\noutput: out.geojson\n${body}`, '/jobs/a.yaml', {});
    expect(file('mapping: { osmid: id, west: w }')).toThrow(/mapping\.west/);
    expect(file('mapping: { west: w, south: s, east: e }')).toThrow(/mapping\.north/);
    expect(file('mapping: { west: w, south: s, east: e, north: n }')).toThrow(/options\.level/);
    expect(file('mapping: { osmid: id }\noptions: { level: 6 }')).toThrow(/options\.level/);
    expect(file('mapping: { west: w, south: s, east: e, north: n }\noptions: { level: 6 }')).not.toThrow();
  });

  it('refuses the keys of the id batches with rectangles, which send one request each', () => {
    const file = (body: string) => () =>
      parseJobFile(`job: area-export\ninput: in.csv\noutput: out.geojson\n${body}`, '/jobs/a.yaml', {});
    const rectangle = 'mapping: { west: w, south: s, east: e, north: n }\n';
    for (const [key, value] of [
      ['batchSize', 10],
      ['lingerMs', 0],
    ] as const) {
      const error = catchError(file(`${rectangle}options: { level: 6, ${key}: ${value} }`));
      expect(error).toMatchObject({
        code: 'CONFIG_INVALID',
        context: { file: '/jobs/a.yaml', path: `options.${key}`, received: String(value) },
      });
      expect(error?.message).toContain(`options.${key}: not used with rectangles`);
    }
    expect(file('mapping: { osmid: id }\noptions: { batchSize: 10, lingerMs: 0 }')).not.toThrow();
  });

  it('hints only at what an area export has when the forms are mixed: it has no options.form', () => {
    const error = catchError(() =>
      parseJobFile(
        'job: area-export\ninput: in.csv\noutput: out.csv\nmapping: { osmid: id, west: w }\n',
        '/jobs/a.yaml',
        {},
      ),
    );
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      context: {
        path: 'mapping.west',
        hint: 'for the osmid form, drop mapping.west; for the rectangle form, drop mapping.osmid',
      },
    });
  });
});

function catchError(run: () => unknown): (Error & { code?: string; context?: object }) | undefined {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string; context?: object };
  }
  return undefined;
}

describe('area-export against the emulator', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(() => r.stop());

  async function run(
    input: string,
    format: OutputFormat,
    options: Record<string, unknown>,
    mapping: Record<string, { column: string }>,
  ) {
    const dir = tempDir();
    const output = join(dir, `out.${format}`);
    r.emulator.resetStats();
    const summary = await runJob({
      job: createAreaExportJob(r.client, { mapping, ...options }),
      jobFingerprint: 'area-export:test',
      input: { path: write(join(dir, 'in.csv'), input), format: 'csv' },
      output: { path: output, format },
      report: { path: join(dir, 'errors.csv'), format: 'csv' },
      logger: memoryLogger().logger,
      progress: { enabled: false },
    });
    return { summary, text: read(output), requests: r.emulator.stats().total };
  }

  // States and Stadtkreise of the emulator (level x 10,000,000 + the official key).
  const IDS = [
    '40008000',
    '40009000',
    '60008212',
    '60009162',
    '60011000',
    '99999999',
    '60008212',
    'r40008000',
  ];
  const ids = `ref,id\n${IDS.map((id, i) => `A${i},${id}`).join('\n')}\n`;

  it('writes valid RFC 7946 GeoJSON, rings wound right, in ceil(distinct ids / batchSize) requests', async () => {
    const { summary, text, requests } = await run(
      ids,
      'geojson',
      { batchSize: 2, reduceGeometry: 0.2 },
      { osmid: { column: 'id' } },
    );
    expect(summary.rows).toMatchObject({ read: 8, ok: 7, failed: 1, failedByCode: { NOT_FOUND: 1 } });
    // 6 distinct ids, 2 a request.
    expect(requests).toBe(3);
    const collection = check(text) as FeatureCollection;
    const areas = collection.features.filter(
      (f): f is Feature<Polygon | MultiPolygon> => f.geometry !== null,
    );
    expect(areas.map((f) => f.properties?.area_name)).toEqual([
      'Baden-Württemberg',
      'Bayern',
      'Karlsruhe',
      'München',
      'Berlin',
      'Karlsruhe',
      'Baden-Württemberg',
    ]);
    for (const f of areas) expect(rightHanded(f.geometry), String(f.properties?.area_name)).toBe(true);
  });

  it('writes each polygon as WKT and its bounding box in the output format for CSV', async () => {
    const { text } = await run(
      ids,
      'csv',
      { coordFormat: 'SUPERKONFORM', reduceGeometry: 0.2 },
      { osmid: { column: 'id' } },
    );
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const karlsruhe = rows.find((x) => x.ref === 'A2') as Record<string, string>;
    expect(karlsruhe.area_geometry).toMatch(/^(MULTI)?POLYGON \(\(/);
    const [x, y] = fromWgs84([8.4037, 49.0069], 'SUPERKONFORM');
    // Karlsruhe's centre lies inside the bounding box the columns give, in SUPERKONFORM metres.
    expect(Number(karlsruhe.area_west)).toBeLessThan(x);
    expect(Number(karlsruhe.area_east)).toBeGreaterThan(x);
    expect(Number(karlsruhe.area_south)).toBeLessThan(y);
    expect(Number(karlsruhe.area_north)).toBeGreaterThan(y);
    const first = /\(\(([-\d.]+) ([-\d.]+)/.exec(karlsruhe.area_geometry ?? '');
    expect(Number(first?.[1])).toBeGreaterThan(4_000_000);
  });

  it('gives the whole area’s bounding box when the geometry comes simplified, in every format', async () => {
    const one = 'ref,id\nA,60008212\n';
    const columns = async (options: Record<string, unknown>) => {
      const { text } = await run(one, 'csv', options, { osmid: { column: 'id' } });
      return (parse(text, { columns: true }) as Record<string, string>[])[0] as Record<string, string>;
    };
    const box = (row: Record<string, string>) =>
      ['west', 'south', 'east', 'north'].map((side) => Number(row[`area_${side}`]));
    for (const coordFormat of ['GEODECIMAL_POINT', 'MERCATOR']) {
      const full = await columns({ coordFormat });
      const simplified = await columns({ coordFormat, zoom: 3 });
      // The outline lost corners (a shorter WKT), the box did not shrink with it.
      expect((simplified.area_geometry ?? '').length).toBeLessThan((full.area_geometry ?? '').length);
      expect(box(simplified)).toEqual(box(full));
    }
  });

  it('keeps GeoJSON text in WGS84 when the other columns follow SUPERKONFORM', async () => {
    const { text } = await run(
      ids,
      'csv',
      { coordFormat: 'SUPERKONFORM', reduceGeometry: 0.2, geometryColumn: 'geojson' },
      { osmid: { column: 'id' } },
    );
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const karlsruhe = rows.find((x) => x.ref === 'A2') as Record<string, string>;
    const shape = JSON.parse(karlsruhe.area_geometry ?? '') as Polygon | MultiPolygon;
    const positions = (shape.coordinates as unknown[]).flat(3) as number[];
    expect(positions.length).toBeGreaterThan(4);
    // Degrees around Karlsruhe, not SUPERKONFORM metres; the bounding box stays in metres.
    expect(Math.max(...positions.map(Math.abs))).toBeLessThan(90);
    expect(Number(karlsruhe.area_west)).toBeGreaterThan(3_000_000);
  });

  it('writes one row per district a rectangle meets, and keeps a rectangle at sea as one row with 0', async () => {
    const input = 'sheet,w,s,e,n\nKA,8.35,48.98,8.45,49.05\nSEA,6.1,54.7,6.3,54.9\n';
    const mapping = {
      west: { column: 'w' },
      south: { column: 's' },
      east: { column: 'e' },
      north: { column: 'n' },
    };
    const { summary, text, requests } = await run(
      input,
      'csv',
      { level: 6, geometryColumn: 'none' },
      mapping,
    );
    expect(summary.rows).toMatchObject({ read: 2, ok: 2, failed: 0 });
    expect(requests).toBe(2);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const ka = rows.filter((x) => x.sheet === 'KA');
    expect(ka.map((x) => x.area_key)).toContain('08212');
    expect(ka.every((x) => x.area_count === String(ka.length))).toBe(true);
    expect(rows.filter((x) => x.sheet === 'SEA')).toEqual([
      expect.objectContaining({ area_count: '0', area_name: '', geobatch_status: 'ok' }),
    ]);
    expect(Object.keys(rows[0] ?? {})).not.toContain('area_geometry');
  });
});
