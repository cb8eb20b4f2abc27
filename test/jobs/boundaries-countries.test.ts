/**
 * The boundaries job's `countries`, the spec's isoCountries: sent only when set, in the POST and
 * the GET form alike, refused at load when it is no list of ISO country codes, and part of what
 * the area cache keeps areas under, so that a run limited to other countries does not reuse the
 * first's.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import type { RequestInfo } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import { configError } from '../fixtures/config-error.js';
import { recordingEmulator } from '../fixtures/recording-emulator.js';
import { tempDir, write } from '../fixtures/run-helpers.js';

const dir = tempDir();
const input = write(join(dir, 'points.csv'), 'id,lon,lat\n1,11.575,48.137\n2,8.4037,49.0069\n');
const jobText = (options: string) =>
  `job: boundaries\ninput: ${input}\noutput: ${join(dir, 'out.csv')}\noptions: { levels: [4], ${options} }\n`;

describe('boundaries: countries, sent as isoCountries', () => {
  const { seen, handle } = recordingEmulator();

  /** Runs the job over a cache file (`cache`.sqlite); its summary and the area requests it sent. */
  async function run(options: string, cache = 'cache') {
    const file = write(join(dir, 'job.yaml'), jobText(options));
    seen.length = 0;
    const summary = await runJobFile(file, {
      emulator: handle(),
      cache: { location: join(dir, `${cache}.sqlite`) },
    });
    return { summary, requests: seen.filter((s) => s.interface === 'area') };
  }
  const bodyCountries = (r: RequestInfo) => (r.body as { isoCountries?: unknown }).isoCountries;

  it('sends them only when set, in the POST body and the GET query alike', async () => {
    // Written in any case, sent upper-case as the service writes them.
    const posted = await run('countries: [de]');
    expect(posted.summary.rows.failed).toBe(0);
    expect(posted.requests.length).toBeGreaterThan(0);
    for (const r of posted.requests) expect(bodyCountries(r)).toEqual(['DE']);
    const got = await run('countries: [DE, at], spatialIndex: false', 'get');
    expect(got.requests.length).toBeGreaterThan(0);
    for (const r of got.requests) expect(r.query.get('isoCountries')).toBe('DE,AT');
    const none = await run('', 'none');
    for (const r of none.requests) {
      expect(bodyCountries(r)).toBeUndefined();
      expect(r.query.has('isoCountries')).toBe(false);
    }
  });

  it('asks again for other countries, not the areas kept for the first', async () => {
    expect((await run('countries: [DE]', 'again')).requests.length).toBeGreaterThan(0);
    // The same countries again: the kept areas, so the cache is in play...
    expect((await run('countries: [DE]', 'again')).requests).toEqual([]);
    // ...but not for others: the emulator has German areas only, so Austria's finds none.
    const austria = await run('countries: [AT]', 'again');
    expect(austria.requests.length).toBeGreaterThan(0);
    for (const r of austria.requests) expect(bodyCountries(r)).toEqual(['AT']);
    expect(austria.summary.rows.failed).toBe(2);
  });

  it('refuses what is no list of ISO country codes, naming the entry', () => {
    const refused = (options: string) =>
      configError(() => parseJobFile(jobText(options), '/jobs/b.yaml', {}));
    for (const [options, path, expected] of [
      ['countries: [Deutschland]', 'options.countries[0]', 'an ISO country code such as DE'],
      ['countries: [DE, D1]', 'options.countries[1]', 'an ISO country code such as DE'],
      ['countries: []', 'options.countries', 'at least 1'],
      ['countries: DE', 'options.countries', 'array'],
    ] as const) {
      const error = refused(options);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe(path);
      expect(error.context.expected).toContain(expected);
    }
  });
});
