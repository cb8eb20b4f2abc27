import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { openReader } from '../../src/input/open.js';
import type { RowIssue } from '../../src/types.js';
import { retainedHeap } from '../fixtures/gc.js';
import { collect, fieldsOf, hugeRecord, readChunks, readText, shape, tempFile } from './_read.js';

const point = (a: number) =>
  JSON.stringify({ type: 'Feature', properties: { a }, geometry: { type: 'Point', coordinates: [8.4, 49] } });

describe('GeoJSON reader', () => {
  it('streams features with their properties, geometry and line', async () => {
    const text = `{"type":"FeatureCollection","features":[\n${point(1)},\n${point(2)}\n]}\n`;
    const { reader, items } = await readText(text, 'geojson');
    expect(fieldsOf(items)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(shape(items)).toEqual(['0@2:row', '1@3:row']);
    expect(items[0]?.kind === 'row' && items[0].geometry).toEqual({ type: 'Point', coordinates: [8.4, 49] });
    expect(reader.columns()).toEqual(['a']);
  });

  it('knows its columns when the first record leaves, however many unreadable ones come before', async () => {
    const fature = JSON.stringify({ type: 'Fature', properties: { b: 2 }, geometry: null });
    const cases = [
      [`{"type":"FeatureCollection","features":[1,\n"x",\n${point(1)}]}`, ['a']],
      // A record that is no Feature but has properties keeps them, and names the columns.
      [`{"type":"FeatureCollection","features":[${fature},\n${point(1)}]}`, ['b']],
    ] as const;
    for (const [text, columns] of cases) {
      const chunks = text
        .split('\n')
        .map((line, i, all) => Buffer.from(i < all.length - 1 ? `${line}\n` : line));
      const reader = await openReader({ path: '-', format: 'geojson', stdin: Readable.from(chunks) });
      const seen: (readonly string[])[] = [];
      const items = [];
      for await (const item of reader) {
        seen.push([...reader.columns()]);
        items.push(item);
      }
      expect(seen[0]).toEqual(columns);
      expect(items.map((item) => item.kind)).toEqual(
        items.length === 3 ? ['issue', 'issue', 'row'] : ['issue', 'row'],
      );
    }
    const { items } = await readText(`{"type":"FeatureCollection","features":[${fature}]}`, 'geojson');
    expect(items[0]).toMatchObject({ kind: 'issue', code: 'INPUT_MALFORMED', fields: { b: 2 } });
  });

  it('gives a pretty-printed feature the line of its opening brace', async () => {
    const text = JSON.stringify(
      { type: 'FeatureCollection', features: [JSON.parse(point(1)), JSON.parse(point(2))] },
      null,
      2,
    );
    const { items } = await readText(text, 'geojson');
    const lines = text.split('\n');
    const expected = items.map((item) => lines[item.ref.line - 1]?.trim());
    expect(expected).toEqual(['{', '{']);
    expect(shape(items)).toEqual(['0@4:row', '1@17:row']);
  });

  it('reads members in any order and features on one line', async () => {
    const text = `{"features":[${point(1)},${point(2)}],"type":"FeatureCollection"}`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@1:row', '1@1:row']);
  });

  it('reports invalid features and keeps reading', async () => {
    const bad = [
      '{"type":"Nope","geometry":null}',
      '{"type":"Feature","properties":{"a":3}}',
      '{"type":"Feature","geometry":{"type":"Point","coordinates":["x",1]}}',
      '{"type":"Feature","geometry":null,"properties":[1]}',
      '42',
    ];
    const text = `{"type":"FeatureCollection","features":[\n${[point(1), ...bad, point(2)].join(',\n')}\n]}`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual([
      '0@2:row',
      '1@3:issue',
      '2@4:issue',
      '3@5:issue',
      '4@6:issue',
      '5@7:issue',
      '6@8:row',
    ]);
    expect(items[3]?.kind === 'issue' && items[3].message).toBe(
      'Invalid GeoJSON feature: expected the coordinates of the Point to be a position of two or three numbers, got ["x",1]',
    );
  });

  it('names where coordinates that are no positions go wrong, and what they hold', async () => {
    const feature = (id: string, geometry: unknown) =>
      JSON.stringify({ type: 'Feature', properties: { id }, geometry });
    const bad = [
      feature('strings', { type: 'Point', coordinates: ['13.4', '52.5'] }),
      feature('missing', { type: 'Point' }),
      feature('short', { type: 'LineString', coordinates: [[13.4, 52.5], [13.5]] }),
      feature('flat', { type: 'Polygon', coordinates: [13.4, 52.5] }),
      feature('deep', {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [8, 49],
              [9, 49],
              [9, 50],
              [8, 49],
            ],
          ],
          [['x'.repeat(200)]],
        ],
      }),
    ];
    const text = `{"type":"FeatureCollection","features":[\n${bad.join(',\n')}\n]}`;
    const { items } = await readText(text, 'geojson');
    const problems = items.filter((item): item is RowIssue => item.kind === 'issue');
    expect(problems).toHaveLength(bad.length);
    for (const problem of problems)
      expect(problem).toMatchObject({ code: 'INPUT_MALFORMED', stage: 'input', field: 'geometry' });
    expect(problems.map((problem) => problem.message)).toEqual([
      'Invalid GeoJSON feature: expected the coordinates of the Point to be a position of two or three numbers, got ["13.4","52.5"]',
      'Invalid GeoJSON feature: expected the coordinates of the Point to be a position of two or three numbers, got nothing',
      'Invalid GeoJSON feature: expected coordinates[1] of the LineString to be a position of two or three numbers, got [13.5]',
      'Invalid GeoJSON feature: expected coordinates[0] of the Polygon to be an array, got 13.4',
      `Invalid GeoJSON feature: expected coordinates[1][0][0] of the MultiPolygon to be a position of two or three numbers, got "${'x'.repeat(78)}…`,
    ]);
  });

  it('refuses a geometry RFC 7946 forbids as a row problem naming it, keeping the properties', async () => {
    const feature = (id: string, geometry: unknown) =>
      JSON.stringify({ type: 'Feature', properties: { id }, geometry });
    const square = [
      [8, 49],
      [9, 49],
      [9, 50],
      [8, 50],
    ];
    const bad = [
      feature('range', { type: 'Point', coordinates: [49.7, 108.6] }),
      feature('open', { type: 'Polygon', coordinates: [square] }),
      feature('short', { type: 'Polygon', coordinates: [[...square.slice(0, 2), square[0]]] }),
      feature('one', { type: 'LineString', coordinates: [[8, 49]] }),
      feature('part', { type: 'MultiPolygon', coordinates: [[[...square, square[0]]], [square]] }),
      feature('corner', {
        type: 'MultiPoint',
        coordinates: [
          [8, 49],
          [181, 49],
        ],
      }),
    ];
    const good = [
      feature('closed', { type: 'Polygon', coordinates: [[...square, square[0]]] }),
      feature('empty', { type: 'LineString', coordinates: [] }),
      feature('no point', { type: 'Point', coordinates: [] }),
    ];
    const text = `{"type":"FeatureCollection","features":[\n${[...bad, ...good].join(',\n')}\n]}`;
    const { items } = await readText(text, 'geojson');
    expect(items.map((item) => item.kind)).toEqual([...bad.map(() => 'issue'), 'row', 'row', 'row']);
    // Empty coordinates stand for no geometry (RFC 7946 3.1), a Point's as any other's.
    expect(items.slice(-2).map((item) => item.kind === 'row' && item.geometry)).toEqual([null, null]);
    const problems = items.filter((item): item is RowIssue => item.kind === 'issue');
    for (const [i, problem] of problems.entries()) {
      expect(problem).toMatchObject({ code: 'INPUT_MALFORMED', stage: 'input', field: 'geometry' });
      expect(problem.fields).toEqual({ id: JSON.parse(bad[i] as string).properties.id });
    }
    expect(problems.map((problem) => problem.message)).toEqual([
      'Invalid GeoJSON feature: expected positions of a longitude from -180 to 180 and a latitude from -90 to 90, got [49.7,108.6] (longitude and latitude swapped?)',
      'Invalid GeoJSON feature: expected ring 1 of the Polygon to be closed, ending at its first position [8,49], got [8,50]',
      'Invalid GeoJSON feature: expected ring 1 of the Polygon to have four positions or more, got 3',
      'Invalid GeoJSON feature: expected the LineString to have two positions or more, got one',
      'Invalid GeoJSON feature: expected ring 1 of part 2 of the MultiPolygon to be closed, ending at its first position [8,49], got [8,50]',
      'Invalid GeoJSON feature: expected positions of a longitude from -180 to 180 and a latitude from -90 to 90, got [181,49]',
    ]);
  });

  it('accepts a null geometry and null properties', async () => {
    const { items } = await readText(
      '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":null}]}',
      'geojson',
    );
    expect(items[0]).toMatchObject({ kind: 'row', fields: {}, geometry: null });
  });

  it('ends with one issue, marked truncated, at a syntax error', async () => {
    const text = `{"type":"FeatureCollection","features":[\n${point(1)},\n{"type":"Feature","prop`;
    const { reader, items, warnings } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue']);
    expect(reader.truncated()).toBe(true);
    expect(warnings[0]).toMatch(/syntax error at line 3/);
  });

  it('puts a syntax error on the line of the feature it cut off, and says where it is', async () => {
    // Feature 2 lacks its closing brace: the parser stumbles on line 4, inside feature 2 of line 3.
    const two = point(2).slice(0, -1);
    const text = `{"type":"FeatureCollection","features":[\n${point(1)},\n${two},\n${point(3)}\n]}`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue']);
    const issue = items[1];
    expect(issue?.kind === 'issue' && issue.message).toMatch(
      /^GeoJSON syntax error at line 4 \(.+\); the feature that begins on line 3 is cut off there; the rest of the input cannot be read$/,
    );
    expect(issue?.kind === 'issue' && issue.raw).toBe(point(3));
  });

  it('says a file that ends inside its FeatureCollection was cut short, without a feature to blame', async () => {
    const text = `{"type":"FeatureCollection","features":[\n${point(1)},\n${point(2)}\n`;
    const { reader, items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@2:row', '1@3:row', '2@3:issue']);
    const issue = items[2];
    expect(issue?.kind === 'issue' && issue.message).toMatch(
      /^GeoJSON input ends before its FeatureCollection closes \(.+\): was the file cut short\?$/,
    );
    expect(issue?.kind === 'issue' && issue.raw).toBeUndefined();
    expect(reader.truncated()).toBe(true);
  });

  it('reads a 0-byte or blank file as an empty input, not as a broken one', async () => {
    for (const text of ['', ' \n\t\n']) {
      const { reader, items } = await readText(text, 'geojson');
      expect(items).toEqual([]);
      expect(reader.truncated()).toBe(false);
    }
  });

  it('keeps the features completed before a syntax error on the same line', async () => {
    const text = `{"type":"FeatureCollection","features":[${point(1)},${point(2)},{"type":"Feature","geometry":nul`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@1:row', '1@1:row', '2@1:issue']);
  });

  // A file on one line, as many tools write it, is read in slices of up to 16,384 characters; the
  // parser hands on nothing of a text it fails in, so the features completed before the error in
  // its slice were lost, the run reporting them as never there.
  const collection = (inside: string) => `{"type":"FeatureCollection","features":[${inside}]}`;
  it('keeps every feature completed before a syntax error on a long line', async () => {
    const features = Array.from({ length: 400 }, (_, i) => point(i + 1));
    const text = collection(`${features.slice(0, 249).join(',')},#${features.slice(249).join(',')}`);
    expect(text.length).toBeGreaterThan(2 * 16_384);
    const { items } = await readText(text, 'geojson');
    expect(items).toHaveLength(250);
    expect(items.slice(0, 249).every((item) => item.kind === 'row')).toBe(true);
    expect(items[249]).toMatchObject({ kind: 'issue', code: 'INPUT_MALFORMED', ref: { index: 249 } });
    // Its raw text begins where the broken feature does, not a slice's 16,384 characters before.
    expect((items[249] as { raw?: string }).raw).toBe(`,#${point(250)}`);
  });

  it.each([
    ['a comma missing between two features', (a: string, b: string) => `${a}${b}`],
    ['a space before the comma', (a: string, b: string) => `${a} ,#${b}`],
    ['a tab before the comma', (a: string, b: string) => `${a}\t,#${b}`],
  ])('keeps the feature before %s on a long line', async (_name, join) => {
    const features = Array.from({ length: 400 }, (_, i) => point(i + 1));
    const text = collection(
      `${features.slice(0, 248).join(',')},${join(features[248] as string, features[249] as string)}`,
    );
    const { items } = await readText(text, 'geojson');
    expect(items.slice(0, 249).every((item) => item.kind === 'row')).toBe(true);
    expect(items[249]).toMatchObject({ kind: 'issue', code: 'INPUT_MALFORMED', ref: { index: 249 } });
  });

  // Every feature read, nothing was cut short: a row for the error would be one the file never
  // had, and the run would end as an input cut short (exit 4).
  it.each([
    ['a comma after the last feature', collection(`${point(1)},${point(2)},`), 1],
    ['text after the collection', `${collection(`${point(1)},${point(2)}`)} trailing`, 1],
    ['text after it on a line of its own', `${collection(`\n${point(1)},\n${point(2)}\n`)}\n#\n`, 5],
    [
      'a broken member after the features',
      `{"type":"FeatureCollection","features":[${point(1)},${point(2)}],"name":}`,
      1,
    ],
    [
      'the collection never closed after the features',
      `{"type":"FeatureCollection","features":[${point(1)},${point(2)}]`,
      1,
    ],
  ])('reads every feature and warns, not cut short, at %s', async (_name, text, line) => {
    const { reader, items, warnings } = await readText(text, 'geojson');
    expect(items.map((item) => item.kind)).toEqual(['row', 'row']);
    expect(reader.truncated()).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^GeoJSON syntax error at line ${line}, after the features array \\(.+\\): every feature was read; what follows them is ignored$`,
      ),
    );
  });

  // Another object after the array may hold features, which would be lost without a word.
  it.each([
    ['a second collection on the same line', `${collection(point(1))}${collection(point(2))}`],
    [
      'a second collection, pretty-printed',
      `${collection(`\n${point(1)}\n`)}\n{\n"type": "FeatureCollection",\n"features": [\n${point(2)}\n]}\n`,
    ],
    [
      'features after a stray ]',
      `{"type":"FeatureCollection","features":[\n${point(1)}\n]\n,${point(2)}\n]}`,
    ],
  ])('reads it as cut short at %s', async (_name, text) => {
    const { reader, items } = await readText(text, 'geojson');
    expect(items[0]?.kind).toBe('row');
    expect(items.at(-1)).toMatchObject({ kind: 'issue', code: 'INPUT_MALFORMED' });
    expect(reader.truncated()).toBe(true);
  });

  it('still finds a projected crs written after the features when text follows it', async () => {
    const crs = '"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::25832"}}';
    const { reader } = await readText(
      `{"type":"FeatureCollection","features":[${point(1)}],${crs}} x`,
      'geojson',
    );
    expect(reader.truncated()).toBe(false);
    expect(reader.declaredCrs?.()?.crs).toBe('urn:ogc:def:crs:EPSG::25832');
  });

  it.each([
    ['a doubled comma before the features', `{"type":"FeatureCollection",,"features":[${point(1)}]}`, ',,'],
    [
      'a doubled comma on the line before the features',
      `{"type":"FeatureCollection","name":"x",,\n"features":[${point(1)}]}`,
      ',,',
    ],
    [
      'a missing comma in the first feature',
      collection(point(1).replace(',"properties"', ' "properties"')),
      ' "',
    ],
    ['a stray character in the first feature', collection(point(1).replace('{"type"', '{#"type"')), '{#'],
  ])(
    'names the line and column of a syntax error met before any feature is read: %s',
    async (_name, text, mark) => {
      const column = text.indexOf(mark) + 2;
      const error = await readText(text, 'geojson').catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.code).toBe('USAGE');
      expect(isGeobatchError(error) && error.message).toMatch(
        new RegExp(
          `^The GeoJSON input .* has a syntax error at line 1, column ${column} \\(Parser cannot parse input: .*\\): no feature could be read$`,
        ),
      );
      expect(isGeobatchError(error) && error.context).toMatchObject({
        detail: { line: 1, column },
        hint: expect.stringMatching(/^Fix the JSON there: a comma after the last feature/),
      });
    },
  );

  it('refuses input that is not a FeatureCollection', async () => {
    const error = await readText('{"type":"Feature","geometry":null}', 'geojson').catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toMatch(/Expected a GeoJSON FeatureCollection/);
  });

  // NDJSON saved as .json, or one Feature alone: the message says what the file is and what to do.
  const line = (i: number) => `{"id":"${i}","lat":49.0,"lon":8.4}`;
  const lines = (n: number) => `${Array.from({ length: n }, (_, i) => line(i)).join('\n')}\n`;
  it.each([
    // 3 lines are read whole before the run starts; 40,000 (1.4 MB, past the look-ahead) while streaming.
    [
      'NDJSON of 3 lines',
      lines(3),
      'it holds one JSON object a line (NDJSON)',
      /--input-format ndjson.*\.ndjson\.$/,
    ],
    ['NDJSON of 40,000 lines', lines(40_000), 'it holds one JSON object a line (NDJSON)', /\.ndjson\.$/],
    [
      'Features a line',
      `${point(1)}\n${point(2)}\n`,
      'it holds one JSON object a line (NDJSON)',
      /\.geojsonl\.$/,
    ],
    [
      'a single Feature',
      `${point(1)}\n`,
      'it is a single Feature',
      /^Wrap it as \{"type":"FeatureCollection"/,
    ],
    [
      'a bare geometry',
      '{"type":"Point","coordinates":[8,49]}',
      'it is a bare Point geometry',
      /in a Feature\.$/,
    ],
    ['an array of features', `[${point(1)}]`, 'it is a JSON array of features, not an object', /^Wrap it as/],
    [
      'an array of records',
      '[{"id":"1","lat":49,"lon":8.4}]',
      'it is a JSON array, not an object',
      /read as NDJSON/,
    ],
    [
      'one record',
      '{"id":"1","lat":49,"lon":8.4}\n',
      'it is a single JSON object of plain fields',
      /\.ndjson\.$/,
    ],
    [
      'NDJSON whose first line is 70 KB',
      `{"id":"0","note":"${'x'.repeat(70_000)}"}\n${line(1)}\n`,
      'it holds one JSON object a line (NDJSON)',
      /\.ndjson\.$/,
    ],
  ])('says what the input is instead: %s', async (_name, text, what, hint) => {
    const error = await readText(text, 'geojson').catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toMatch(
      new RegExp(`^Expected a GeoJSON FeatureCollection in .*: ${what.replace(/[()]/g, '\\$&')}$`),
    );
    expect(isGeobatchError(error) && error.context.hint).toMatch(hint);
  });

  it('reads standard input in small chunks', async () => {
    const bytes = Buffer.from(`{"type":"FeatureCollection","features":[${point(1)},${point(2)}]}`);
    const chunks = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
    const { items } = await readChunks(chunks, 'geojson');
    expect(fieldsOf(items)).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('streams a large file feature by feature without holding it in memory', async () => {
    const path = tempFile('');
    const out = createWriteStream(path);
    const count = 60_000;
    const pad = 'x'.repeat(200);
    out.write('{"type":"FeatureCollection","features":[\n');
    for (let i = 0; i < count; i++) {
      const feature = {
        type: 'Feature',
        properties: { i, pad },
        geometry: { type: 'Point', coordinates: [8, 49] },
      };
      if (!out.write(`${i ? ',\n' : ''}${JSON.stringify(feature)}`)) await once(out, 'drain');
    }
    out.end('\n]}\n');
    await once(out, 'finish');
    const reader = await openReader({ path, format: 'geojson' });
    const before = retainedHeap();
    let seen = 0;
    let maxHeapGrowth = 0;
    for await (const item of reader) {
      if (item.kind === 'row' && item.ref.index === seen) seen++;
      if (seen % 20_000 === 0) maxHeapGrowth = Math.max(maxHeapGrowth, retainedHeap() - before);
    }
    expect(seen).toBe(count);
    // The file is ~17 MB; holding its features would retain far more than this.
    expect(reader.sizeBytes).toBeGreaterThan(15_000_000);
    expect(maxHeapGrowth).toBeLessThan(3_000_000);
  });
});

describe('GeoJSON reader: lone UTF-16 surrogates', () => {
  it('fails a feature whose property holds one, naming it, and reads on', async () => {
    const bad = String.raw`{"type":"Feature","properties":{"id":1,"name":"a\ud800"},"geometry":null}`;
    const text = `{"type":"FeatureCollection","features":[\n${point(1)},\n${bad},\n${point(2)}\n]}`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:row']);
    expect(items[1]).toEqual({
      kind: 'issue',
      ref: { index: 1, line: 3 },
      stage: 'input',
      code: 'INPUT_MALFORMED',
      field: 'name',
      message:
        'Invalid GeoJSON feature: property "name" holds \\ud800, half of a UTF-16 surrogate pair without its other half: it is no character, and cannot be written as UTF-8',
      raw: String.raw`{"type":"Feature","properties":{"id":1,"name":"a\ud800"},"geometry":null}`,
      fields: { id: 1, name: null },
      geometry: null,
    });
  });

  it('fails a feature whose property holds a NUL, keeping its other properties and its geometry', async () => {
    const bad = String.raw`{"type":"Feature","properties":{"id":1,"name":"a\u0000b"},"geometry":{"type":"Point","coordinates":[8.4,49]}}`;
    const text = `{"type":"FeatureCollection","features":[\n${bad},\n${point(2)}\n]}`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@2:issue', '1@3:row']);
    expect(items[0]).toMatchObject({
      code: 'INPUT_MALFORMED',
      field: 'name',
      message: expect.stringMatching(
        /^Invalid GeoJSON feature: property "name" holds a NUL character \(\\u0000\) at character 2/,
      ),
      fields: { id: 1, name: null },
      // The report fed back has the row whole: without its Point, every row failed FIELD_MISSING.
      geometry: { type: 'Point', coordinates: [8.4, 49] },
    });
  });
});

describe('GeoJSON reader: features nested too deep', () => {
  it('fails a feature nested deeper than 100 levels alone, and reads the ones after it', async () => {
    const deep = `{"type":"Feature","geometry":null,"properties":{"d":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const text = `{"type":"FeatureCollection","features":[\n${point(1)},\n${deep},\n${point(2)}\n]}\n`;
    const { items } = await readText(text, 'geojson');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:row']);
    expect(items[1]).toMatchObject({
      code: 'INPUT_MALFORMED',
      message:
        'GeoJSON feature nested more than 100 levels deep (arrays and objects within each other); it was skipped',
    });
    expect(fieldsOf(items)[2]).toEqual({ a: 2 });
  });
});

