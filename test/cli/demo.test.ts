import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getIssues } from '@placemarkio/check-geojson';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoResult, runDemo } from '../../src/cli/demo.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { JOB_KIND_NAMES } from '../../src/jobs/index.js';
import { guardFormula } from '../../src/output/_cells.js';

const SAMPLES = new URL('../../samples/', import.meta.url);

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = await mkdtemp(join(tmpdir(), 'geobatch-demo-'));
});

afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

async function sample(name: string): Promise<Record<string, string>[]> {
  const text = await readFile(new URL(name, SAMPLES), 'utf8');
  return Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
}

const byJob = (results: readonly DemoResult[], kind: string): DemoResult => {
  const found = results.find((r) => r.summary.job === kind);
  if (found === undefined) throw new Error(`no ${kind} job in the demo`);
  return found;
};

/** Valid, distinct points of a sample, computed here independently of the job code. */
function distinctPoints(rows: Record<string, string>[]): number {
  const valid = rows
    .map((r) => [Number(r.lon), Number(r.lat)])
    .filter(
      ([lon, lat]) => r(lon) && r(lat) && Math.abs(lat as number) <= 90 && Math.abs(lon as number) <= 180,
    );
  return new Set(valid.map(([lon, lat]) => `${lon?.toFixed(6)},${lat?.toFixed(6)}`)).size;
  function r(n: number | undefined) {
    return n !== undefined && Number.isFinite(n);
  }
}

