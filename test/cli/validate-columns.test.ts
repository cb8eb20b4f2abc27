/**
 * `geobatch validate` checks the mapped columns against a CSV input's header, as the run does when
 * it opens the input, and refuses in the run's words (exit 2). It used to pass such a file (exit 0),
 * which the run then refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { validateCommand } from '../../src/cli/validate.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { ConfigError, type GeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/run/job-file.js';
import { cli } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-validate-columns-'));
  file('points.csv', 'id,lon,lat\n1,13.4,52.5\n');
  file('addresses.csv', 'id,Straße,PLZ,Ort\n1,Hauptstraße,10115,Berlin\n');
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs `geobatch validate <file>` in this process; returns what it printed, or its error. */
async function validate(job: string): Promise<{ out: string; error?: GeobatchError }> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await validateCommand().parseAsync([job], { from: 'user' });
    return { out };
  } catch (error) {
    return { out, error: error as GeobatchError };
  } finally {
    vi.restoreAllMocks();
  }
}

/** The run's refusal of the same file, before a request is sent. */
async function refusal(job: string): Promise<GeobatchError> {
  const before = emulator.stats().total;
  const error = await runJobFile(job, { emulator }).catch((e: unknown) => e);
  expect(emulator.stats().total).toBe(before);
  return error as GeobatchError;
}

