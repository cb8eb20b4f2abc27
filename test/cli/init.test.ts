import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobFile } from '../../src/cli/init.js';
import { loadJobFile } from '../../src/config/load.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/run/job-file.js';
import { caught, tempDir } from '../fixtures/run-helpers.js';
import { cli, ROOT } from './_cli.js';

const SAMPLES = join(ROOT, 'samples');

/** What init should guess for each sample; a sample added later must still run (below). */
const EXPECTED_KIND: Readonly<Record<string, string>> = {
  'community-centres.csv': 'geocode',
  'depots.csv': 'reverse-geocode',
  'gps-fixes.csv': 'reverse-geocode',
  'isochrones.csv': 'isochrone',
  'places.csv': 'reverse-geocode',
  'places.geojson': 'reverse-geocode',
  'routes.csv': 'route',
  'sites.csv': 'reverse-geocode',
  'stores.csv': 'reverse-geocode',
  'suppliers.csv': 'customer-lookup',
  'tracks.csv': 'match',
  'trips.csv': 'trip',
};

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = tempDir();
});

afterAll(async () => {
  await emulator.close();
});

describe('geobatch init on every sample', () => {
  const samples = readdirSync(SAMPLES).filter((name) => /\.(csv|geojson)$/.test(name));

  it('finds the samples', () => {
    expect(samples.length).toBeGreaterThanOrEqual(Object.keys(EXPECTED_KIND).length);
  });

  it('reads SUPERKONFORM rectangles off map-sheets.csv: the format from the values, the level guessed', async () => {
    const job = join(dir, 'sheets.yaml');
    const result = await initJobFile(join(SAMPLES, 'map-sheets.csv'), { output: job });
    expect(result.candidate.kind.name).toBe('area-export');
    expect(Object.fromEntries([...result.candidate.options].map(([k, g]) => [k, g.value]))).toEqual({
      coordFormat: 'SUPERKONFORM',
      level: 6,
    });
    expect(readFileSync(job, 'utf8')).toMatch(
      /^ {2}coordFormat: SUPERKONFORM +# guessed: the coordinates are metres/m,
    );
  });

  it('does not take UTM metres (EPSG:25832) for MERCATOR: read so, Karlsruhe would lie in France', async () => {
    const input = join(dir, 'utm.csv');
    writeFileSync(
      input,
      'Name;X;Y\nKarlsruhe;456183;5429767\nHamburg;566034;5935472\nMünchen;691607;5334760\n',
    );
    const result = await initJobFile(input, { output: join(dir, 'utm.yaml'), kind: 'elevation' });
    expect(result.candidate.mapping.get('lon')?.column).toBe('X');
    expect(result.candidate.options.has('coordFormat')).toBe(false);
    expect(result.candidate.problems).toEqual([
      expect.stringContaining('Y: expected a latitude from -90 to 90'),
    ]);
  });

  for (const sample of samples) {
    it(`writes a job file for ${sample} that runs on the emulator (first 50 rows)`, async () => {
      const job = join(dir, `${sample}.yaml`);
      const result = await initJobFile(join(SAMPLES, sample), { output: job });
      if (EXPECTED_KIND[sample] !== undefined) expect(result.candidate.kind.name).toBe(EXPECTED_KIND[sample]);
      expect(result.candidate.problems).toEqual([]);
      const summary = await runJobFile(job, { emulator, rows: { limit: 50 } });
      expect([0, 3]).toContain(summary.exitCode);
      // Trip and match take whole trips and tracks: --limit ends with the group its 50th row is in.
      if (!['trip', 'match'].includes(result.candidate.kind.name))
        expect(summary.rows.read).toBeLessThanOrEqual(50);
      expect(summary.rows.ok).toBeGreaterThan(0);
    });
  }
});