describe('the demo', () => {
  let results: DemoResult[];

  beforeAll(async () => {
    results = await runDemo({ emulator, output: join(dir, 'csv') });
  });

  it('finishes every sample job with exactly the planted failures in each error report', () => {
    // Every job file in jobs/ ran, and every job kind the registry has is in at least one of them.
    const jobFiles = readdirSync(new URL('../../jobs/', import.meta.url)).filter((f) => f.endsWith('.yaml'));
    expect(results).toHaveLength(jobFiles.length);
    // Each is held to its planted failures: one without an entry passed unchecked, the demo
    // still closing with "each error report holds exactly the planted failures".
    const planted = JSON.parse(
      readFileSync(new URL('../../samples/expected-failures.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    expect(jobFiles.map((f) => f.replace(/\.yaml$/, '')).filter((name) => !(name in planted))).toEqual([]);
    const ran = new Set(results.flatMap((r) => r.summary.job.split('+')));
    expect(JOB_KIND_NAMES.filter((kind) => !ran.has(kind))).toEqual([]);
    for (const result of results) {
      expect(result.summary.ended, result.summary.job).toBe('complete_with_failures');
      expect(result.unexpected, result.summary.job).toEqual([]);
      expect(result.summary.rows.read).toBe(result.summary.rows.ok + result.summary.rows.failed);
      // Each request asked was answered at least once; retries and hedges are answered again.
      expect(result.asked, result.summary.job).toBeGreaterThan(0);
      expect(result.served, result.summary.job).toBeGreaterThanOrEqual(result.asked);
    }
  });

  it('sends ceil(points / 500) elevation requests, as the emulator counts them', async () => {
    const points = distinctPoints(await sample('places.csv'));
    expect(points).toBeGreaterThan(1900);
    expect(byJob(results, 'elevation').asked).toBe(Math.ceil(points / 500));
  });

  it('sends ceil(keys / batch) customer-lookup requests', async () => {
    const keys = new Set((await sample('suppliers.csv')).map((r) => r.supplier_key).filter((k) => k));
    expect(byJob(results, 'customer-lookup').asked).toBe(Math.ceil(keys.size / 50));
  });

  it('sends one trip request per tour of two or more stops, and ceil(fixes / 950) match requests per track', async () => {
    const stops = new Map<string, number>();
    for (const r of await sample('trips.csv'))
      stops.set(r.trip_id ?? '', (stops.get(r.trip_id ?? '') ?? 0) + 1);
    const tours = [...stops.values()].filter((n) => n >= 2).length;
    expect(byJob(results, 'trip').asked).toBe(tours);
    const fixes = new Map<string, number>();
    for (const r of await sample('tracks.csv'))
      fixes.set(r.track_id ?? '', (fixes.get(r.track_id ?? '') ?? 0) + 1);
    // The planted rows (a bad time, a missing latitude, a track that comes again) change no window count here.
    const windows = [...fixes.values()].reduce((sum, n) => sum + Math.ceil(n / 950), 0);
    expect(byJob(results, 'match').asked).toBe(windows);
  });

  it('answers boundaries with requests for at most 10% of the rows', () => {
    const boundaries = byJob(results, 'boundaries');
    expect(boundaries.asked).toBeGreaterThan(0);
    expect(boundaries.asked).toBeLessThanOrEqual(0.1 * boundaries.summary.rows.read);
    expect(boundaries.summary.requests.savedByLocalAnswers).toBeGreaterThan(0);
  });

  it('sends one autocomplete request per distinct text, plus one token for the whole run', async () => {
    const texts = (await sample('place-entries.csv'))
      .map((r) => (r.typed ?? '').trim().replace(/\s+/g, ' ').toLowerCase())
      .filter((t) => t !== '');
    expect(byJob(results, 'autocomplete').asked).toBe(new Set(texts).size + 1);
  });

  it('exports areas by id in ceil(distinct ids / 50) requests', async () => {
    const ids = (await sample('areas.csv'))
      .map((r) => /^(?:r|relation\/)?(\d+)$/.exec(r.osmid ?? '')?.[1])
      .filter((id) => id !== undefined);
    const byIds = results.find((r) => r.file.endsWith('area-export.yaml'));
    expect(byIds?.asked).toBe(Math.ceil(new Set(ids).size / 50));
  });

  it('sends origins x ceil(destinations / tile) matrix requests', async () => {
    const origins = (await sample('depots.csv')).filter((r) => r.lat && r.lon).length;
    const destinations = (await sample('stores.csv')).length;
    expect(byJob(results, 'matrix').asked).toBe(origins * Math.ceil(destinations / 100));
  });
});

describe('demo --jobs', () => {
  it('refuses a directory that does not exist as a usage error naming it, not an errno', async () => {
    const error = await runDemo({ emulator, jobs: join(dir, 'no-jobs-here') }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'USAGE',
      message: `--jobs: ${join(dir, 'no-jobs-here')} does not exist`,
      context: { field: 'jobs', file: join(dir, 'no-jobs-here') },
    });
  });

  it("does not hold a user's job to a sample's planted failures because it shares its name", async () => {
    const mine = join(dir, 'my-jobs');
    await mkdir(mine, { recursive: true });
    await writeFile(join(mine, 'in.csv'), 'id,street,housenumber,plz,city\n1,Kirchstraße,1,54441,Kanzem\n');
    await writeFile(
      join(mine, 'geocode.yaml'),
      'job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }\n',
    );
    const [result] = await runDemo({ emulator, jobs: mine, output: join(dir, 'mine-out') });
    expect(result).toMatchObject({ checked: false, unexpected: [] });
    expect(result?.summary.rows).toMatchObject({ read: 1, ok: 1 });
  });

  it('refuses a directory without job files rather than finish having run none', async () => {
    const empty = join(dir, 'empty-jobs');
    await mkdir(empty, { recursive: true });
    await writeFile(join(empty, 'notes.txt'), 'not a job');
    const error = await runDemo({ emulator, jobs: empty }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'USAGE', message: `--jobs: ${empty} holds no job files` });
  });
});

describe('demo outputs', () => {
  it('are valid GeoJSON when written as GeoJSON', async () => {
    const results = await runDemo({ emulator, output: join(dir, 'geojson'), format: 'geojson' });
    for (const { summary } of results) {
      if (summary.output === null) throw new Error('no output');
      const text = await readFile(summary.output.path, 'utf8');
      expect(getIssues(text), summary.job).toEqual([]);
      expect(JSON.parse(text).features.length, summary.job).toBe(summary.output.records);
    }
  });

  it('read back from CSV by a second parser give the same rows as the NDJSON output', async () => {
    const csv = await runDemo({ emulator, output: join(dir, 'both'), format: 'csv' });
    const ndjson = await runDemo({ emulator, output: join(dir, 'both'), format: 'ndjson' });
    // The formula guard is CSV-only: text that looks like a formula gets a leading quote.
    const guarded = (value: unknown) =>
      value === null || value === undefined ? '' : guardFormula(String(value));
    for (const [i, result] of csv.entries()) {
      const json = ndjson[i]?.summary.output;
      if (result.summary.output === null || json === undefined || json === null) throw new Error('no output');
      const parsed = Papa.parse<Record<string, string>>(await readFile(result.summary.output.path, 'utf8'), {
        header: true,
        skipEmptyLines: true,
      });
      expect(parsed.errors, result.summary.job).toEqual([]);
      const lines = (await readFile(json.path, 'utf8')).split('\n').filter((l) => l !== '');
      // CSV has one header for all rows; a record NDJSON writes without some input keys (a feature
      // that could not be read has no properties) shows those cells empty in CSV.
      const header = parsed.meta.fields ?? [];
      const expected = lines.map((l) => {
        const record = JSON.parse(l) as Record<string, unknown>;
        expect(
          Object.keys(record).every((k) => header.includes(k)),
          result.summary.job,
        ).toBe(true);
        return Object.fromEntries(header.map((k) => [k, guarded(record[k])]));
      });
      expect(parsed.data, result.summary.job).toEqual(expected);
    }
  });
});

describe('the demo of an installed package', () => {
  it('writes into ./geobatch-demo, never into node_modules', async () => {
    const { defaultDemoOutput } = await import('../../src/cli/demo.js');
    expect(defaultDemoOutput('/srv/app/node_modules/geobatch/', '/srv/app')).toBe('/srv/app/geobatch-demo');
    expect(defaultDemoOutput('/home/me/geobatch/', '/home/me/geobatch')).toBeUndefined();
  });
});

describe('demo --output with job files outside the package', () => {
  it('writes every file under --output, named by each job, and nothing where the job files point', async () => {
    const elsewhere = join(dir, 'elsewhere');
    const jobs = join(elsewhere, 'jobs');
    const theirs = join(elsewhere, 'out');
    await mkdir(jobs, { recursive: true });
    await mkdir(theirs);
    const kept = join(theirs, 'community-centres.geocoded.csv');
    await writeFile(kept, 'not to be overwritten\n');
    // The package's geocode job, its input made absolute: its output stays ../out/..., outside --output.
    const text = (await readFile(new URL('../../jobs/geocode.yaml', import.meta.url), 'utf8')).replace(
      '../samples/',
      fileURLToPath(SAMPLES),
    );
    await writeFile(join(jobs, 'geocode.yaml'), text);
    await writeFile(join(jobs, 'geocode-again.yaml'), `${text}report: ../out/custom.report.html\n`);
    const demo = join(elsewhere, 'demo');
    const results = await runDemo({ emulator, jobs, output: demo });
    expect(results.map((r) => r.unexpected)).toEqual([[], []]);
    // geocode-again is no sample job: not held to the geocode sample's planted failures.
    expect(results.map((r) => r.checked)).toEqual([true, false]);
    expect(readdirSync(theirs)).toEqual(['community-centres.geocoded.csv']);
    expect(await readFile(kept, 'utf8')).toBe('not to be overwritten\n');
    // The second job's output has the first one's name: it gets its job's name in front.
    expect(readdirSync(demo).sort()).toEqual([
      'community-centres.geocoded.csv',
      'community-centres.geocoded.csv.report.html',
      'community-centres.geocoded.csv.summary.json',
      'community-centres.geocoded.errors.csv',
      'custom.report.html',
      'geocode-again.community-centres.geocoded.csv',
      'geocode-again.community-centres.geocoded.csv.summary.json',
      'geocode-again.community-centres.geocoded.errors.csv',
    ]);
  });
});
