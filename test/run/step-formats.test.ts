/**
 * A pipeline step that reads, in one format, a coordinate column an earlier step writes in another
 * is refused at validate (checkSteps) and at a run's start (assemble) alike, naming both steps, the
 * column and the two formats; steps that agree, and steps that read the earlier step's point from
 * its geometry, are accepted.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { resolveMapping } from '../../src/jobs/_fields.js';
import { JOB_KINDS, jobColumns } from '../../src/jobs/index.js';
import { assemble, checkSteps } from '../../src/run/assemble.js';
import { memoryLogger, tempDir, write } from '../fixtures/run-helpers.js';

const ENV = { GEOBATCH_EMULATOR_URL: 'http://127.0.0.1:9', GEOBATCH_API_KEY: 'k' };

function configOf(steps: string) {
  const dir = tempDir();
  write(
    join(dir, 'in.csv'),
    'id,street,zip,city,Lat,Lng,to_lon,to_lat\n1,Kaiserstr. 12,76133,Karlsruhe,52.52,13.4,8.68,50.11\n',
  );
  return parseJobFile(
    `input: in.csv\noutput: out.csv\nservice:\n  endpoints: { elevation: http://127.0.0.1:9, addressSearch: http://127.0.0.1:9 }\nsteps:\n${steps}`,
    join(dir, 'job.yaml'),
    ENV,
  );
}

/** The refusal at validate and at a run's start, which must be the same. */
async function refusals(steps: string) {
  const config = configOf(steps);
  const atValidate = await checkSteps(config).then(
    () => undefined,
    (error: unknown) => error,
  );
  const atRun = await assemble(config, { logger: memoryLogger().logger }).then(
    async ({ client }) => {
      await client.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  return { atValidate, atRun };
}

const GEOCODE = (options: string) =>
  `  - job: geocode\n    mapping: { street: street, zip: zip, city: city }\n    options: ${options}\n`;

describe('coordinate formats across steps', () => {
  it('refuses a route reading MERCATOR metres a geocode step wrote as degrees, naming both steps, the column and the formats', async () => {
    const { atValidate, atRun } = await refusals(
      `${GEOCODE('{ coordFormat: MERCATOR }')}  - job: route\n    mapping: { originLon: geo_lon, originLat: geo_lat, destinationLon: to_lon, destinationLat: to_lat }\n`,
    );
    const expected = {
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(
        /job\.yaml: route \(steps\[1\]\) reads the column `geo_lon` \(steps\[1\]\.mapping\.originLon\) as GEODECIMAL_POINT, but geocode \(steps\[0\]\) writes it in MERCATOR$/,
      ),
      context: {
        path: 'steps[1].mapping.originLon',
        field: 'geo_lon',
        expected: 'the column in GEODECIMAL_POINT, as route reads it',
        received: 'MERCATOR',
        hint: 'write it in GEODECIMAL_POINT (steps[0].options.coordFormat: GEODECIMAL_POINT); route reads degrees (GEODECIMAL_POINT) only',
      },
    };
    expect(atValidate).toMatchObject(expected);
    expect(atRun).toMatchObject(expected);
  });

  it('refuses an elevation step reading GEODECIMAL what geocode wrote in degrees, and says both ways out', async () => {
    const { atValidate, atRun } = await refusals(
      `${GEOCODE('{}')}  - job: elevation\n    mapping: { lon: geo_lon, lat: geo_lat }\n    options: { coordFormat: GEODECIMAL }\n`,
    );
    for (const error of [atValidate, atRun]) {
      expect(error).toMatchObject({
        code: 'CONFIG_INVALID',
        context: {
          path: 'steps[1].mapping.lon',
          field: 'geo_lon',
          received: 'GEODECIMAL_POINT',
          hint: 'write it in GEODECIMAL (steps[0].options.coordFormat: GEODECIMAL), or read it as GEODECIMAL_POINT (steps[1].options.coordFormat: GEODECIMAL_POINT)',
        },
      });
    }
  });

  it("refuses a matrix origin whose default columns are an earlier step's in another format", async () => {
    // reverse-geocode with an empty prefix writes `lon`/`lat`; a matrix origin with no mapping reads
    // them (the steps' pair over the input's Lat/Lng), as degrees.
    const { atValidate, atRun } = await refusals(
      '  - job: reverse-geocode\n    mapping: { lon: Lng, lat: Lat }\n    options: { prefix: "", coordFormat: { output: GEODECIMAL } }\n  - job: matrix\n    mapping: { destinationLon: to_lon, destinationLat: to_lat }\n    options: { prefix: mx_ }\n',
    );
    for (const error of [atValidate, atRun]) {
      expect(error).toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(
          'matrix (steps[1]) reads the column `lon` (by default for originLon, as steps[1].mapping.originLon names no column) as GEODECIMAL_POINT, but reverse-geocode (steps[0]) writes it in GEODECIMAL',
        ),
        context: {
          path: 'steps[1].mapping.originLon',
          hint: 'write it in GEODECIMAL_POINT (steps[0].options.coordFormat: { output: GEODECIMAL_POINT }), or read it as GEODECIMAL (steps[1].options.coordFormat: { input: GEODECIMAL })',
        },
      });
    }
  });

  it("refuses a rectangle search over an area export's box written in another format", async () => {
    const { atValidate } = await refusals(
      '  - job: area-export\n    mapping: { osmid: id }\n    options: { coordFormat: SUPERKONFORM }\n  - job: address-search\n    mapping: { west: area_west, south: area_south, east: area_east, north: area_north }\n    options: { branches: "1" }\n',
    );
    expect(atValidate).toMatchObject({
      code: 'CONFIG_INVALID',
      context: { path: 'steps[1].mapping.west', field: 'area_west', received: 'SUPERKONFORM' },
    });
  });

  it('accepts steps that agree, points read from the earlier step geometry, and columns no step writes', async () => {
    const accepted = [
      // The same format on both sides.
      `${GEOCODE('{ coordFormat: MERCATOR }')}  - job: boundaries\n    mapping: { lon: geo_lon, lat: geo_lat }\n    options: { coordFormat: MERCATOR, levels: [4] }\n`,
      // No mapping: the geocoded point travels as the row's geometry, in WGS84 whatever the columns' format.
      `${GEOCODE('{ coordFormat: MERCATOR }')}  - job: elevation\n`,
      // The input's own columns are the input's business (checked row by row).
      `${GEOCODE('{ coordFormat: MERCATOR }')}  - job: isochrone\n    mapping: { lon: Lng, lat: Lat, minutes: { value: 10 } }\n`,
      // A matrix origin whose default columns no step wrote: the input's Lat/Lng.
      `${GEOCODE('{ coordFormat: MERCATOR }')}  - job: matrix\n    mapping: { destinationLon: to_lon, destinationLat: to_lat }\n`,
    ];
    for (const steps of accepted) {
      const { atValidate, atRun } = await refusals(steps);
      expect(atValidate).toBeUndefined();
      expect(atRun).toBeUndefined();
    }
  });

  // Each kind's declaration names columns its job really writes, under its default prefix and another.
  const WRITERS: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['geocode', { zip: 'zip' }, {}],
    ['reverse-geocode', {}, {}],
    ['customer-lookup', { key: 'k' }, {}],
    ['customer-lookup', { key: 'k' }, { fields: ['lat', 'city'] }],
    ['identifier-lookup', { id: 'i' }, {}],
    ['address-search', {}, { branches: '1' }],
    ['autocomplete', { query: 'q' }, {}],
    ['area-export', { osmid: 'o' }, {}],
    ['matrix', {}, { destinations: { path: 'stores.csv' } }],
    ['match', { track: 't' }, {}],
  ];

  it.each(WRITERS)(
    '%s: the coordinate columns it declares are among its columns',
    async (name, mapping, options) => {
      const kind = JOB_KINDS.find((k) => k.name === name);
      for (const prefix of [{}, { prefix: 'p_' }]) {
        const all = { ...options, ...prefix };
        const writes = kind?.coordinates?.(all as never).writes;
        const columns = await jobColumns(name, {
          mapping: resolveMapping(mapping),
          options: all,
          endpoints: {},
        });
        expect(writes?.columns.length, name).toBeGreaterThan(0);
        for (const column of writes?.columns ?? []) expect(columns, `${name} ${column}`).toContain(column);
      }
    },
  );
});
