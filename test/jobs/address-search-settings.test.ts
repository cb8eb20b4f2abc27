/**
 * The address search's request settings a job file gives (locale, catchwords, country,
 * freeFilter, distanceFrom): each reaches the wire only when set, a bad value is refused at load,
 * and answers kept for one value are not taken for another.
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { runJobFile } from '../../src/index.js';
import { planSearch } from '../../src/jobs/_search-forms.js';
import { configError } from '../fixtures/config-error.js';
import { recordingEmulator } from '../fixtures/recording-emulator.js';
import { read, tempDir, write } from '../fixtures/run-helpers.js';
import { row } from './_rows.js';

describe('address-search request settings, from the job file', () => {
  const { seen, handle } = recordingEmulator();

  const dir = tempDir();
  const input = write(join(dir, 'offices.csv'), 'id,lon,lat\n1,8.4037,49.0069\n');
  const cache = { location: join(dir, 'cache.sqlite') };
  /** A job file with these options, run against the emulator over one cache file. */
  async function run(options: string) {
    const file = write(
      join(dir, 'job.yaml'),
      `job: address-search\ninput: ${input}\noutput: ${join(dir, 'out.csv')}\nmapping: { lon: lon, lat: lat }\noptions: { branches: "1301", ${options} }\n`,
    );
    seen.length = 0;
    const summary = await runJobFile(file, { emulator: handle(), cache });
    return { summary, queries: seen.filter((s) => s.interface === 'addressSearch').map((s) => s.query) };
  }

  it('sends IsoLocale and Catchwords only when set', async () => {
    const set = await run('locale: en-GB, catchwords: "sparkasse karlsruhe"');
    expect(set.queries).toHaveLength(1);
    expect(set.queries[0]?.get('IsoLocale')).toBe('en-GB');
    expect(set.queries[0]?.get('Catchwords')).toBe('sparkasse karlsruhe');
    // The emulator names its categories in English for an English locale.
    expect(read(join(dir, 'out.csv'))).toContain('Banks/Insurance');
    const unset = await run('nearest: 2');
    expect(unset.queries).toHaveLength(1);
    expect(unset.queries[0]?.has('IsoLocale')).toBe(false);
    expect(unset.queries[0]?.has('Catchwords')).toBe(false);
    for (const name of ['IsoCountryCode', 'FreeFilter'])
      expect(unset.queries[0]?.has(name), name).toBe(false);
  });

  it("sends a position search's own point as Addition without distanceFrom, so every hit has a distance", async () => {
    // The spec: without both Addition keys "the field stays empty"; the emulator follows it.
    const unset = await run('nearest: 3, mode: explode');
    expect(unset.queries).toHaveLength(1);
    const query = unset.queries[0];
    expect(query?.get('Addition')).toBe(
      'LocXForDistanceCalculation=8.4037&LocYForDistanceCalculation=49.0069',
    );
    expect(query?.get('LocX')).toBe('8.4037');
    const rows = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(3);
    for (const hit of rows) {
      expect(hit.near_distance_m).toMatch(/^\d+$/);
      expect(Number(hit.near_distance_m)).toBeLessThan(5000);
    }
  });

  it('sends country as IsoCountryCode, freeFilter as FreeFilter and distanceFrom as Addition', async () => {
    const set = await run(
      'country: Deutschland, freeFilter: "Premium=1", distanceFrom: { lon: 13.788, lat: 51.045 }',
    );
    expect(set.queries).toHaveLength(1);
    const query = set.queries[0];
    expect(query?.get('IsoCountryCode')).toBe('DE');
    expect(query?.get('FreeFilter')).toBe('Premium=1');
    // One parameter whose pairs arrived as %3D/%26: sent bare, they would be top-level parameters.
    expect(query?.get('Addition')).toBe(
      'LocXForDistanceCalculation=13.788&LocYForDistanceCalculation=51.045',
    );
    expect(query?.has('LocYForDistanceCalculation')).toBe(false);
    // Karlsruhe's bank measured from Dresden, not from the search point beside it.
    const [first] = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    expect(Number(first?.near_distance_m)).toBeGreaterThan(400_000);
    // Another country: the emulator has records in Germany only.
    const austria = await run('country: AT');
    expect(austria.queries[0]?.get('IsoCountryCode')).toBe('AT');
    const [none] = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    expect(none?.near_count).toBe('0');
  });

  it('asks again for another country, filter or reference point, not the answer kept for the first', async () => {
    const settings = ['country: DE, freeFilter: a, distanceFrom: { lon: 13.788, lat: 51.045 }'];
    settings.push(settings[0]?.replace('country: DE', 'country: AT') ?? '');
    settings.push(settings[0]?.replace('freeFilter: a', 'freeFilter: b') ?? '');
    settings.push(settings[0]?.replace('lon: 13.788', 'lon: 13.789') ?? '');
    expect((await run(settings[0] ?? '')).summary.requests.http).toBe(1);
    expect((await run(settings[0] ?? '')).summary.requests.http).toBe(0);
    for (const other of settings.slice(1)) expect((await run(other)).summary.requests.http, other).toBe(1);
  });

  it('asks again for another locale or other catchwords, not the answer kept for the first', async () => {
    const first = await run('locale: de-DE, catchwords: bank');
    expect(first.summary.requests.http).toBe(1);
    // The same options again: the kept answer, so the cache is in play.
    expect((await run('locale: de-DE, catchwords: bank')).summary.requests.http).toBe(0);
    const english = await run('locale: en-GB, catchwords: bank');
    expect(english.summary.requests.http).toBe(1);
    expect(english.queries[0]?.get('IsoLocale')).toBe('en-GB');
    expect(read(join(dir, 'out.csv'))).toContain('Banks/Insurance');
    // Written in another case or with the POSIX underscore, it is the same locale: sent as en-GB,
    // and answered from the entry en-GB left.
    expect((await run('locale: en_gb, catchwords: bank')).summary.requests.http).toBe(0);
    const other = await run('locale: de-DE, catchwords: sparkasse');
    expect(other.summary.requests.http).toBe(1);
    expect(other.queries[0]?.get('Catchwords')).toBe('sparkasse');
  });

  it('refuses a setting not in the form the service takes, naming the option and what it expects', () => {
    const load = (options: string) =>
      configError(() =>
        parseJobFile(
          `job: address-search\ninput: in.csv\noutput: out.csv\noptions: { branches: "1", ${options} }\n`,
          '/jobs/a.yaml',
          {},
        ),
      );
    for (const bad of ['english', 'en-GBR', 'e-GB', 'en GB']) {
      const error = load(`locale: ${bad}`);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe('options.locale');
      expect(error.context.expected).toContain('a locale such as de-DE or en-GB');
    }
    for (const bad of ['""', '"bank  filiale"', '" bank"']) {
      const error = load(`catchwords: ${bad}`);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe('options.catchwords');
      expect(error.context.expected).toContain('terms separated by single spaces');
    }
    for (const bad of ['GER', 'BRD', 'X']) {
      const error = load(`country: ${bad}`);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe('options.country');
      expect(error.context.expected).toContain('an ISO country code such as DE');
    }
    const filter = load('freeFilter: ""');
    expect(filter.code).toBe('CONFIG_INVALID');
    expect(filter.context.path).toBe('options.freeFilter');
    expect(filter.context.expected).toContain('expected a non-empty string');
    const cases: [string, string, string][] = [
      ['{ lon: 200, lat: 49 }', 'options.distanceFrom.lon', 'expected at most 180'],
      ['{ lon: 8.4, lat: -91 }', 'options.distanceFrom.lat', 'expected at least -90'],
      ['{ lon: 8.4 }', 'options.distanceFrom.lat', 'number'],
      ['{ x: 8.4, y: 49 }', 'options.distanceFrom.lon', 'number'],
    ];
    for (const [bad, path, expected] of cases) {
      const error = load(`distanceFrom: ${bad}`);
      expect(error.code, bad).toBe('CONFIG_INVALID');
      expect(error.context.path, bad).toBe(path);
      expect(error.context.expected, bad).toContain(expected);
    }
  });
});

describe("address-search's job-wide country", () => {
  const mapping = { zip: { column: 'plz' }, country: { column: 'land' } };

  it("is each row's country, unless the row gives its own", () => {
    const given = planSearch(
      'address',
      row({ plz: '6020', land: 'Österreich' }),
      mapping,
      'GEODECIMAL_POINT',
      'DE',
    );
    const fallback = planSearch('address', row({ plz: '1010', land: '' }), mapping, 'GEODECIMAL_POINT', 'AT');
    expect(given).toMatchObject({ params: { IsoCountryCode: 'AT', Zip: '6020' } });
    // Austria's 1010 stays four digits: no German postcode lost its leading zero.
    expect(fallback).toMatchObject({ params: { IsoCountryCode: 'AT', Zip: '1010' } });
  });
});
