/**
 * A mapped key that none of an NDJSON or GeoJSON input's first records has (src/run/_record-keys.ts):
 * a CSV header's missing column is refused before any row, but records may each have keys of their
 * own, so the run warns instead, once, naming the keys the records have. Without it an optional
 * field went out empty on every row, and a mapped point fell back to the feature's geometry, every
 * row ok and nothing said.
 */
import { describe, expect, it } from 'vitest';
import { runJobFile } from '../../src/index.js';
import { RECORDS_LOOKED_AT } from '../../src/run/_record-keys.js';
import { emulatorWorkspace, memoryLogger } from '../fixtures/run-helpers.js';

const ws = emulatorWorkspace('geobatch-record-keys-');
const { file } = ws;

async function run(job: string, dryRun = false, limit?: number) {
  const { logger, lines } = memoryLogger();
  const rows = limit === undefined ? {} : { rows: { limit } };
  const summary = await runJobFile(job, { emulator: ws.emulator, logger, dryRun, ...rows });
  const warnings = lines()
    .filter((line) => line.level === 40)
    .map((line) => String(line.msg));
  return { summary, warnings };
}

const feature = (props: string, lon: number, lat: number) =>
  `{"type":"Feature","properties":{${props}},"geometry":{"type":"Point","coordinates":[${lon},${lat}]}}`;

describe('mapped keys that no record has', () => {
  it('warns of a GeoJSON property none of the features has, whose point comes from the geometry', async () => {
    file(
      'f.geojson',
      `{"type":"FeatureCollection","features":[${feature('"id":1,"Lon":13.4,"Lat":52.5', 13.4, 52.5)},${feature('"id":2,"Lon":9.99,"Lat":53.55', 9.99, 53.55)}]}`,
    );
    const job = file(
      'f.yaml',
      'job: elevation\ninput: f.geojson\noutput: f.out.csv\nmapping: { lon: lon, lat: lat }\n',
    );
    const { summary, warnings } = await run(job);
    expect(summary.rows).toMatchObject({ ok: 2, failed: 0 });
    expect(warnings).toEqual([
      'mapping.lon reads the property "lon", which none of the 2 features has: they have "Lon": map to it as written; each row\'s point is read from its feature\'s Point geometry instead (a feature without one failing)',
      'mapping.lat reads the property "lat", which none of the 2 features has: they have "Lat": map to it as written; each row\'s point is read from its feature\'s Point geometry instead (a feature without one failing)',
    ]);
    // The dry run, where a user checks a file before paying for it, says it too, and so does a
    // try on the first rows (--limit), which stops reading before the input's end.
    expect((await run(job, true)).warnings).toEqual(warnings);
    expect(
      (await run(job, false, 1)).warnings.map((w) => w.replace('the one feature', 'the 2 features')),
    ).toEqual(warnings);
  });

  it('says a feature whose point has one half mapped to a property it has fails, not that its geometry is read', async () => {
    file(
      'half.geojson',
      `{"type":"FeatureCollection","features":[${feature('"id":1,"lat":52.5', 13.4, 52.5)}]}`,
    );
    const job = file(
      'half.yaml',
      'job: elevation\ninput: half.geojson\noutput: half.out.csv\nmapping: { lon: lon, lat: lat }\n',
    );
    const { summary, warnings } = await run(job);
    expect(summary.rows).toMatchObject({ ok: 0, failed: 1 });
    expect(warnings).toEqual([
      'mapping.lon reads the property "lon", which none of the one feature has: they have "id", "lat"; each row reads it as absent (an optional field left out, a required one failing)',
    ]);
  });

  it('warns of an optional NDJSON key once the first records are read, naming the keys they have', async () => {
    const record = (i: number) => `{"street":"Hauptstraße","hausnr":"${i}","plz":"76133","city":"Karlsruhe"}`;
    const lines = Array.from({ length: RECORDS_LOOKED_AT + 5 }, (_, i) => record(i + 1));
    // A record past the first thousand that has the key comes too late to matter: said all the same.
    lines.push('{"street":"Hauptstraße","hausnummer":"1","plz":"76133","city":"Karlsruhe"}');
    file('g.ndjson', `${lines.join('\n')}\n`);
    const job = file(
      'g.yaml',
      'job: geocode\ninput: g.ndjson\noutput: g.out.csv\nmapping: { street: street, houseNo: hausnummer, zip: plz, city: city }\n',
    );
    const { warnings } = await run(job, true);
    expect(warnings.filter((w) => w.includes('none of'))).toEqual([
      'mapping.houseNo reads the key "hausnummer", which none of the first 1,000 records has: they have "street", "hausnr", "plz", "city"; each row reads it as absent (an optional field left out, a required one failing)',
    ]);
  });

  it('names the key another name for the same half of the point is, as the near miss', async () => {
    // `lng` is no typo of `lon` (two letters apart), but plainly the key meant.
    file('n.ndjson', '{"veh":"a","lon":8.4,"lat":49.0}\n{"veh":"b","lon":13.4,"lat":52.5}\n');
    const job = file(
      'n.yaml',
      'job: elevation\ninput: n.ndjson\noutput: n.out.csv\nmapping: { lon: lng, lat: lat }\n',
    );
    expect((await run(job, true)).warnings.filter((w) => w.includes('none of'))).toEqual([
      'mapping.lon reads the key "lng", which none of the 2 records has: they have "lon": map to it as written; each row reads it as absent (an optional field left out, a required one failing)',
    ]);
  });

  it("names an earlier step's column that a mapped key misspells", async () => {
    file('m.ndjson', '{"id":1,"plz":"76133","ort":"Karlsruhe"}\n');
    const job = file(
      'm.yaml',
      'input: m.ndjson\noutput: m.out.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort }\n  - job: elevation\n    mapping: { lon: geo_lon, lat: geo_lati }\n',
    );
    expect((await run(job, true)).warnings.filter((w) => w.includes('none of'))).toEqual([
      'steps[1].mapping.lat reads the key "geo_lati", which none of the one record has: an earlier step adds "geo_lat": map to it as written; each row reads it as absent (an optional field left out, a required one failing)',
    ]);
  });

  it('says nothing of a key some record has, nor of a column an earlier step adds', async () => {
    file(
      's.ndjson',
      '{"id":1,"plz":"76133","ort":"Karlsruhe"}\n{"id":2,"plz":"10117","ort":"Berlin","note":"x"}\n',
    );
    const job = file(
      's.yaml',
      'input: s.ndjson\noutput: s.out.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort, street: note }\n  - job: elevation\n    mapping: { lon: geo_lon, lat: geo_lat }\n',
    );
    expect((await run(job, true)).warnings.filter((w) => w.includes('none of'))).toEqual([]);
  });
});
