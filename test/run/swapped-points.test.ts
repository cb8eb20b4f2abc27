/**
 * An input whose longitude and latitude are mapped the wrong way round may fail no row: the
 * service answers a point in the sea (elevation "no data", a search with nothing near). Routing
 * finds no road there and fails the row, with the hint on it. Either way the run tells it
 * once, for the whole input: in the log (early, and with the final figures), the summary, the run
 * report and the closing lines. Right files, and a few swapped rows among right ones, say nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { type RunSummary, runJobFile } from '../../src/index.js';
import { emulatorWorkspace, memoryLogger } from '../fixtures/run-helpers.js';

const ws = emulatorWorkspace('geobatch-swapped-');
const { file } = ws;

async function run(job: string) {
  const { logger, lines } = memoryLogger();
  const summary = await runJobFile(job, { emulator: ws.emulator, logger });
  const warnings = lines()
    .filter((line) => line.level === 40)
    .map((line) => String(line.msg));
  return { summary, warnings };
}

/** Rows swapped, rows read and the example row of each swapped-coordinates warning. */
function figures(summary: RunSummary) {
  return summary.warnings?.map((w) =>
    w.kind === 'coordinates-swapped' ? [w.rows, w.rowsRead, w.exampleRow] : w.kind,
  );
}

/** Berlin, Hamburg, Munich with the values of lat and lon exchanged. */
const SWAPPED = 'id,lat,lon\na,13.41053,52.52437\nb,9.99302,53.55073\nc,11.575,48.137\n';
const ELEVATION_WARNING =
  "longitude and latitude look swapped: 3 of 3 rows read a point that lies outside Europe, the service's area, " +
  'and inside it with longitude and latitude exchanged (row 1: lon 52.52437 read from column "lon", lat 13.41053 from column "lat"); ' +
  'the rows are written as the service answered them; if the columns are the wrong way round, exchange them in the mapping: `mapping: { lon: lat, lat: lon }`; ' +
  'if the points do lie there, outside Europe, leave the mapping: the service has little or no data for them';