describe('geobatch init: the file', () => {
  it('says what it guessed and why beside each mapped field', async () => {
    const { text } = await initJobFile(join(SAMPLES, 'routes.csv'), { output: join(dir, 'routes.yaml') });
    expect(text).toMatch(/^ {2}originLon: from_lon +# guessed by its name$/m);
    expect(text).toMatch(/^ {2}destinationLat: to_lat +# guessed by its name$/m);
    expect(text).toMatch(/^ {2}time: depart +# guessed by its name$/m);
    expect(text).toMatch(/^# Other kinds that can read this input: matrix, /m);
    // Every option of the kind is there, commented, with its documented default.
    expect(text).toMatch(/^ {2}# speedProfile: +# FAST \| SLOW \| BICYCLE \| PEDESTRIAN$/m);
  });

  it('makes a route of an origin and a destination alone, matrix being the other kind that reads them', async () => {
    const input = join(dir, 'od.csv');
    writeFileSync(
      input,
      'id,from_lon,from_lat,to_lon,to_lat\n1,8.4,49.0,8.69,49.41\n2,13.4,52.5,13.3,52.45\n',
    );
    const { candidate, text } = await initJobFile(input, { output: join(dir, 'od.yaml') });
    expect(candidate.kind.name).toBe('route');
    expect(text).toMatch(/^# Other kinds that can read this input: matrix/m);
  });

  it('guesses German address columns and a windows-1252 file', async () => {
    const input = join(dir, 'kunden.csv');
    const csv =
      'Kundennr;Straße;Hausnr.;Postleitzahl;Stadt\n1;Hauptstraße;5;10115;Berlin\n2;Kirchweg;7a;80331;München\n';
    writeFileSync(input, Buffer.from(csv, 'latin1'));
    const { candidate, text, head } = await initJobFile(input, { output: join(dir, 'kunden.yaml') });
    expect(candidate.kind.name).toBe('geocode');
    expect(Object.fromEntries([...candidate.mapping].map(([field, guess]) => [field, guess.column]))).toEqual(
      {
        street: 'Straße',
        houseNo: 'Hausnr.',
        zip: 'Postleitzahl',
        city: 'Stadt',
      },
    );
    expect(head.encoding).toBe('windows-1252');
    expect(text).toMatch(/^ {2}encoding: windows-1252 +# guessed/m);
    const config = await loadJobFile(join(dir, 'kunden.yaml'));
    expect(config.input.encoding).toBe('windows-1252');
  });

  it("writes the output as the input is written: German Excel's ; decimal commas and byte order mark", async () => {
    const input = join(dir, 'umsatz.csv');
    writeFileSync(
      input,
      '\uFEFFNr;Straße;PLZ;Ort;Umsatz\n1;Kirchstraße 1;54441;Kanzem;1.234,50\n2;Hauptstraße 5;10115;Berlin;99,9\n',
    );
    const job = join(dir, 'umsatz.yaml');
    const { text } = await initJobFile(input, { output: job });
    expect(text).toMatch(
      /^output:\n {2}path: out\/umsatz\.geocode\.csv +#.*\n {2}delimiter: ";" +# guessed.*\n {2}decimal: "," +# guessed.*\n {2}bom: true +# guessed: a byte order mark; the input starts with one/m,
    );
    // The input's numbers are declared too: its 1.234,50 is read as the 1234.5 it is.
    expect(text).toMatch(
      /^input:\n {2}path: umsatz\.csv +#.*\n {2}decimal: "," +# guessed: its numbers have a decimal comma/m,
    );
    expect((await loadJobFile(job)).input.decimal).toBe(',');
    const summary = await runJobFile(job, { emulator });
    expect(summary.rows.ok).toBe(2);
    const written = readFileSync(join(dir, 'out/umsatz.geocode.csv'), 'utf8');
    expect(written.startsWith('\uFEFFNr;Straße;PLZ;Ort;Umsatz;geo_lon;geo_lat;')).toBe(true);
    // The input's cells as they came, the coordinates geobatch adds with a decimal comma.
    expect(written.split('\n')[1]).toMatch(/^1;Kirchstraße 1;54441;Kanzem;1\.234,50;\d+,\d+;\d+,\d+;/);
  });

  it('proposes a byte order mark for a windows-1252 input, a tab for a tab-separated .txt, and nothing for plain CSV', async () => {
    const latin = join(dir, 'latin.csv');
    writeFileSync(latin, Buffer.from('Nr;Straße;PLZ;Ort\n1;Hauptstraße 5;10115;Berlin\n', 'latin1'));
    const fromLatin = await initJobFile(latin, { output: join(dir, 'latin.yaml') });
    expect(fromLatin.text).toMatch(
      /^ {2}bom: true +# guessed: a byte order mark; the input is windows-1252/m,
    );
    // No decimal in its rows, but `;`: written where `,` is the decimal mark (German Excel), which
    // would read the output's 13.7366 as 137366. The input's numbers declare nothing (none seen).
    expect(fromLatin.text).toMatch(
      /^ {2}decimal: "," +# guessed: `;` separates the values where `,` is the decimal mark \(German Excel\); the input shows no decimals$/m,
    );
    expect(fromLatin.text.match(/decimal:/g)).toHaveLength(1);
    // Coordinates of three places (`49.009`) are numbers with a mark: no guess from the `;` then.
    const places = join(dir, 'places3.csv');
    writeFileSync(places, 'id;lat;lon\n1;49.009;8.404\n2;52.520;13.405\n');
    expect((await initJobFile(places, { output: join(dir, 'places3.yaml') })).text).not.toMatch(/decimal:/);
    expect(fromLatin.text).toMatch(
      /^input:\n {2}path: latin\.csv +#.*\n {2}encoding: windows-1252 +# guessed.*\noutput:/m,
    );
    const tabs = join(dir, 'tabs.txt');
    writeFileSync(tabs, 'id\tlat\tlon\n1\t52.52\t13.40\n2\t48.13\t11.57\n');
    const fromTabs = await initJobFile(tabs, { output: join(dir, 'tabs.yaml'), format: 'csv' });
    expect(fromTabs.text).toMatch(/^ {2}delimiter: tab +# guessed/m);
    // Decimal points in the input: no decimal comma for the output.
    expect(fromTabs.text).not.toMatch(/decimal:|bom:/);
    expect((await loadJobFile(join(dir, 'tabs.yaml'))).output).toMatchObject({ delimiter: '\t' });
    const plain = join(dir, 'plain.csv');
    writeFileSync(plain, 'id,lat,lon\n1,52.52,13.40\n');
    expect((await initJobFile(plain, { output: join(dir, 'plain.yaml') })).text).toMatch(
      /^output: out\/plain\.[a-z-]+\.csv +#/m,
    );
  });

  it('finds lon and lat by their values when no name gives them away', async () => {
    const input = join(dir, 'anon.csv');
    writeFileSync(input, 'id,a,b\n1,52.52,13.40\n2,48.13,11.57\n3,50.11,8.68\n');
    const { candidate } = await initJobFile(input, { output: join(dir, 'anon.yaml') });
    expect(candidate.kind.name).toBe('reverse-geocode');
    expect(candidate.mapping.get('lon')?.column).toBe('b');
    expect(candidate.mapping.get('lat')?.column).toBe('a');
    expect(candidate.mapping.get('lon')?.reason).toMatch(/by its values/);
  });

  it("takes a GPS export's short names for a track: veh and t beside a point make a match", async () => {
    const input = join(dir, 'fixes.ndjson');
    const fix = (veh: string, t: string, lon: number, lat: number) =>
      JSON.stringify({ veh, t: `2024-05-06T${t}Z`, lon, lat });
    writeFileSync(
      input,
      `${[fix('a', '08:00:00', 8.4, 49), fix('a', '08:00:30', 8.41, 49.005), fix('b', '09:00:00', 13.4, 52.52)].join('\n')}\n`,
    );
    const { candidate } = await initJobFile(input, { output: join(dir, 'fixes.yaml') });
    expect(candidate.kind.name).toBe('match');
    expect(candidate.mapping.get('track')?.column).toBe('veh');
    expect(candidate.mapping.get('time')?.column).toBe('t');
    // A `t` without a vehicle is no track: the points alone are reverse-geocoded.
    const alone = join(dir, 'times.csv');
    writeFileSync(alone, 't,lon,lat\n2024-05-06T08:00:00Z,8.4,49\n2024-05-06T08:00:30Z,8.41,49.005\n');
    const other = await initJobFile(alone, { output: join(dir, 'times.yaml') });
    expect(other.candidate.kind.name).toBe('reverse-geocode');
  });

  it("reads a GeoJSON input's Point geometries, not properties merely named x and y", async () => {
    const input = join(dir, 'gauss-krueger.geojson');
    const feature = (lon: number, lat: number, x: number, y: number) =>
      `{"type":"Feature","geometry":{"type":"Point","coordinates":[${lon},${lat}]},"properties":{"name":"a","x":${x},"y":${y}}}`;
    writeFileSync(
      input,
      `{"type":"FeatureCollection","features":[\n${feature(8.4, 49, 3456789.1, 5432100.2)},\n${feature(8.5, 49.1, 3456790.1, 5432101.2)}\n]}\n`,
    );
    const { candidate, text } = await initJobFile(input, { output: join(dir, 'gk.yaml'), kind: 'elevation' });
    expect(candidate.mapping.has('lon')).toBe(false);
    expect(candidate.mapping.has('lat')).toBe(false);
    expect(candidate.problems).toEqual([]);
    expect(text).toMatch(/^ {2}# lon: +# the features' Point geometry \(x not taken/m);
  });

  it('counts a Point geometry as the columns it stands for: a point file with an id is reverse-geocoded', async () => {
    const input = join(dir, 'ids.geojson');
    const feature = (i: number) =>
      `{"type":"Feature","geometry":{"type":"Point","coordinates":[${8 + i / 10},${49 + i / 10}]},"properties":{"name":"p${i}","id":"${2803474 + i}"}}`;
    writeFileSync(
      input,
      `{"type":"FeatureCollection","features":[\n${[1, 2, 3, 4].map(feature).join(',\n')}\n]}\n`,
    );
    const { candidate } = await initJobFile(input, { output: join(dir, 'ids.yaml') });
    expect(candidate.kind.name).toBe('reverse-geocode');
  });

  it("proposes an output geobatch writes when it does not write the input's extension", async () => {
    const lines = join(dir, 'pts.geojsonl');
    const feature = (i: number) =>
      `{"type":"Feature","geometry":{"type":"Point","coordinates":[${8 + i / 10},${49 + i / 10}]},"properties":{"name":"p${i}"}}`;
    writeFileSync(lines, `${[1, 2, 3].map(feature).join('\n')}\n`);
    const drafted = await initJobFile(lines, { output: join(dir, 'pts.yaml') });
    expect(drafted.candidate.kind.name).toBe('reverse-geocode');
    expect(drafted.text).toMatch(/^output: out\/pts\.reverse-geocode\.(ndjson|geojson) /m);
    const dat = join(dir, 'kunden.dat');
    writeFileSync(dat, 'Kundennr,Straße,Hausnummer,PLZ,Ort\n1,Kaiserstraße,12,76131,Karlsruhe\n');
    const csv = await initJobFile(dat, { output: join(dir, 'kunden-dat.yaml'), format: 'csv' });
    expect(csv.candidate.kind.name).toBe('geocode');
    expect(csv.text).toMatch(/^output: out\/kunden\.geocode\.csv /m);
  });

  it('turns a named lat/lon pair round when every row has them the other way', async () => {
    const input = join(dir, 'swapped.csv');
    writeFileSync(input, 'id,lat,lon\n1,12.42241,50.35103\n2,8.4,49.01\n3,13.40,52.52\n');
    const { candidate } = await initJobFile(input, { output: join(dir, 'swapped.yaml') });
    expect(candidate.kind.name).toBe('reverse-geocode');
    expect(candidate.mapping.get('lon')?.column).toBe('lat');
    expect(candidate.mapping.get('lat')?.column).toBe('lon');
    expect(candidate.mapping.get('lon')?.reason).toMatch(/against its name/);
    // Named right, they stay as named.
    const right = join(dir, 'right.csv');
    writeFileSync(right, 'id,lat,lon\n1,50.35103,12.42241\n2,49.01,8.4\n');
    const named = await initJobFile(right, { output: join(dir, 'right.yaml') });
    expect(named.candidate.mapping.get('lon')?.column).toBe('lon');
  });

  it('leaves a TODO where the values cannot tell lon from lat', async () => {
    const input = join(dir, 'equator.csv');
    writeFileSync(input, 'id,p,q\n1,1.5,2.5\n2,3.25,4.75\n');
    const result = await initJobFile(input, { output: join(dir, 'equator.yaml'), kind: 'elevation' });
    expect(result.candidate.undecided).toEqual(['p', 'q']);
    expect(result.text).toMatch(/^ {2}lon: "TODO: longitude, one of p, q\?" +# TODO: one of p, q\?/m);
  });

  it('writes a TODO naming the key when the chosen kind needs what the input lacks', async () => {
    const job = join(dir, 'nearby.yaml');
    const { text, candidate } = await initJobFile(join(SAMPLES, 'sites.csv'), {
      output: job,
      kind: 'address-search',
    });
    expect(candidate.problems).toEqual([expect.stringContaining('options.branches')]);
    expect(text).toMatch(/^# TODO: .*options\.branches/m);
    expect(text).toMatch(/^ {2}branches: +# TODO \(required\)/m);
    const error = await caught(loadJobFile(job));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('options.branches');
  });

  it("says, for a kind forced on the wrong input, what the kind's own check of the rows found", async () => {
    const { candidate } = await initJobFile(join(SAMPLES, 'community-centres.csv'), {
      output: join(dir, 'wrong.yaml'),
      kind: 'elevation',
    });
    expect(candidate.problems).toEqual([expect.stringMatching(/first rows fail .*lon and lat: missing/)]);
  });
});

describe('geobatch init: refusals', () => {
  it('refuses an unknown kind, listing the known ones', async () => {
    const error = await caught(initJobFile(join(SAMPLES, 'sites.csv'), { kind: 'teleport', output: '-' }));
    expect(error.code).toBe('USAGE');
    expect(error.context).toMatchObject({ field: 'kind', received: 'teleport' });
    expect(error.context.expected).toContain('reverse-geocode');
  });

  it.each([
    ['a missing file without an extension', 'nope', 'does not exist', 'no such file'],
    ['a directory', '.', 'is a directory, not a file', 'a directory'],
  ])(
    'says of %s what it is, not that its format cannot be told from its name',
    async (_, name, words, received) => {
      const path = join(dir, name);
      const error = await caught(initJobFile(path, { output: join(dir, 'never.yaml') }));
      expect(error.code).toBe('USAGE');
      expect(error.message).toBe(`The input ${path} ${words}`);
      expect(error.context).toMatchObject({ file: path, received });
      expect(readdirSync(dir)).not.toContain('never.yaml');
    },
  );

  it('refuses an input path ending with / as naming a directory, as run does, even when the file exists', async () => {
    const file = join(dir, 'slash.csv');
    writeFileSync(file, 'id,lon,lat\n1,8.4,49.0\n');
    const path = `${file}/`;
    const error = await caught(initJobFile(path, { output: join(dir, 'never.yaml') }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      `init: ${path} ends with / and so names a directory: name the file without the /, e.g. ${file}`,
    );
    expect(error.context).toMatchObject({ field: 'input', file: path, received: path });
    expect(readdirSync(dir)).not.toContain('never.yaml');
  });

  it('says that columns of UTM metres are what no kind reads, and how to convert them', async () => {
    const input = join(dir, 'utm.csv');
    // Karlsruhe and Hamburg in ETRS89 / UTM zone 32N.
    writeFileSync(input, 'id,x,y\n1,456183,5429767\n2,565000,5934000\n');
    const error = await caught(initJobFile(input, { output: join(dir, 'utm.yaml') }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      'no job kind can read utm.csv as it stands (columns: id, x, y); x and y look like UTM metres (zone 32N or 33N, EPSG:25832 or 25833), which no coordFormat reads',
    );
    expect(error.context).toMatchObject({ field: 'kind', hint: expect.stringContaining('EPSG:4326') });
    // Numbers in those ranges under other names (a customer number, a turnover) are not taken for them.
    const numbers = join(dir, 'numbers.csv');
    writeFileSync(numbers, 'kundennr,umsatz\n300001,5429767\n300002,5934000\n');
    const byValue = await caught(initJobFile(numbers, { output: join(dir, 'numbers.yaml') }));
    expect(byValue.message).toBe('no job kind can read numbers.csv as it stands (columns: kundennr, umsatz)');
    writeFileSync(numbers, 'kundennr,x,y\n300001,456183,5429767\n');
    const named = await caught(initJobFile(numbers, { output: join(dir, 'numbers.yaml') }));
    expect(named.message).toContain('; x and y look like UTM metres');
    // Without such columns the refusal says no more than that, and how to name a kind.
    const plain = join(dir, 'words.csv');
    writeFileSync(plain, 'id,note\n1,hello\n');
    const other = await caught(initJobFile(plain, { output: join(dir, 'words.yaml') }));
    expect(other.message).toBe('no job kind can read words.csv as it stands (columns: id, note)');
    expect(other.context.hint).toContain('--kind');
  });

  it('does not overwrite a job file without --force', async () => {
    const job = join(dir, 'twice.yaml');
    await initJobFile(join(SAMPLES, 'sites.csv'), { output: job });
    writeFileSync(job, 'mine');
    const error = await caught(initJobFile(join(SAMPLES, 'sites.csv'), { output: job }));
    expect(error.code).toBe('USAGE');
    expect(error.context).toMatchObject({ field: 'output', file: job });
    expect(error.context.hint).toContain('--force');
    expect(readFileSync(job, 'utf8')).toBe('mine');
    await initJobFile(join(SAMPLES, 'sites.csv'), { output: job, force: true });
    expect(readFileSync(job, 'utf8')).toContain('job: reverse-geocode');
  });

  it('refuses a directory as the job file, --force or not, naming the file to give instead', async () => {
    const folder = join(dir, 'drafts');
    mkdirSync(folder);
    for (const force of [true, false]) {
      const error = await caught(initJobFile(join(SAMPLES, 'sites.csv'), { output: folder, force }));
      expect(error.code).toBe('USAGE');
      expect(error.message).toBe(`-o/--output: ${folder} is a directory, not a job file`);
      expect(error.context).toMatchObject({ field: 'output', file: folder, received: 'a directory' });
      expect(error.context.hint).toBe(
        `Name the file in it: -o ${join(folder, 'sites.reverse-geocode.yaml')}`,
      );
    }
    expect(readdirSync(folder)).toEqual([]);
  });

  it('takes a path ending in a slash for a directory, whether it exists or not, not a file name', async () => {
    const folder = `${join(dir, 'not-yet-made')}/`;
    const error = await caught(initJobFile(join(SAMPLES, 'sites.csv'), { output: folder }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(`-o/--output: ${folder} is a directory, not a job file`);
    expect(error.context.hint).toBe(`Name the file in it: -o ${join(folder, 'sites.reverse-geocode.yaml')}`);
    expect(existsSync(join(dir, 'not-yet-made'))).toBe(false);
  });

  it('says which file is in the way of a job file under it, not ENOTDIR', async () => {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const job = join(file, 'job.yaml');
    const error = await caught(initJobFile(join(SAMPLES, 'sites.csv'), { output: job }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(`-o/--output: cannot write ${job}: ${file} is a file, not a directory`);
    expect(error.context).toMatchObject({ field: 'output', file: job });
    expect(error.context.hint).toContain(`somewhere not under the file ${file}`);
  });

  it('refuses an empty input path rather than reading the working directory', async () => {
    for (const input of ['', ' ']) {
      const error = await caught(initJobFile(input, { output: '-' }));
      expect(error.code).toBe('USAGE');
      expect(error.message).toBe('no input file named: the path is empty');
      expect(error.context).toMatchObject({ field: 'input', received: JSON.stringify(input) });
    }
  });

  it('asks for --format when the extension does not say', async () => {
    const input = join(dir, 'export.dat');
    writeFileSync(input, 'lat,lon\n50.1,8.6\n');
    const error = await caught(initJobFile(input, { output: '-' }));
    expect(error.context).toMatchObject({ field: 'format' });
    expect(error.context.hint).toContain('--format csv');
  });

  it('guesses from the header alone when the input has no data rows, and only by names', async () => {
    const named = join(dir, 'empty-addresses.csv');
    writeFileSync(named, 'strasse,plz,ort\n');
    const result = await initJobFile(named, { output: join(dir, 'empty-addresses.yaml') });
    expect(result.candidate.kind.name).toBe('geocode');
    const unnamed = join(dir, 'empty-other.csv');
    writeFileSync(unnamed, 'colour,size\n');
    expect((await caught(initJobFile(unnamed, { output: '-' }))).context.field).toBe('kind');
  });

  it('says that an empty input is empty, not that no kind can read it', async () => {
    const input = join(dir, 'empty.csv');
    writeFileSync(input, '');
    const error = await caught(initJobFile(input, { output: '-' }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      `${input}: the file is empty; init guesses the job from a header and the first rows`,
    );
    expect(error.context).toMatchObject({ field: 'input', file: input, received: 'an empty file' });
    const blank = join(dir, 'blank.ndjson');
    writeFileSync(blank, '\n\n');
    expect((await caught(initJobFile(blank, { output: '-' }))).message).toContain(
      'no header and no row could be read from it',
    );
  });

  it('says when no kind can read the input, and how to name one', async () => {
    const input = join(dir, 'nothing.csv');
    writeFileSync(input, 'colour,size\nred,3\nblue,4\n');
    const error = await caught(initJobFile(input, { output: '-' }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain('colour, size');
    expect(error.context.hint).toContain('--kind');
  });
});

describe('geobatch init on the command line', () => {
  it('writes the file, says on stderr what it guessed, and exits 0', async () => {
    const job = join(dir, 'cli-sites.yaml');
    const run = cli(['init', join(SAMPLES, 'sites.csv'), '-o', job]);
    expect(await run.exited).toBe(0);
    expect(run.err()).toMatch(/^geobatch init: sites\.csv: csv, \d+ columns, first \d+ rows read$/m);
    expect(run.err()).toMatch(/kind +reverse-geocode \(guessed: its mapping reads 2 of the columns\)/);
    expect(run.err()).toContain('mapping  lon <- lon, lat <- lat');
    // The job is outside the working directory: its whole path, as it must be typed.
    expect(run.err()).toContain(`next: geobatch run ${job} --emulator --limit 50`);
    expect(readFileSync(job, 'utf8')).toContain('job: reverse-geocode');
    expect(run.out()).toBe('');
  });

  it('says one row and one column in the singular', async () => {
    const input = join(dir, 'one-text.csv');
    writeFileSync(input, 'text\nKaiserstraße 12 Karlsruhe\n');
    const run = cli(['init', input, '--kind', 'autocomplete', '-o', join(dir, 'one-text.yaml')]);
    expect(await run.exited, run.err()).toBe(0);
    expect(run.err()).toMatch(/^geobatch init: one-text\.csv: csv, 1 column, 1 row read$/m);
  });

  it('names the file it wrote as typed from here, directory included', async () => {
    const run = cli(['init', join(SAMPLES, 'sites.csv'), '-o', 'drafts/sites.yaml'], {}, { cwd: dir });
    expect(await run.exited).toBe(0);
    expect(run.err()).toContain('wrote drafts/sites.yaml');
    expect(run.err()).toContain('next: geobatch run drafts/sites.yaml --emulator --limit 50');
    expect(readFileSync(join(dir, 'drafts', 'sites.yaml'), 'utf8')).toContain('job: reverse-geocode');
  });
});
