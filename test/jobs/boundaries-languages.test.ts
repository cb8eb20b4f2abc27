/**
 * The boundaries job's `languages`, the spec's isoLanguages: sent only when set, in the POST and
 * the GET form alike, refused at load when it is no list of ISO 639-1 codes, and part of what the
 * area cache keeps areas under, so that a run asking other languages does not reuse the first's.
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

describe('boundaries: languages, sent as isoLanguages', () => {
  const { seen, handle } = recordingEmulator();

  /** Runs the job over a cache file (`cache`.sqlite); the area requests it sent. */
  async function run(options: string, cache = 'cache') {
    const file = write(join(dir, 'job.yaml'), jobText(options));
    seen.length = 0;
    const summary = await runJobFile(file, {
      emulator: handle(),
      cache: { location: join(dir, `${cache}.sqlite`) },
    });
    expect(summary.rows.failed).toBe(0);
    return seen.filter((s) => s.interface === 'area');
  }
  const bodyLanguages = (r: RequestInfo) => (r.body as { isoLanguages?: unknown }).isoLanguages;

  it('sends them only when set, in the POST body and the GET query alike', async () => {
    // Written in any case, sent in the spec's lower case.
    const posted = await run('languages: [en, DE]');
    expect(posted.length).toBeGreaterThan(0);
    for (const r of posted) expect(bodyLanguages(r)).toEqual(['en', 'de']);
    // Another cache file: the areas the POSTs brought would answer the GETs.
    const got = await run('languages: [en, de], spatialIndex: false', 'get');
    expect(got.length).toBeGreaterThan(0);
    for (const r of got) expect(r.query.get('isoLanguages')).toBe('en,de');
    const none = await run('', 'none');
    expect(none.length).toBeGreaterThan(0);
    for (const r of none) {
      expect(bodyLanguages(r)).toBeUndefined();
      expect(r.query.has('isoLanguages')).toBe(false);
    }
  });

  it('asks again for other languages, not the areas kept for the first', async () => {
    expect((await run('languages: [it]')).length).toBeGreaterThan(0);
    // The same languages again: the kept areas, so the cache is in play...
    expect(await run('languages: [it]')).toEqual([]);
    // ...but not for others.
    const french = await run('languages: [fr]');
    expect(french.length).toBeGreaterThan(0);
    for (const r of french) expect(bodyLanguages(r)).toEqual(['fr']);
  });

  it('refuses what is no list of ISO 639-1 codes, naming the entry', () => {
    const refused = (options: string) =>
      configError(() => parseJobFile(jobText(options), '/jobs/b.yaml', {}));
    for (const [options, path, expected] of [
      ['languages: [english]', 'options.languages[0]', 'an ISO 639-1 language code such as de or en'],
      ['languages: [de, d1]', 'options.languages[1]', 'an ISO 639-1 language code such as de or en'],
      ['languages: []', 'options.languages', 'at least 1'],
      ['languages: de', 'options.languages', 'array'],
    ] as const) {
      const error = refused(options);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe(path);
      expect(error.context.expected).toContain(expected);
    }
  });
});