describe('an input read with longitude and latitude swapped', () => {
  it('is told in the log, the summary, the run report and the closing lines of an elevation run', async () => {
    file('sw.csv', SWAPPED);
    const job = file(
      'sw.yaml',
      'job: elevation\ninput: sw.csv\noutput: sw.out.csv\nmapping: { lon: lon, lat: lat }\n',
    );
    const { summary, warnings } = await run(job);
    // The rows stay as the service answered them: no row is failed or swapped for it.
    expect(summary.rows).toMatchObject({ read: 3, ok: 3, failed: 0 });
    expect(summary.exitCode).toBe(0);
    expect(warnings).toContain(ELEVATION_WARNING);
    expect(summary.warnings).toEqual([
      { kind: 'coordinates-swapped', message: ELEVATION_WARNING, rows: 3, rowsRead: 3, exampleRow: 1 },
    ]);
    const written = JSON.parse(readFileSync(join(ws.dir, 'sw.out.csv.summary.json'), 'utf8'));
    expect(written.warnings).toEqual(summary.warnings);
    const page = readFileSync(join(ws.dir, 'sw.out.csv.report.html'), 'utf8');
    expect(page).toContain(
      '<li data-kind="coordinates-swapped">warning: longitude and latitude look swapped: 3 of 3 rows read a point that lies outside Europe',
    );
    expect(describeSummary(summary)).toContain(`\n  warning: ${ELEVATION_WARNING}`);
    const output = readFileSync(join(ws.dir, 'sw.out.csv'), 'utf8');
    expect(output.split('\n')[1]).toMatch(/^a,13\.41053,52\.52437,/);
  });

  it('is told for an address search by position, and for rectangles with both corners exchanged', async () => {
    const job = file(
      'sw2.yaml',
      'job: address-search\ninput: sw.csv\noutput: sw2.out.csv\noptions: { branches: "1201", nearest: 1 }\n',
    );
    const { summary } = await run(job);
    expect(summary.rows).toMatchObject({ ok: 3, failed: 0 });
    expect(figures(summary)).toEqual([[3, 3, 1]]);
    file('rect.csv', 'id;w;s;e;n\nr1;52,5;13,3;52,55;13,45\nr2;53,5;9,9;53,6;10\n');
    const rect = file(
      'rect.yaml',
      'job: address-search\ninput: { path: rect.csv, delimiter: ";", decimal: "," }\noutput: rect.out.csv\nmapping: { west: w, south: s, east: e, north: n }\noptions: { branches: "1201" }\n',
    );
    const rectangles = await run(rect);
    expect(rectangles.summary.rows).toMatchObject({ ok: 2, failed: 0 });
    expect(rectangles.summary.warnings?.[0]?.message).toBe(
      "longitude and latitude look swapped: 2 of 2 rows read a point that lies outside Europe, the service's area, " +
        'and inside it with longitude and latitude exchanged (row 1: west 52.5 read from column "w", south 13.3 from column "s"); ' +
        'the rows are written as the service answered them; if the columns are the wrong way round, exchange them in the mapping: `mapping: { west: s, south: w, east: n, north: e }`; ' +
        'if the points do lie there, outside Europe, leave the mapping: the service has little or no data for them',
    );
  });

  it('names both pairs of a route whose origin and destination are swapped, only the swapped one else', async () => {
    file('rt.csv', 'id,flat,flon,tlat,tlon\na,13.41,52.52,9.99,53.55\nb,48.13,11.57,13.41,52.52\n');
    const job = file(
      'rt.yaml',
      'job: route\ninput: rt.csv\noutput: rt.out.csv\nmapping: { originLon: flon, originLat: flat, destinationLon: tlon, destinationLat: tlat }\n',
    );
    const { summary } = await run(job);
    // No road reaches a swapped point: each row fails on its own too, with the hint on it.
    expect(summary.rows).toMatchObject({ ok: 0, failed: 2 });
    expect(figures(summary)).toEqual([[2, 2, 1]]);
    expect(summary.warnings?.[0]?.message).toContain(
      '(row 1: originLon 52.52 read from column "flon", originLat 13.41 from column "flat"); the rows are written as the service answered them; ' +
        'if the columns are the wrong way round, exchange them in the mapping: `mapping: { originLon: flat, originLat: flon, destinationLon: tlat, destinationLat: tlon }`',
    );
    // Row 2's origin is right: its destination alone is named.
    file('rt2.csv', 'id,flat,flon,tlat,tlon\nb,48.13,11.57,13.41,52.52\n');
    const one = file(
      'rt2.yaml',
      'job: route\ninput: rt2.csv\noutput: rt2.out.csv\nmapping: { originLon: flon, originLat: flat, destinationLon: tlon, destinationLat: tlat }\n',
    );
    expect((await run(one)).summary.warnings?.[0]?.message).toContain(
      '`mapping: { destinationLon: tlat, destinationLat: tlon }`',
    );
  });

  it("names a matrix's destinations file when its points are swapped, apart from the origins", async () => {
    // Right origins; destinations with lat and lon exchanged: no road reaches Arabia, so each
    // origin's pairs with them fail, and the file is named once for the whole run.
    file('origins.csv', 'id,lat,lon\nB,52.52437,13.41053\nH,53.55073,9.99302\n');
    // x holds longitudes, y latitudes (the third row the other way); the mapping reads them crossed.
    file('dest-sw.csv', 'store,x,y\ns1,13.41053,52.52437\ns2,11.575,48.137\ns3,53.55073,9.99302\n');
    const job = file(
      'mx.yaml',
      'job: matrix\ninput: origins.csv\noutput: mx.out.csv\noptions:\n  destinations:\n    path: dest-sw.csv\n    mapping: { id: store, lon: y, lat: x }\n',
    );
    const { summary, warnings } = await run(job);
    expect(summary.rows).toMatchObject({ read: 2, ok: 0, failed: 2 });
    const message =
      `options.destinations (${join(ws.dir, 'dest-sw.csv')}): longitude and latitude look swapped: 2 of 3 rows read a point that lies outside Europe, ` +
      "the service's area, and inside it with longitude and latitude exchanged " +
      '(row 1: lon 52.52437 read from column "y", lat 13.41053 from column "x"); the rows are written as the service answered them; ' +
      'if the columns are the wrong way round, exchange them in the mapping: `options.destinations.mapping: { lon: x, lat: y }`; ' +
      'if the points do lie there, outside Europe, leave the mapping: the service has little or no data for them';
    expect(summary.warnings).toEqual([
      {
        kind: 'coordinates-swapped',
        message,
        sideInput: 'options.destinations',
        rows: 2,
        rowsRead: 3,
        exampleRow: 1,
      },
    ]);
    // Told as soon as the file is read, while the run can still be stopped, and with the figures.
    const told = warnings.filter((w) => w.includes('look swapped'));
    expect(told).toHaveLength(2);
    expect(told[0]).toContain('the run goes on (stop it with Ctrl-C to fix the mapping first)');
    expect(told[1]).toBe(message);
    // The origins' own warning is not given: they are right.
    file('dest.csv', 'store,x,y\ns1,13.41053,52.52437\ns2,11.575,48.137\n');
    const right = file(
      'mx2.yaml',
      'job: matrix\ninput: origins.csv\noutput: mx2.out.csv\noptions:\n  destinations:\n    path: dest.csv\n    mapping: { id: store, lon: x, lat: y }\n',
    );
    expect((await run(right)).summary.warnings).toBeUndefined();
  });

  it("tells a GeoJSON's Points written latitude first to fix the file, where mapped columns it lacks were not read", async () => {
    const points = [
      [52.52437, 13.41053],
      [48.13743, 11.57549],
    ];
    file(
      'latfirst.geojson',
      JSON.stringify({
        type: 'FeatureCollection',
        features: points.map((coordinates, n) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates },
          properties: { n },
        })),
      }),
    );
    // As jobs/elevation.yaml maps them: lon and lat columns, which these features do not have.
    const job = file(
      'latfirst.yaml',
      'job: elevation\ninput: latfirst.geojson\noutput: latfirst.out.csv\nmapping: { lon: lon, lat: lat }\n',
    );
    const { summary } = await run(job);
    expect(summary.warnings?.map((w) => w.message)).toEqual([
      "longitude and latitude look swapped: 2 of 2 rows read a point that lies outside Europe, the service's area, " +
        'and inside it with longitude and latitude exchanged (row 1: its Point geometry [52.52437, 13.41053]); ' +
        'the rows are written as the service answered them; GeoJSON writes longitude first (RFC 7946): if the file writes latitude first, exchange the coordinates in it; ' +
        'if the points do lie there, outside Europe, leave the mapping: the service has little or no data for them',
    ]);
  });

  it('is told once in a run of several steps, by the step that read the points from the input', async () => {
    const job = file(
      'steps.yaml',
      'input: sw.csv\noutput: steps.out.csv\nsteps:\n  - job: elevation\n    name: height\n  - job: reverse-geocode\n    name: addr\n',
    );
    const { summary } = await run(job);
    // The second step reads the point the first wrote: the same mistake, not told twice.
    expect(summary.warnings?.map((w) => [w.kind, 'step' in w ? w.step : undefined])).toEqual([
      ['coordinates-swapped', 'height'],
    ]);
    expect(summary.warnings?.[0]?.message).toMatch(
      /^step height: longitude and latitude look swapped: 3 of 3 rows/,
    );
  });

  it('is told in the log while the run goes on, after the first 256 rows, and again at the end', async () => {
    const rows = Array.from(
      { length: 300 },
      (_, i) => `p${i},${(7 + i / 100).toFixed(4)},${(50 + i / 200).toFixed(4)}`,
    );
    file('many.csv', `id,lat,lon\n${rows.join('\n')}\n`);
    const job = file('many.yaml', 'job: elevation\ninput: many.csv\noutput: many.out.csv\n');
    const { warnings } = await run(job);
    const swapped = warnings.filter((w) => w.includes('look swapped'));
    expect(swapped).toHaveLength(2);
    expect(swapped[0]).toContain('look swapped: of the first 256 rows, 256 read a point');
    expect(swapped[0]).toContain('the run goes on (stop it with Ctrl-C to fix the mapping first)');
    expect(swapped[1]).toContain('look swapped: 300 of 300 rows read a point');
  });

  it('says nothing of a right file, of points outside Europe either way, nor of a minority of swapped rows', async () => {
    const right = 'id,lat,lon\na,52.52437,13.41053\nb,53.55073,9.99302\nc,48.137,11.575\n';
    // Around lon 0 / lat 0, and New York, Sydney: outside Europe read either way.
    const elsewhere = 'id,lat,lon\na,0.5,0.2\nb,-0.3,0\nc,40.71,-74.0\nd,-33.87,151.21\n';
    // Two of five rows swapped: those rows' own mistakes, not the file's.
    const minority = `${right}d,9.99302,53.55073\ne,13.41053,52.52437\n`;
    const files: [string, string][] = [
      ['right', right],
      ['elsewhere', elsewhere],
      ['minority', minority],
    ];
    for (const [name, text] of files) {
      file(`${name}.csv`, text);
      const job = file(`${name}.yaml`, `job: elevation\ninput: ${name}.csv\noutput: ${name}.out.csv\n`);
      const { summary, warnings } = await run(job);
      expect(summary.warnings, name).toBeUndefined();
      expect(
        warnings.filter((w) => w.includes('look swapped')),
        name,
      ).toEqual([]);
      expect(readFileSync(join(ws.dir, `${name}.out.csv.report.html`), 'utf8')).not.toContain(
        'class="warnings"',
      );
    }
  });

  it('does not count rows that fail before their point is read', async () => {
    // Two swapped rows, three rows whose point cannot be read: 2 of 2, not 2 of 5.
    file('bad.csv', 'id,lat,lon\na,13.41053,52.52437\nb,x,1\nc,,\nd,95,1\ne,9.99302,53.55073\n');
    const job = file('bad.yaml', 'job: elevation\ninput: bad.csv\noutput: bad.out.csv\n');
    const { summary } = await run(job);
    expect(summary.rows).toMatchObject({ ok: 2, failed: 3 });
    expect(figures(summary)).toEqual([[2, 2, 1]]);
  });
});