describe('geobatch validate: the mapped columns against the header', () => {
  it.each([
    [
      'a column the header does not have',
      'points.csv',
      'job: reverse-geocode\nmapping: { lon: nosuch, lat: lat }\n',
    ],
    [
      'plz where the header says PLZ',
      'addresses.csv',
      'job: geocode\nmapping: { street: Straße, zip: plz }\n',
    ],
  ])('refuses %s, as the run does, in the same words', async (_, input, body) => {
    const job = file(`refused-${input}.yaml`, `input: ${input}\noutput: out/x.csv\n${body}`);
    const { out, error } = await validate(job);
    expect(out).toBe('');
    expect(error).toBeInstanceOf(ConfigError);
    const run = await refusal(job);
    expect(run).toBeInstanceOf(ConfigError);
    expect(error?.message).toBe(run.message);
    expect(error?.context).toEqual(run.context);
    expect(error?.message).toMatch(
      /: mapping\.(lon|zip) reads the column "(nosuch|plz)", which the input's header/,
    );
  });

  it('names the column the header has when only the case differs', async () => {
    const job = file(
      'case.yaml',
      'input: addresses.csv\noutput: out/x.csv\njob: geocode\nmapping: { zip: plz }\n',
    );
    const { error } = await validate(job);
    expect(error?.context).toMatchObject({ path: 'mapping.zip', received: '"plz"' });
    expect(error?.context.hint).toContain('"PLZ"');
  });

  it('names every mapped column the header lacks in one go, each with its near miss, as the run does', async () => {
    // The header has `lat` with a no-break space after it and `Lon` capitalised: two columns to
    // fix, which validate used to name one run at a time.
    file('nbsp.csv', 'id,lat\u00a0,Lon,Stra\u00dfe\n1,52.5,13.4,x\n');
    const job = file(
      'all-missing.yaml',
      'input: nbsp.csv\noutput: out/x.csv\njob: address-search\noptions: { branches: "1201" }\nmapping: { lon: lon, lat: lat }\n',
    );
    const { out, error } = await validate(job);
    expect(out).toBe('');
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toBe(
      [
        `${job}: mapping.lon reads the column "lon", which the input's header does not have`,
        '  mapping.lat reads the column "lat", which it does not have either: the header has "lat\\u00a0": map to it as written, or fix the header',
      ].join('\n'),
    );
    expect(error?.context).toEqual({
      file: job,
      path: 'mapping.lon',
      field: 'lon',
      expected: 'a column of the header: "id", "lat\\u00a0", "Lon", "Straße"',
      received: '"lon"',
      hint: 'the header has "Lon": map to it as written, or fix the header',
      detail: { 'mapping.lon': 'lon', 'mapping.lat': 'lat' },
    });
    const run = await refusal(job);
    expect(run.message).toBe(error?.message);
    expect(run.context).toEqual(error?.context);
  });

  it('names each further column once, without the hint the first one or the header list already gives', async () => {
    const job = file(
      'three-missing.yaml',
      'input: addresses.csv\noutput: out/x.csv\njob: geocode\nmapping: { street: strasse, zip: plz, city: ort }\n',
    );
    const { error } = await validate(job);
    expect(error?.message.split('\n')).toEqual([
      `${job}: mapping.street reads the column "strasse", which the input's header does not have`,
      '  mapping.zip reads the column "plz", which it does not have either: the header has "PLZ": map to it as written, or fix the header',
      '  mapping.city reads the column "ort", which it does not have either: the header has "Ort": map to it as written, or fix the header',
    ]);
    // A typo's nearest column is named too: "strasse" is two edits from "Straße".
    expect(error?.context.hint).toBe('the header has "Straße": map to it as written, or fix the header');
    expect(error?.context.detail).toEqual({
      'mapping.street': 'strasse',
      'mapping.zip': 'plz',
      'mapping.city': 'ort',
    });
  });

  it('accepts the columns the header has, and says it checked them', async () => {
    const job = file(
      'ok.yaml',
      'input: points.csv\noutput: out/x.csv\njob: reverse-geocode\nmapping: { lon: lon, lat: lat }\n',
    );
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).toContain("\n  columns      every mapped column is in the input's header\n");
  });

  it('says in one line that it could not check an input that does not exist yet', async () => {
    const job = file(
      'later.yaml',
      'input: later.csv\noutput: out/x.csv\njob: reverse-geocode\nmapping: { lon: nosuch }\n',
    );
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).toContain(
      `\n  columns      not checked: the input ${join(dir, 'later.csv')} does not exist (yet)\n`,
    );
    expect(out).toMatch(/: valid reverse-geocode job\n/);
  });

  it("warns of a key that none of an NDJSON input's first records has, which it cannot refuse", async () => {
    file('points.ndjson', '{"lon":13.4,"lat":52.5,"X":1}\n{"lon":9.9,"lat":53.5,"X":2}\n');
    const job = file(
      'nd.yaml',
      'input: points.ndjson\noutput: out/x.ndjson\njob: reverse-geocode\nmapping: { lon: x, lat: lat }\n',
    );
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).toContain(
      'columns      looked for in the first 1,000 records, as the run looks (each may have keys of its own)',
    );
    expect(out).toContain(
      '  warning: mapping.lon reads the key "x", which none of the 2 records has: they have "X": map to it as written; each row reads it as absent (an optional field left out, a required one failing)\n',
    );
    // A key that a later record has is no mistake: nothing is said.
    file('later.ndjson', '{"lon":13.4,"lat":52.5}\n{"lon":9.9,"lat":53.5,"x":2}\n');
    const later = file(
      'later-nd.yaml',
      'input: later.ndjson\noutput: out/y.ndjson\njob: reverse-geocode\nmapping: { lon: x, lat: lat }\n',
    );
    expect((await validate(later)).out).not.toContain('which none of');
  });

  it('shows no columns line when no mapping reads a column', async () => {
    const job = file('none.yaml', 'input: points.csv\noutput: out/x.csv\njob: reverse-geocode\n');
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).not.toMatch(/^ {2}columns /m);
  });
});

