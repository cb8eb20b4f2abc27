/**
 * routingparams.isoLocale from a job file, in every routing kind: sent only when set, refused at
 * load when it is no locale, and part of what an answer is kept under, so that a run in another
 * language does not reuse the answers kept for the first.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { runJobFile } from '../../src/index.js';
import { configError } from '../fixtures/config-error.js';
import { recordingEmulator } from '../fixtures/recording-emulator.js';
import { tempDir, write } from '../fixtures/run-helpers.js';

/** Each kind's smallest job: a mapping and an input. */
const KINDS = {
  route: {
    mapping: '{ originLon: a, originLat: b, destinationLon: c, destinationLat: d }',
    input: 'id,a,b,c,d\n1,8.4037,49.0069,8.4278,49.0133\n',
  },
  trip: {
    mapping: '{ trip: t, lon: lon, lat: lat }',
    input: 'id,t,lon,lat\n1,T,8.4037,49.0069\n2,T,8.4278,49.0133\n3,T,8.3800,48.9900\n',
  },
  match: {
    mapping: '{ track: t, lon: lon, lat: lat }',
    input: 'id,t,lon,lat\n1,T,8.4037,49.0069\n2,T,8.4050,49.0072\n3,T,8.4065,49.0076\n',
  },
  isochrone: {
    mapping: '{ lon: lon, lat: lat, minutes: { value: 5 } }',
    input: 'id,lon,lat\n1,8.4037,49.0069\n',
  },
  matrix: {
    mapping: '{ originLon: a, originLat: b, destinationLon: c, destinationLat: d }',
    input: 'id,a,b,c,d\n1,8.4037,49.0069,8.4278,49.0133\n',
  },
} as const;

type Kind = keyof typeof KINDS;

const jobText = (kind: Kind, options: string, dir: string) =>
  `job: ${kind}\ninput: ${join(dir, `${kind}.csv`)}\noutput: ${join(dir, `${kind}.out.csv`)}\nmapping: ${KINDS[kind].mapping}\noptions: { ${options} }\n`;

describe('routing kinds: locale, sent as routingparams.isoLocale', () => {
  const { seen, handle } = recordingEmulator();
  const dir = tempDir();

  /** Runs `kind` with these options over the kind's own cache file; the routing bodies it sent. */
  async function run(kind: Kind, options: string) {
    write(join(dir, `${kind}.csv`), KINDS[kind].input);
    const file = write(join(dir, `${kind}.yaml`), jobText(kind, options, dir));
    seen.length = 0;
    const summary = await runJobFile(file, {
      emulator: handle(),
      cache: { location: join(dir, `${kind}.sqlite`) },
    });
    const params = seen
      .filter((s) => s.interface === 'routing')
      .map((s) => (s.body as { routingparams: Record<string, unknown> }).routingparams);
    return { summary, params };
  }

  it.each(Object.keys(KINDS) as Kind[])(
    '%s: sends it only when set, and asks again in another language',
    async (kind) => {
      const english = await run(kind, 'locale: en-GB');
      expect(english.summary.rows.failed).toBe(0);
      expect(english.params.length).toBeGreaterThan(0);
      for (const p of english.params) expect(p.isoLocale).toBe('en-GB');
      // The same options again: the kept answers, so the cache is in play...
      expect((await run(kind, 'locale: en-GB')).params).toEqual([]);
      // ...but not for another language, nor for none.
      const french = await run(kind, 'locale: fr-FR');
      expect(french.params.length).toBeGreaterThan(0);
      for (const p of french.params) expect(p.isoLocale).toBe('fr-FR');
      const none = await run(kind, '');
      expect(none.params.length).toBeGreaterThan(0);
      for (const p of none.params) expect(p).not.toHaveProperty('isoLocale');
    },
  );

  it.each(Object.keys(KINDS) as Kind[])('%s: refuses a locale that is no locale, naming it', (kind) => {
    for (const bad of ['english', 'en-GBR', '""']) {
      const error = configError(() => parseJobFile(jobText(kind, `locale: ${bad}`, dir), '/jobs/j.yaml', {}));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe('options.locale');
      expect(error.context.expected).toContain('a locale such as de-DE or en-GB');
    }
  });
});
