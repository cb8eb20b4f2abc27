/**
 * area-export's countries and languages (the area interface's isoCountries and isoLanguages): each
 * reaches the wire only when set, a bad value is refused at load, and answers kept for one value
 * are not taken for another.
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { runJobFile } from '../../src/index.js';
import { configError } from '../fixtures/config-error.js';
import { recordingEmulator } from '../fixtures/recording-emulator.js';
import { read, tempDir, write } from '../fixtures/run-helpers.js';

describe('area-export countries and languages, from the job file', () => {
  const { seen, handle } = recordingEmulator();

  const dir = tempDir();
  // Karlsruhe's district (the emulator's 08212), by its OSM id.
  const input = write(join(dir, 'ids.csv'), 'id\n60008212\n');
  const cache = { location: join(dir, 'cache.sqlite') };
  /** A job file with these options, run against the emulator over one cache file. */
  async function run(options: string) {
    const file = write(
      join(dir, 'job.yaml'),
      `job: area-export\ninput: ${input}\noutput: ${join(dir, 'out.csv')}\nmapping: { osmid: id }\noptions: { geometryColumn: none, ${options} }\n`,
    );
    seen.length = 0;
    const summary = await runJobFile(file, { emulator: handle(), cache });
    const bodies = seen.filter((s) => s.interface === 'area').map((s) => s.body as Record<string, unknown>);
    const rows = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    return { summary, bodies, rows };
  }

  it('sends countries as isoCountries and languages as isoLanguages, only when set', async () => {
    const set = await run('countries: [de], languages: [DE, en]');
    expect(set.bodies).toHaveLength(1);
    expect(set.bodies[0]).toMatchObject({ isoCountries: ['DE'], isoLanguages: ['de', 'en'] });
    expect(set.rows[0]?.area_name).not.toBe('');
    // The emulator has German areas only: limited to Austria, it finds none.
    const austria = await run('countries: [AT]');
    expect(austria.bodies[0]).toMatchObject({ isoCountries: ['AT'] });
    expect(austria.rows[0]?.geobatch_status).not.toBe('ok');
    const unset = await run('lingerMs: 0');
    expect(unset.bodies[0]).not.toHaveProperty('isoCountries');
    expect(unset.bodies[0]).not.toHaveProperty('isoLanguages');
  });

  it('asks again for other countries or languages, not the answer kept for the first', async () => {
    const first = 'countries: [DE], languages: [de]';
    expect((await run(first)).bodies).toHaveLength(1);
    expect((await run(first)).bodies).toHaveLength(0);
    for (const other of ['countries: [DE, AT], languages: [de]', 'countries: [DE], languages: [en]'])
      expect((await run(other)).bodies, other).toHaveLength(1);
  });

  it('refuses a setting not in the form the service takes, naming the option and what it expects', () => {
    const load = (options: string) =>
      configError(() =>
        parseJobFile(
          `job: area-export\ninput: in.csv\noutput: out.csv\nmapping: { osmid: id }\noptions: { ${options} }\n`,
          '/jobs/a.yaml',
          {},
        ),
      );
    const cases: [string, string, string][] = [
      ['countries: [Deutschland]', 'options.countries[0]', 'an ISO country code such as DE'],
      ['countries: []', 'options.countries', 'at least 1'],
      ['languages: [deutsch]', 'options.languages[0]', 'an ISO 639-1 language code such as de'],
      ['languages: de', 'options.languages', 'array'],
    ];
    for (const [bad, path, expected] of cases) {
      const error = load(bad);
      expect(error.code, bad).toBe('CONFIG_INVALID');
      expect(error.context.path, bad).toBe(path);
      expect(error.context.expected, bad).toContain(expected);
    }
  });
});