describe('a GeoJSON input whose crs member comes after its features', () => {
  const UTM = 'urn:ogc:def:crs:EPSG::25832';
  const features =
    '"features":[{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[500000,5800000]}}]';

  it('says, once the features are read, that the file declares a system geobatch does not read', async () => {
    file(
      'utm.geojson',
      `{"type":"FeatureCollection",${features},"crs":{"type":"name","properties":{"name":"${UTM}"}}}`,
    );
    const job = file('utm.yaml', 'job: elevation\ninput: utm.geojson\noutput: utm.out.csv\n');
    const { summary, warnings } = await run(job);
    expect(summary.rows).toMatchObject({ read: 1, failed: 1, failedByCode: { INPUT_MALFORMED: 1 } });
    const message =
      `The GeoJSON input ${join(ws.dir, 'utm.geojson')} declares its coordinates in ${UTM}: geobatch reads GeoJSON as longitude and latitude in WGS84 (RFC 7946) and converts nothing; ` +
      'its crs member comes after the features, so this was found only once they were read: a row that failed as out of range, or lies in the wrong place, is why; ' +
      'convert the file first, e.g. `ogr2ogr -t_srs EPSG:4326 out.geojson in.geojson`; or, for a CSV input in Gauss-Krueger or Mercator, set `coordFormat`';
    // Logged once, as the run ends, not also as the reader reached it.
    expect(warnings.filter((warning) => warning === message)).toHaveLength(1);
    expect(summary.warnings).toEqual([{ kind: 'input-crs', message, crs: UTM }]);
    expect(readFileSync(join(ws.dir, 'utm.out.csv.report.html'), 'utf8')).toContain(
      `<li data-kind="input-crs">warning: The GeoJSON input`,
    );
    expect(describeSummary(summary)).toContain(`\n  warning: The GeoJSON input`);
  });

  it('says nothing of a crs after the features that is longitude and latitude (CRS84, EPSG:4326)', async () => {
    const wgs = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}],"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:OGC:1.3:CRS84"}}}`;
    file('wgs.geojson', wgs);
    const job = file('wgs.yaml', 'job: elevation\ninput: wgs.geojson\noutput: wgs.out.csv\n');
    const { summary, warnings } = await run(job);
    expect(summary.rows).toMatchObject({ ok: 1, failed: 0 });
    expect(summary.warnings).toBeUndefined();
    expect(warnings.filter((w) => w.includes('declares'))).toEqual([]);
  });
});