describe('GeoJSON reader: features over maxRecordBytes', () => {
  const start = '{"type":"FeatureCollection","features":[\n';

  it('reports a feature larger than maxRecordBytes and reads the ones after it', async () => {
    const big = JSON.stringify({ type: 'Feature', geometry: null, properties: { note: 'x'.repeat(5000) } });
    const text = `${start}${point(1)},\n${big},\n${point(2)}\n]}\n`;
    const { items } = await readText(text, 'geojson', { maxRecordBytes: 1000 });
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:row']);
    expect(items[1]).toMatchObject({
      code: 'INPUT_MALFORMED',
      message: expect.stringMatching(
        /^GeoJSON feature of about \d+ characters is longer than maxRecordBytes \(1000\); it was skipped$/,
      ),
    });
    expect(fieldsOf(items)[2]).toEqual({ a: 2 });
    const raw = items[1]?.kind === 'issue' ? (items[1].raw ?? '') : '';
    expect(raw.slice(0, 4097)).toBe(`${big.slice(0, 4096)}…`);
    expect(raw.slice(4096)).toMatch(
      /^… \[cut: the record is about \d+ characters; only its first 4096 characters are kept\]$/,
    );
  });

  it('keeps the start of an oversized feature from where it begins, on one line or pretty-printed', async () => {
    const big = JSON.stringify({
      type: 'Feature',
      geometry: null,
      properties: { note: 'x"\\y'.repeat(2000) },
    });
    const small = Array.from({ length: 20 }, (_, i) => point(i));
    const oneLine = `{"type":"FeatureCollection","features":[${[...small, big, ...small].join(',')}]}`;
    const first = `{"type":"FeatureCollection","features":[${[big, ...small].join(',')}]}`;
    const pretty = JSON.stringify(
      { type: 'FeatureCollection', features: [JSON.parse(point(1)), JSON.parse(big), JSON.parse(point(2))] },
      null,
      2,
    );
    const prettyBig = JSON.stringify(JSON.parse(big), null, 2).replaceAll('\n', '\n    ');
    for (const [text, expected] of [
      [oneLine, big],
      [first, big],
      [pretty, prettyBig],
    ] as const) {
      const { items } = await readText(text, 'geojson', { maxRecordBytes: 1000 });
      const issue = items.find((item) => item.kind === 'issue');
      expect(issue?.raw?.slice(0, 4097)).toBe(`${expected.slice(0, 4096)}…`);
      expect(issue?.raw).toMatch(
        /… \[cut: the record is about \d+ characters; only its first 4096 characters are kept\]$/,
      );
    }
  });

  it('keeps an oversized feature within 4096 characters whole in raw, without a cut marker', async () => {
    const big = JSON.stringify({ type: 'Feature', geometry: null, properties: { note: 'x'.repeat(2500) } });
    for (const [text, count] of [
      [`${start}${point(1)},\n${big},\n${point(2)}\n]}\n`, 3],
      [`{"type":"FeatureCollection","features":[${point(1)},${big}  ,${point(2)}]}`, 3],
      [`{"type":"FeatureCollection","features":[${point(1)},${big}]}`, 2],
    ] as const) {
      const { items } = await readText(text, 'geojson', { maxRecordBytes: 1000 });
      expect(items).toHaveLength(count);
      expect(items[1]).toMatchObject({ code: 'INPUT_MALFORMED', raw: big });
    }
  });

  it('measures features on one long line one by one: only the large one is skipped', async () => {
    const small = Array.from({ length: 300 }, (_, i) => point(i));
    const big = JSON.stringify({ type: 'Feature', geometry: null, properties: { note: 'x'.repeat(3000) } });
    const text = `{"type":"FeatureCollection","features":[${[...small.slice(0, 150), big, ...small.slice(150)].join(',')}]}`;
    const { items } = await readText(text, 'geojson', { maxRecordBytes: 1000 });
    expect(items).toHaveLength(301);
    expect(items.filter((item) => item.kind === 'issue').map((item) => item.ref.index)).toEqual([150]);
  });

  it('drops a feature with an 8 MiB string as it streams, without holding it', async () => {
    let maxGrowth = 0;
    let before = 0;
    const stdin = hugeRecord(
      `${start}${point(1)},\n{"type":"Feature","geometry":null,"properties":{"big":"`,
      Buffer.alloc(65536, 0x78),
      128,
      `"}},\n${point(2)}\n]}\n`,
      () => {
        maxGrowth = Math.max(maxGrowth, retainedHeap() - before);
      },
    );
    before = retainedHeap();
    const reader = await openReader({ path: '-', format: 'geojson', stdin, maxRecordBytes: 1024 * 1024 });
    const items = await collect(reader);
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:row']);
    expect(reader.truncated()).toBe(false);
    expect(maxGrowth).toBeLessThan(4_000_000);
  });

  it('stops, marked truncated, at a single number too long to skip', async () => {
    const stdin = hugeRecord(
      `${start}${point(1)},\n{"type":"Feature","geometry":null,"properties":{"n":`,
      Buffer.alloc(65536, 0x31),
      64,
      `}},\n${point(2)}\n]}\n`,
      () => {},
    );
    const { reader, items } = await readChunks([], 'geojson', { stdin, maxRecordBytes: 256 * 1024 });
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue']);
    expect(reader.truncated()).toBe(true);
    expect(items[1]?.kind === 'issue' && items[1].message).toMatch(/one number or key is too long/);
  });
});