describe('geobatch validate: the columns of a pipeline', () => {
  const steps = (city: string) =>
    `input: points.csv\noutput: out/p.csv\nsteps:\n  - job: reverse-geocode\n    mapping: { lon: lon, lat: lat }\n  - job: geocode\n    mapping: { zip: rev_zip, city: ${city} }\n`;

  it('lets a later step read the columns an earlier step adds', async () => {
    const { out, error } = await validate(file('steps.yaml', steps('rev_city')));
    expect(error).toBeUndefined();
    expect(out).toContain(
      "columns      every mapped column is in the input's header or added by an earlier step",
    );
  });

  it('refuses a later step’s column that neither the header nor an earlier step has, as the run does', async () => {
    const job = file('steps-bad.yaml', steps('rev_town'));
    const { error } = await validate(job);
    expect(error?.context).toMatchObject({ path: 'steps[1].mapping.city', received: '"rev_town"' });
    expect(error?.message).toBe((await refusal(job)).message);
  });
});

describe('geobatch validate: a point from two places', () => {
  it("refuses a pair half mapped to an earlier step's column, half read from the input, as the run does", async () => {
    file('places.csv', 'id,plz,ort,lat\n1,98527,Suhl,\n');
    const job = file(
      'half.yaml',
      'input: places.csv\noutput: out/h.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort }\n  - job: elevation\n    mapping: { lon: geo_lon }\n',
    );
    const { error } = await validate(job);
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toBe(
      `${job}: steps[1].mapping.lon reads "geo_lon", which an earlier step adds, and steps[1].mapping.lat, not mapped, would be read from the input's default column: a point from two places`,
    );
    expect(error?.context).toMatchObject({
      path: 'steps[1].mapping.lat',
      hint: "map it to the same step's column: `lat: geo_lat`",
    });
    expect((await refusal(job)).message).toBe(error?.message);
  });
});

describe('geobatch validate: one column for both halves of a point', () => {
  it("refuses lon and lat mapped to the same column, naming the step's latitude column, as the run does", async () => {
    file('places2.csv', 'id,plz,ort\n1,98527,Suhl\n');
    const job = file(
      'same.yaml',
      'input: places2.csv\noutput: out/s.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort }\n  - job: elevation\n    mapping: { lon: geo_lon, lat: geo_lon }\n',
    );
    const { error } = await validate(job);
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toBe(
      `${job}: steps[1].mapping.lon and steps[1].mapping.lat both read "geo_lon": a point's longitude and latitude come from two columns`,
    );
    expect(error?.context).toMatchObject({
      file: job,
      path: 'steps[1].mapping.lat',
      hint: "map it to the same step's column: `lat: geo_lat`",
    });
    expect((await refusal(job)).message).toBe(error?.message);
  });

  it('refuses it in a job of one step too', async () => {
    const job = file(
      'same-one.yaml',
      'input: points.csv\noutput: out/x.csv\njob: reverse-geocode\nmapping: { lon: lon, lat: lon }\n',
    );
    const { error } = await validate(job);
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.context).toMatchObject({ path: 'mapping.lat', hint: "map lat to the latitude's column" });
  });
  it.each([
    ['lon: lat, lat: lat', '{ lon: lat, lat: lat }', 'mapping.lon', "map lon to the longitude's column"],
    [
      'lon: Breite, lat: Breite',
      '{ lon: Breite, lat: Breite }',
      'mapping.lon',
      "map lon to the longitude's column",
    ],
    ['lon: x, lat: x', '{ lon: x, lat: x }', 'mapping.lat', "map lat to the latitude's column"],
    [
      'lon: coord, lat: coord',
      '{ lon: coord, lat: coord }',
      'mapping.lat',
      `map lon to the longitude's column and lat to the latitude's: "coord" does not say which it holds`,
    ],
  ])(
    'blames, for %s, the key the column does not name, or both when its name says neither',
    async (_, mapping, path, hint) => {
      const job = file(
        `same-${path}-${mapping.length}-${hint.length}.yaml`,
        `input: points.csv\noutput: out/x.csv\njob: reverse-geocode\nmapping: ${mapping}\n`,
      );
      const { error } = await validate(job);
      expect(error?.code).toBe('CONFIG_INVALID');
      expect(error?.context).toMatchObject({ file: job, path, hint });
      expect((await refusal(job)).context).toMatchObject({ path, hint });
    },
  );

  it("names the earlier step's longitude column when the latitude's is read for both", async () => {
    file('places3.csv', 'id,plz,ort\n1,98527,Suhl\n');
    const job = file(
      'same-lat.yaml',
      'input: places3.csv\noutput: out/s.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort }\n  - job: elevation\n    mapping: { lon: geo_lat, lat: geo_lat }\n',
    );
    const { error } = await validate(job);
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.context).toMatchObject({
      path: 'steps[1].mapping.lon',
      hint: "map it to the same step's column: `lon: geo_lon`",
    });
  });
});

