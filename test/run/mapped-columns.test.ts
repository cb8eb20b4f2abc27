/**
 * A mapping that names a column the CSV header does not have stops the run before anything is
 * sent or written: otherwise every row would fail, or, for an optional field, go out without it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeobatchError, runJobFile } from '../../src/index.js';
import { emulatorWorkspace } from '../fixtures/run-helpers.js';

const ws = emulatorWorkspace('geobatch-mapped-');
const { file } = ws;

async function refusal(job: string, dryRun = false): Promise<GeobatchError> {
  const before = ws.emulator.stats().total;
  const error = await runJobFile(job, { emulator: ws.emulator, dryRun }).catch((e: unknown) => e);
  expect(ws.emulator.stats().total).toBe(before);
  expect(error).toBeInstanceOf(GeobatchError);
  return error as GeobatchError;
}

const ADDRESSES = 'id,street,housenumber,plz,city\n1,Kirchstraße,1,54441,Kanzem\n';

describe('mapped columns', () => {
  it('refuses a column the header lacks, naming the mapping and the column the header has instead', async () => {
    file('spaced.csv', 'id, lon, lat\n1, 8.4044, 49.0094\n');
    const job = file(
      'spaced.yaml',
      'job: elevation\ninput: spaced.csv\noutput: spaced.out.csv\nmapping: { lon: lon, lat: lat }\n',
    );
    const error = await refusal(job);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      `${job}: mapping.lon reads the column "lon", which the input's header does not have\n` +
        '  mapping.lat reads the column "lat", which it does not have either: the header has " lat": map to it as written, or fix the header',
    );
    expect(error.context).toMatchObject({
      file: job,
      path: 'mapping.lon',
      field: 'lon',
      expected: 'a column of the header: "id", " lon", " lat"',
      hint: 'the header has " lon": map to it as written, or fix the header',
    });
    expect(existsSync(join(ws.dir, 'spaced.out.csv'))).toBe(false);
    expect(existsSync(join(ws.dir, 'spaced.out.csv.partial'))).toBe(false);
  });

  it('leaves no directory behind that it made for the outputs of a refused run', async () => {
    file('fresh.csv', 'id,x,y\n1,8.4,49\n');
    const job = file(
      'fresh.yaml',
      'job: elevation\ninput: fresh.csv\noutput: made/for/it/out.csv\nmapping: { lon: lon, lat: lat }\n',
    );
    expect((await refusal(job)).code).toBe('CONFIG_INVALID');
    expect(existsSync(join(ws.dir, 'made'))).toBe(false);
  });

  it('says the delimiter is wrong when the header reads as one column holding another one', async () => {
    file('commas.csv', 'id,street,housenumber,plz,city\n1,Kirchstraße,1,54441,Kanzem\n');
    const job = file(
      'commas.yaml',
      'job: geocode\ninput: { path: commas.csv, delimiter: ";" }\noutput: commas.out.csv\nmapping: { zip: plz }\n',
    );
    const error = await refusal(job);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({
      path: 'mapping.zip',
      hint: 'the header reads as one column, "id,street,housenumber,plz,city", which holds ",": set input.delimiter to it (or to auto)',
    });
  });

  it('refuses default point columns under a header read as one column, saying the delimiter is wrong', async () => {
    // Every row failed (INPUT_MALFORMED or FIELD_MISSING), and validate had said valid (rC).
    file('semis.csv', 'id;lat;lon\n1;49.009;8.404\n2;52.52;13.41\n');
    const job = file(
      'semis.yaml',
      'job: elevation\ninput: { path: semis.csv, delimiter: "," }\noutput: semis.out.csv\n',
    );
    const error = await refusal(job);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('mapping.lon and mapping.lat are read from a default column');
    expect(error.context).toMatchObject({
      path: 'mapping.lon',
      received: '"id;lat;lon"',
      hint: 'the header reads as one column, "id;lat;lon", which holds ";": set input.delimiter to it (or to auto)',
    });
  });

  it('says the input is JSON when NDJSON or GeoJSON is read as CSV, compact or spaced, mapped or not', async () => {
    for (const [text, starts] of [
      [
        '{"id":1234,"lon":13.41053,"lat":52.52437}\n{"id":2,"lon":9.99,"lat":53.55}\n',
        '{"id":1234,"lon":13.41053,"lat":52.52437...',
      ],
      ['{"id": 1234, "lon": 13.41053, "lat": 52.52437}\n', '{"id": 1234, "lon": 13.41053, "lat": 52....'],
    ] as const)
      for (const mapping of ['mapping: { lon: lon, lat: lat }\n', '']) {
        file('points.csv', text);
        const job = file(
          'points.yaml',
          `job: elevation\ninput: points.csv\noutput: points.out.csv\n${mapping}`,
        );
        const error = await refusal(job);
        expect(error.code, mapping).toBe('INPUT_MALFORMED');
        expect(error.message, mapping).toBe(
          `The input reads as JSON, not CSV: its first line starts \`${starts}\``,
        );
        expect(error.context, mapping).toMatchObject({ field: 'input.format', received: 'csv' });
        expect(String(error.context.hint), mapping).toMatch(/^Give --input-format ndjson/);
        expect(existsSync(join(ws.dir, 'points.out.csv')), mapping).toBe(false);
      }
    file('features.csv', '[{"type": "Feature", "properties": {}}]\n');
    const array = await refusal(
      file('features.yaml', 'job: elevation\ninput: features.csv\noutput: features.out.csv\n'),
    );
    expect(array.context).toMatchObject({ field: 'input.format' });
    expect(String(array.context.hint)).toMatch(/^Give --input-format geojson/);
    // A header whose first column only has a bracket or a brace in its name is a header.
    for (const first of ['[id]', '{id}']) {
      file('bracket.csv', `${first},lon,lat\n1,8.4044,49.0094\n`);
      await runJobFile(
        file('bracket.yaml', 'job: elevation\ninput: bracket.csv\noutput: bracket.out.csv\n'),
        {
          emulator: ws.emulator,
        },
      );
      expect(readFileSync(join(ws.dir, 'bracket.out.csv'), 'utf8'), first).toContain(first);
    }
  });

  it('shows a header name that only looks the same with its escapes: a no-break space, a decomposed accent', async () => {
    file('unseen.csv', 'id,\u00a0lon,La\u0308nge\n1,8.4044,49.0094\n');
    const job = file(
      'unseen.yaml',
      'job: elevation\ninput: unseen.csv\noutput: unseen.out.csv\nmapping: { lon: lon, lat: Länge }\n',
    );
    const error = await refusal(job);
    expect(error.context.hint).toBe('the header has "\\u00a0lon": map to it as written, or fix the header');
    const nfd = await refusal(
      file(
        'nfd.yaml',
        'job: elevation\ninput: unseen.csv\noutput: nfd.out.csv\nmapping: { lon: id, lat: Länge }\n',
      ),
    );
    expect(nfd.context).toMatchObject({
      path: 'mapping.lat',
      hint: 'the header has "La\\u0308nge": map to it as written, or fix the header',
    });
  });

  it('refuses an optional field mapped to a missing column, which would otherwise go out empty', async () => {
    file('addresses.csv', ADDRESSES);
    const job = file(
      'optional.yaml',
      'job: geocode\ninput: addresses.csv\noutput: optional.out.csv\nmapping: { street: street, houseNo: house_no, zip: plz, city: city }\n',
    );
    const error = await refusal(job);
    expect(error.context).toMatchObject({ path: 'mapping.houseNo', field: 'house_no' });
    // No near miss: the hint lists what the header has, since the CLI shows the hint, not `expected`.
    expect(error.context.hint).toBe(
      'map one of the header\'s columns ("id", "street", "housenumber", "plz", "city"), or give a constant with `{ value: ... }`',
    );
    // A dry run checks the same.
    expect((await refusal(job, true)).context).toMatchObject({ path: 'mapping.houseNo' });
  });

  it("lists a wide header's first 12 columns in the hint, and how many there are", async () => {
    const names = Array.from({ length: 15 }, (_, i) => `c${i + 1}`);
    file('wide.csv', `${names.join(',')}\n${names.map(() => '1').join(',')}\n`);
    const error = await refusal(
      file(
        'wide.yaml',
        'job: elevation\ninput: wide.csv\noutput: wide.out.csv\nmapping: { lon: longitude, lat: c2 }\n',
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ path: 'mapping.lon', field: 'longitude' });
    expect(error.context.hint).toBe(
      `map one of the header's columns (${names
        .slice(0, 12)
        .map((n) => `"${n}"`)
        .join(', ')}, ... (15 columns)), or give a constant with \`{ value: ... }\``,
    );
  });

  it("lets a later step read an earlier step's columns, and names the step of a column nobody has", async () => {
    file('addresses.csv', ADDRESSES);
    const steps = (lon: string) =>
      [
        'input: addresses.csv',
        'output: steps.out.csv',
        'steps:',
        '  - job: geocode',
        '    mapping: { street: street, houseNo: housenumber, zip: plz, city: city }',
        '    options: { prefix: geo_ }',
        '  - job: elevation',
        `    mapping: { lon: ${lon}, lat: geo_lat }`,
        '',
      ].join('\n');
    const good = await runJobFile(file('steps.yaml', steps('geo_lon')), { emulator: ws.emulator });
    expect(good.rows).toMatchObject({ read: 1, ok: 1 });
    const error = await refusal(file('steps-bad.yaml', steps('lon')));
    expect(error.context).toMatchObject({ path: 'steps[1].mapping.lon', field: 'lon' });
    expect(error.message).toMatch(
      /steps\[1\]\.mapping\.lon reads the column "lon", which the input's header does not have nor the steps before it add \(.*"geo_lon".*\)$/,
    );
    // A case slip of a column an earlier step adds is pointed at it.
    const upper = await refusal(file('steps-upper.yaml', steps('GEO_LON')));
    expect(upper.context.hint).toBe('an earlier step adds "geo_lon": map to it as written');
    // And a typo, by the nearest name within a few edits.
    const typo = await refusal(file('steps-typo.yaml', steps('geo_lno')));
    expect(typo.context.hint).toBe('an earlier step adds "geo_lon": map to it as written');
  });

  it('says so when a step reads a column only a later step adds', async () => {
    file('addresses.csv', ADDRESSES);
    const text = [
      'input: addresses.csv',
      'output: late.out.csv',
      'steps:',
      '  - job: elevation',
      '    mapping: { lon: geo_lon, lat: geo_lat }',
      '  - job: geocode',
      '    mapping: { street: street, houseNo: housenumber, zip: plz, city: city }',
      '    options: { prefix: geo_ }',
      '',
    ].join('\n');
    const error = await refusal(file('late.yaml', text));
    expect(error.context).toMatchObject({ path: 'steps[0].mapping.lon', field: 'geo_lon' });
    expect(error.context.hint).toBe(
      'steps[1] adds it, after this step: a step reads only the columns the steps before it add, so move that step first',
    );
  });

  it('says to read a header of UTF-8 declared windows-1252 as UTF-8, not to map to its garbled names', async () => {
    // Excel's "CSV UTF-8" with the job file saying windows-1252: the header reads `StraÃŸe`.
    file('u8.csv', 'id;Straße;PLZ;Ort\n1;Königstraße 1;70173;Stuttgart\n');
    const job = (name: string, street: string, encoding = 'windows-1252') =>
      file(
        `${name}.yaml`,
        `job: geocode\ninput: { path: u8.csv, encoding: ${encoding} }\noutput: ${name}.out.csv\nmapping: { street: ${street}, zip: PLZ, city: Ort }\n`,
      );
    const exact = job('u8', 'Straße');
    for (const dryRun of [false, true]) {
      const error = await refusal(exact, dryRun);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `${exact}: mapping.street reads the column "Straße", which the input's header does not have`,
      );
      expect(error.context).toMatchObject({
        path: 'mapping.street',
        field: 'Straße',
        hint: 'the header has "StraÃŸe", which is "Straße" in UTF-8 read as windows-1252: set `input.encoding: utf-8` (or drop the setting)',
      });
    }
    // latin1 reads as windows-1252 does; a mapping near the name the header has in UTF-8 is named.
    expect((await refusal(job('u8-near', 'strasse', 'latin1'))).context.hint).toBe(
      'the header has "StraÃŸe", which is "Straße" in UTF-8 read as latin1: set `input.encoding: utf-8` (or drop the setting), and map to "Straße"',
    );
    expect((await refusal(job('u8-other', 'Weg'))).context.hint).toBe(
      'map one of the header\'s columns ("id", "StraÃŸe", "PLZ", "Ort"), or give a constant with `{ value: ... }`; the header has "StraÃŸe", which is "Straße" in UTF-8 read as windows-1252: set `input.encoding: utf-8` (or drop the setting)',
    );
    expect(existsSync(join(ws.dir, 'u8.out.csv'))).toBe(false);
  });

  it('keeps the hint to map as written where the header is garbled in the file itself, or is windows-1252', async () => {
    // Read as UTF-8, `StraÃŸe` is what the file says: the encoding is right, the header is not.
    file('twice.csv', 'id;StraÃŸe;PLZ;Ort\n1;x;70173;Stuttgart\n');
    const twice = file(
      'twice.yaml',
      'job: geocode\ninput: twice.csv\noutput: twice.out.csv\nmapping: { street: Straße, zip: PLZ, city: Ort }\n',
    );
    expect((await refusal(twice)).context.hint).toBe(
      'the header has "StraÃŸe": map to it as written, or fix the header',
    );
    writeFileSync(
      join(ws.dir, 'w1252.csv'),
      Buffer.from('id;Straße;PLZ;Ort\n1;x;70173;Stuttgart\n', 'latin1'),
    );
    const w1252 = file(
      'w1252.yaml',
      'job: geocode\ninput: { path: w1252.csv, encoding: windows-1252 }\noutput: w1252.out.csv\nmapping: { street: strasse, zip: PLZ, city: Ort }\n',
    );
    expect((await refusal(w1252)).context.hint).toBe(
      'the header has "Straße": map to it as written, or fix the header',
    );
  });

  it('leaves NDJSON alone (each record has keys of its own) and reports an empty CSV as empty', async () => {
    file('later.ndjson', '{"id":1}\n{"id":2,"x":8.4044,"y":49.0094}\n');
    const ndjson = await runJobFile(
      file(
        'later.yaml',
        'job: elevation\ninput: later.ndjson\noutput: later.out.csv\nmapping: { lon: x, lat: y }\n',
      ),
      { emulator: ws.emulator },
    );
    expect(ndjson.rows).toMatchObject({ read: 2, ok: 1, failed: 1 });
    file('empty.csv', '');
    const empty = await runJobFile(
      file(
        'empty.yaml',
        'job: elevation\ninput: empty.csv\noutput: empty.out.csv\nmapping: { lon: x, lat: y }\n',
      ),
      { emulator: ws.emulator },
    );
    expect(empty.error?.code).toBe('INPUT_EMPTY');
  });
});