describe('a GeoJSON crs member', () => {
  const collection = (crs: string) =>
    `{"type":"FeatureCollection","name":"x",\n"crs": { "type": "name", "properties": { "name": "${crs}" } },\n"features":[\n${point(1)}\n]}\n`;

  it('refuses a projected system before any row, naming it, where it would fail every row as out of range', async () => {
    const path = tempFile(collection('urn:ogc:def:crs:EPSG::25832'));
    const error = await openReader({ path, format: 'geojson' }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: path,
      field: 'crs',
      received: 'urn:ogc:def:crs:EPSG::25832',
    });
    expect(isGeobatchError(error) && error.message).toBe(
      `The GeoJSON input ${path} declares its coordinates in urn:ogc:def:crs:EPSG::25832: geobatch reads GeoJSON as longitude and latitude in WGS84 (RFC 7946) and converts nothing`,
    );
  });

  it('reads a file that declares WGS84 longitude and latitude in any of its usual names', async () => {
    for (const crs of [
      'urn:ogc:def:crs:OGC:1.3:CRS84',
      'EPSG:4326',
      'urn:ogc:def:crs:EPSG::4326',
      'EPSG:4258',
    ]) {
      const { items } = await readText(collection(crs), 'geojson');
      expect(items.map((item) => item.kind)).toEqual(['row']);
    }
  });

  it('reads a file that declares WGS84 degrees by an OGC URI, an authority:code or a 3D geographic code', async () => {
    for (const crs of [
      'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
      'https://www.opengis.net/def/crs/EPSG/0/4326',
      'OGC:CRS84',
      'urn:ogc:def:crs:EPSG::4979',
      'EPSG:4937',
    ]) {
      const { items } = await readText(collection(crs), 'geojson');
      expect(items.map((item) => item.kind)).toEqual(['row']);
    }
  });

  it('still refuses a projected system named by an OGC URI', async () => {
    const path = tempFile(collection('http://www.opengis.net/def/crs/EPSG/0/25832'));
    const error = await openReader({ path, format: 'geojson' }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      field: 'crs',
      received: 'http://www.opengis.net/def/crs/EPSG/0/25832',
    });
  });

  it('reads the linked and EPSG-typed forms too: refused when projected, read when in degrees', async () => {
    const withCrs = (crs: string) => `{"type":"FeatureCollection","crs":${crs},"features":[${point(1)}]}`;
    const refused = [
      [
        '{"type":"link","properties":{"href":"http://spatialreference.org/ref/epsg/25832/ogcwkt/","type":"ogcwkt"}}',
        'EPSG:25832',
      ],
      ['{"type":"EPSG","properties":{"code":25832}}', 'EPSG:25832'],
      ['{"type":"link","properties":{"href":"file:///tmp/utm.prj","type":"esriwkt"}}', 'file:///tmp/utm.prj'],
    ];
    for (const [crs, received] of refused) {
      const path = tempFile(withCrs(crs as string));
      const error = await openReader({ path, format: 'geojson' }).catch((e: unknown) => e);
      expect(isGeobatchError(error) && error.context, crs).toMatchObject({ field: 'crs', received });
    }
    for (const crs of [
      '{"type":"link","properties":{"href":"http://spatialreference.org/ref/epsg/4326/proj4/","type":"proj4"}}',
      '{"type":"EPSG","properties":{"code":4326}}',
    ]) {
      const { items } = await readText(withCrs(crs), 'geojson');
      expect(items.map((item) => item.kind)).toEqual(['row']);
    }
  });

  it('does not take a property named crs inside a feature for the member', async () => {
    const text = `{"type":"FeatureCollection","features":[\n{"type":"Feature","properties":{"crs":{"type":"name","properties":{"name":"EPSG:25832"}}},"geometry":{"type":"Point","coordinates":[8,49]}}\n]}\n`;
    const { items } = await readText(text, 'geojson');
    expect(items.map((item) => item.kind)).toEqual(['row']);
  });
});