describe('geobatch validate: a steps file of one step', () => {
  it('names the column by the step’s place, as every other message about the step does', async () => {
    const job = file(
      'one-step.yaml',
      'input: points.csv\noutput: out/x.csv\nsteps:\n  - job: reverse-geocode\n    mapping: { lon: nosuch, lat: lat }\n',
    );
    const { error } = await validate(job);
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.context).toMatchObject({ file: job, path: 'steps[0].mapping.lon', field: 'nosuch' });
    expect(error?.message).toBe((await refusal(job)).message);
  });
});

describe('geobatch validate: the columns of a side input (matrix destinations)', () => {
  const single = (destinations: string) =>
    `input: points.csv\noutput: out/m.csv\njob: matrix\noptions:\n  destinations: ${destinations}\n`;
  const pipeline = (destinations: string) =>
    `input: points.csv\noutput: out/m.csv\nsteps:\n  - job: elevation\n  - job: matrix\n    options:\n      destinations: ${destinations}\n`;

  it.each([
    ['a one-job file', single, 'options.destinations.mapping.lon'],
    ['a pipeline step', pipeline, 'steps[1].options.destinations.mapping.lon'],
  ])(
    'refuses, in %s, a column the destinations file lacks, by its whole path, as the run does',
    async (_, body, path) => {
      const stores = file('stores.csv', 'store_id,Lon,lat\nS1,13.5,52.4\n');
      const job = file(
        `side-${path}.yaml`,
        body('{ path: stores.csv, mapping: { id: store_id, lon: lon } }'),
      );
      const { out, error } = await validate(job);
      expect(out).toBe('');
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.code).toBe('CONFIG_INVALID');
      expect(error?.message).toBe(
        `${job}: ${path} reads the column "lon", which the header of ${stores} does not have`,
      );
      expect(error?.context).toMatchObject({ file: job, path, field: 'lon', received: '"lon"' });
      expect(error?.context.hint).toContain('"Lon"');
      const run = await refusal(job);
      expect(run.message).toBe(error?.message);
      expect(run.context).toEqual(error?.context);
    },
  );

  it.each([
    ['a one-job file', single, 'options.destinations.mapping'],
    ['a pipeline step', pipeline, 'steps[1].options.destinations.mapping'],
  ])(
    'refuses, in %s, destinations whose lon and lat read one column, as the run does',
    async (_, body, path) => {
      file('stores-one.csv', 'store_id,lon,lat\nS1,13.5,52.4\n');
      const job = file(
        `side-one-${path}.yaml`,
        body('{ path: stores-one.csv, mapping: { id: store_id, lon: lon, lat: lon } }'),
      );
      const { error } = await validate(job);
      expect(error?.code).toBe('CONFIG_INVALID');
      expect(error?.message).toBe(
        `${job}: ${path}.lon and ${path}.lat both read "lon": a point's longitude and latitude come from two columns`,
      );
      expect(error?.context).toMatchObject({ file: job, path: `${path}.lat` });
      const run = await refusal(job);
      expect(run.message).toBe(error?.message);
    },
  );

  it.each([
    ['a one-job file', single, 'options.destinations.mapping'],
    ['a pipeline step', pipeline, 'steps[1].options.destinations.mapping'],
  ])("blames, in %s, destinations' lon when both read the latitude's column", async (_, body, path) => {
    file('stores-lat.csv', 'store_id,lon,lat\nS1,13.5,52.4\n');
    const job = file(
      `side-lat-${path}.yaml`,
      body('{ path: stores-lat.csv, mapping: { id: store_id, lon: lat, lat: lat } }'),
    );
    const { error } = await validate(job);
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.context).toMatchObject({
      file: job,
      path: `${path}.lon`,
      expected: 'a column other than "lat"',
      hint: "map lon to the longitude's column",
    });
    expect((await refusal(job)).context).toEqual(error?.context);
  });

  it('says it checked the columns of a destinations file that has them', async () => {
    file('stores-ok.csv', 'store_id,lon,lat\nS1,13.5,52.4\n');
    const job = file('side-ok.yaml', pipeline('{ path: stores-ok.csv, mapping: { id: store_id } }'));
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).toContain(
      `    destinations ${join(dir, 'stores-ok.csv')} (csv); every mapped column is in its header\n`,
    );
  });

  it.each([
    ['a header and no row', 'store_id,lon,lat\n', 'has a header and no row', single, 'options.destinations'],
    ['nothing at all', '', 'is empty', pipeline, 'steps[1].options.destinations'],
  ])(
    'refuses a destinations file with %s, as the run does, by its path',
    async (_, text, what, body, path) => {
      const stores = file(`stores-${what.length}.csv`, text);
      const job = file(`side-empty-${what.length}.yaml`, body(`{ path: ${stores} }`));
      const { out, error } = await validate(job);
      expect(out).toBe('');
      expect(error?.code).toBe('CONFIG_INVALID');
      expect(error?.message).toBe(`${job}: ${path}: ${stores} ${what}; it must hold at least one row`);
      expect(error?.context).toMatchObject({ file: job, path });
      const run = await refusal(job);
      expect(run.message).toBe(error?.message);
    },
  );

  it.each([
    [
      'a later row without coordinates',
      'store_id,lon,lat\nS1,13.5,52.4\nS2,,\n',
      single,
      'row 2',
      { row: 2, field: 'lon' },
    ],
    [
      'an id given twice',
      'store_id,lon,lat\nS1,13.5,52.4\nS1,13.6,52.3\n',
      pipeline,
      'rows 1 and 2',
      { row: 2, path: 'steps[1].options.destinations.mapping.id' },
    ],
  ])(
    'refuses a destinations file with %s, reading every row as the run does',
    async (name, text, body, rows, context) => {
      const stores = file(`stores-rows-${name.length}.csv`, text);
      const job = file(
        `side-rows-${name.length}.yaml`,
        body(`{ path: ${stores}, mapping: { id: store_id } }`),
      );
      const { out, error } = await validate(job);
      expect(out).toBe('');
      expect(error?.code).toBe('CONFIG_INVALID');
      expect(error?.message).toMatch(
        new RegExp(`^${stores.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${rows}: `),
      );
      expect(error?.context).toMatchObject(context);
      const run = await refusal(job);
      expect(run.message).toBe(error?.message);
      expect(run.context).toEqual(error?.context);
    },
  );

  it('says in one line that it could not check a destinations file that does not exist yet', async () => {
    const job = file('side-later.yaml', single('{ path: later-stores.csv, mapping: { id: nosuch } }'));
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).toContain(
      `  destinations ${join(dir, 'later-stores.csv')} (csv); columns not checked: the file does not exist (yet)\n`,
    );
  });
});

describe('geobatch validate on the command line: a column the header lacks', () => {
  it('exits 2 with the message and prints nothing on standard output', async () => {
    file(
      'cli.yaml',
      'input: points.csv\noutput: out/x.csv\njob: reverse-geocode\nmapping: { lon: nosuch, lat: lat }\n',
    );
    const run = cli(['validate', 'cli.yaml'], {}, { cwd: dir });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      `${join(dir, 'cli.yaml')}: mapping.lon reads the column "nosuch", which the input's header does not have`,
    );
    expect(run.out()).toBe('');
  });
});
