/**
 * The autocomplete request settings a job file gives (languages, boostNear, boostBox): each
 * reaches the wire only when set, a bad value is refused at load, and answers kept for one value
 * are not taken for another.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import type { AutocompleteRequest } from '../../src/contract/index.js';
import { runJobFile } from '../../src/index.js';
import { configError } from '../fixtures/config-error.js';
import { recordingEmulator } from '../fixtures/recording-emulator.js';
import { tempDir, write } from '../fixtures/run-helpers.js';

describe('autocomplete request settings, from the job file', () => {
  const { seen, handle } = recordingEmulator();

  const dir = tempDir();
  const input = write(join(dir, 'typed.csv'), 'id,typed\n1,Neustadt\n');
  const cache = { location: join(dir, 'cache.sqlite') };
  /** A job file with these options, run against the emulator over one cache file. */
  async function run(options: string) {
    const file = write(
      join(dir, 'job.yaml'),
      `job: autocomplete\ninput: ${input}\noutput: ${join(dir, 'out.csv')}\nmapping: { query: typed }\noptions: { top: 3, ${options} }\n`,
    );
    seen.length = 0;
    const summary = await runJobFile(file, { emulator: handle(), cache });
    const bodies = seen
      .filter((s) => s.interface === 'autocomplete')
      .map((s) => s.body as AutocompleteRequest);
    return { summary, bodies };
  }

  it('sends languages as isoLanguages and the boosts with their point and rectangle, only when set', async () => {
    const set = await run(
      'languages: [EN, de], boostNear: { lon: 8.4, lat: 49.0, radius: 20000, weight: 0.5 }, ' +
        'boostBox: { west: 7.5, south: 47.5, east: 10.5, north: 49.8, weight: 0.3 }',
    );
    expect(set.bodies).toHaveLength(1);
    expect(set.bodies[0]).toMatchObject({
      isoLanguages: ['en', 'de'],
      center: { latitude: 49.0, longitude: 8.4 },
      boundingbox: {
        leftDown: { latitude: 47.5, longitude: 7.5 },
        rightUp: { latitude: 49.8, longitude: 10.5 },
      },
      boostOptions: { proximityBoost: { radius: 20000, value: 0.5 }, boundingBoxBoost: { value: 0.3 } },
    });
    // A boost is no filter: the rectangle only ranks.
    expect(set.bodies[0]?.filterOptions?.inBoundingBox).toBeUndefined();
    const unset = await run('withZip: false');
    expect(unset.bodies).toHaveLength(1);
    for (const key of ['isoLanguages', 'center', 'boundingbox', 'boostOptions'])
      expect(unset.bodies[0], key).not.toHaveProperty(key);
  });

  it('asks again for other languages or boosts, not the answer kept for the first', async () => {
    const first = 'languages: [de], boostNear: { lon: 8.4, lat: 49.0, radius: 20000, weight: 0.5 }';
    // Counted by the autocomplete requests the emulator saw: the token's are not answers.
    expect((await run(first)).bodies).toHaveLength(1);
    expect((await run(first)).bodies).toHaveLength(0);
    for (const other of [
      first.replace('[de]', '[en]'),
      first.replace('weight: 0.5', 'weight: 0.6'),
      first.replace('lon: 8.4', 'lon: 13.4'),
      `${first}, boostBox: { west: 7.5, south: 47.5, east: 10.5, north: 49.8, weight: 0.3 }`,
    ])
      expect((await run(other)).bodies, other).toHaveLength(1);
  });

  it('refuses a setting not in the form the service takes, naming the option and what it expects', () => {
    const load = (options: string) =>
      configError(() =>
        parseJobFile(
          `job: autocomplete\ninput: in.csv\noutput: out.csv\nmapping: { query: q }\noptions: { ${options} }\n`,
          '/jobs/a.yaml',
          {},
        ),
      );
    const cases: [string, string, string][] = [
      ['languages: [german]', 'options.languages[0]', 'an ISO 639-1 language code such as de'],
      ['languages: []', 'options.languages', 'at least 1'],
      ['boostNear: { lon: 8.4, lat: 49, radius: 0, weight: 1 }', 'options.boostNear.radius', 'more than 0'],
      ['boostNear: { lon: 8.4, lat: 99, radius: 5, weight: 1 }', 'options.boostNear.lat', 'at most 90'],
      ['boostNear: { lon: 8.4, lat: 49, radius: 5 }', 'options.boostNear.weight', 'number'],
      [
        'boostBox: { west: 10, south: 47, east: 8, north: 49, weight: 1 }',
        'options.boostBox',
        'a rectangle whose west is not east of its east',
      ],
      [
        'boostBox: { west: 7, south: 47, east: 8, north: 49, weight: -1 }',
        'options.boostBox.weight',
        'more than 0',
      ],
    ];
    for (const [bad, path, expected] of cases) {
      const error = load(bad);
      expect(error.code, bad).toBe('CONFIG_INVALID');
      expect(error.context.path, bad).toBe(path);
      expect(error.context.expected, bad).toContain(expected);
    }
  });
});
