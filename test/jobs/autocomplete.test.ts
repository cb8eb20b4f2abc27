import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ClientOptions, createClient } from '../../src/client/index.js';
import type { AutocompleteRequest, GeoEntity } from '../../src/contract/index.js';
import { type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';
import { autocompleteKind, best, createAutocompleteJob, type Query } from '../../src/jobs/autocomplete.js';
import { runJob } from '../../src/run/run.js';
import { optionsFor } from '../client/_emulator.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { row, signal } from './_rows.js';

function entity(display: string, score: number | null, extra: Partial<GeoEntity> = {}): GeoEntity {
  return {
    geoEntityType: 'CITY',
    displayValue: display,
    city: display,
    repositoryScore: score,
    geometry: { type: 'Point', coordinates: [8.4, 49] },
    ...extra,
  };
}

/** A fake service that answers from a table and records what it was asked. */
function fakeClient(answers: Record<string, GeoEntity[]>) {
  const asked: AutocompleteRequest[] = [];
  return {
    asked,
    autocomplete: async (req: AutocompleteRequest) => {
      asked.push(req);
      return answers[req.query] ?? [];
    },
  };
}

const mapping = { query: { column: 'typed' } };

async function renderOne(job: ReturnType<typeof createAutocompleteJob>, typed: string) {
  const r = row({ typed });
  const items = job.plan(r) as Query[];
  const results = await job.execute(items, signal);
  return job.render(r, [...results.values()]);
}

describe('autocomplete job', () => {
  it('writes the best-scored suggestion, whatever order the service lists them in', async () => {
    const client = fakeClient({
      Karlsruhe: [
        entity('Karlsruhe (district)', 0.7, { geoEntityType: 'DISTRICT' }),
        entity('Karlsruhe, Baden-Württemberg', 0.79, {
          zip: null,
          state: 'Baden-Württemberg',
          osmid: 2892794,
        }),
        entity('76131 Karlsruhe', 0.6, { geoEntityType: 'CITY_WITH_ZIP' }),
      ],
    });
    const rendered = await renderOne(createAutocompleteJob(client, { mapping }), 'Karlsruhe');
    expect(rendered).toMatchObject({
      ok: true,
      records: [
        {
          columns: {
            ac_display: 'Karlsruhe, Baden-Württemberg',
            ac_type: 'CITY',
            ac_state: 'Baden-Württemberg',
            ac_lon: 8.4,
            ac_lat: 49,
            ac_score: 0.79,
            ac_osmid: 2892794,
            ac_candidates: 3,
          },
          geometry: { type: 'Point', coordinates: [8.4, 49] },
        },
      ],
    });
    expect(best([entity('a', null), entity('b', 0.1), entity('c', 0.1)])?.displayValue).toBe('b');
  });

  it('asks once for texts that differ only by case and spacing, sending the first spelling', () => {
    const job = createAutocompleteJob(fakeClient({}), { mapping });
    const [a] = job.plan(row({ typed: '  76131   Karlsruhe ' })) as Query[];
    const [b] = job.plan(row({ typed: '76131 KARLSRUHE' })) as Query[];
    expect(a && job.key(a)).toBe(b && job.key(b));
    expect(a?.text).toBe('76131 Karlsruhe');
  });

  it('fails an empty text before any request, naming the column', () => {
    expect(createAutocompleteJob(fakeClient({}), { mapping }).plan(row({ typed: '  ' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'typed',
      message: 'typed: missing; expected an address or place as free text',
    });
  });

  it('fails a text with no suggestion, or whose best scores below minScore, as NO_MATCH', async () => {
    const client = fakeClient({ Karlsruhee: [], Karl: [entity('Karlstadt', 0.31)] });
    expect(await renderOne(createAutocompleteJob(client, { mapping }), 'Karlsruhee')).toEqual({
      ok: false,
      failure: {
        code: 'NO_MATCH',
        stage: 'response',
        message: 'no suggestion for `Karlsruhee`',
        detail: { query: 'Karlsruhee' },
      },
    });
    expect(await renderOne(createAutocompleteJob(client, { mapping, minScore: 0.5 }), 'Karl')).toMatchObject({
      ok: false,
      failure: {
        code: 'NO_MATCH',
        message: 'the best suggestion `Karlstadt` scored 0.31, below minScore 0.5',
        detail: { display: 'Karlstadt', score: 0.31 },
      },
    });
  });

  it('sends country codes as the service writes them, upper-case, whatever case the file used', () => {
    const parsed = autocompleteKind.options.parse({ countries: ['de', 'At', 'CH'] }) as {
      countries: string[];
    };
    expect(parsed.countries).toEqual(['DE', 'AT', 'CH']);
    expect(autocompleteKind.options.safeParse({ countries: ['Deutschland'] }).success).toBe(false);
  });

  it('sends the filters the options name, and nothing it was not asked for', async () => {
    const client = fakeClient({});
    await renderOne(createAutocompleteJob(client, { mapping }), 'a');
    await renderOne(
      createAutocompleteJob(client, {
        mapping,
        top: 3,
        types: ['CITY', 'ZIP'],
        excludeTypes: ['STATE'],
        countries: ['DE'],
        withZip: true,
      }),
      'b',
    );
    expect(client.asked).toEqual([
      { query: 'a', top: 5 },
      {
        query: 'b',
        top: 3,
        isoCountries: ['DE'],
        filterOptions: {
          includedGeoEntities: ['CITY', 'ZIP'],
          excludedGeoEntities: ['STATE'],
          plzSearch: true,
        },
      },
    ]);
  });
});

/**
 * Through the job, against the emulator: the token. The emulator checks a token's age with
 * Date.now(), the client schedules renewal with Date.now(): both run on a faked Date that each
 * autocomplete request moves on by a minute (the emulator's request hook), so a 30-row run spans
 * 30 minutes deterministically, with no waiting and no timing assertion.
 */
describe('the autocomplete token in a long run', () => {
  const MINUTE = 60_000;

  afterEach(() => {
    vi.useRealTimers();
  });

  // Distinct places the emulator knows, so that every row is one request.
  const PLACES = [
    'Karlsruhe',
    'Mannheim',
    'Heidelberg',
    'Stuttgart',
    'Freiburg',
    'Ulm',
    'Konstanz',
    'Pforzheim',
    'Mainz',
    'Wiesbaden',
    'Kassel',
    'Fulda',
    'Erfurt',
    'Jena',
    'Gera',
    'Weimar',
    'Dresden',
    'Leipzig',
    'Chemnitz',
    'Zwickau',
    'Berlin',
    'Potsdam',
    'Cottbus',
    'Rostock',
    'Schwerin',
    'Kiel',
    'Lübeck',
    'Bremen',
    'Hannover',
    'Göttingen',
  ];

  async function run(emulatorOptions: EmulatorOptions, client: Partial<ClientOptions>) {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-05T03:00:00Z'));
    const emulator = await startEmulator({
      ...emulatorOptions,
      onRequest: (info) => {
        if (info.interface === 'autocomplete') vi.setSystemTime(Date.now() + MINUTE);
      },
    });
    // The client's request deadlines are epoch times too: a day's timeout keeps the faked half
    // hour from timing out a request that happens to be in flight when the clock jumps. No hedges:
    // on a loaded machine one answer later than 50 ms sent a second, identical request (31, not 30).
    const geo = createClient(
      optionsFor(emulator, {
        ...client,
        timeoutMs: 86_400_000,
        adaptiveTimeout: { hedge: false },
        throttle: { global: { concurrency: 1 } },
      }),
    );
    const dir = tempDir();
    const input = write(join(dir, 'in.csv'), `id,typed\n${PLACES.map((p, i) => `${i},${p}`).join('\n')}\n`);
    try {
      const summary = await runJob({
        job: createAutocompleteJob(geo, { mapping }),
        jobFingerprint: 'autocomplete:test',
        input: { path: input, format: 'csv' },
        output: { path: join(dir, 'out.csv'), format: 'csv' },
        report: { path: join(dir, 'errors.csv'), format: 'csv' },
        engine: { concurrency: 1 },
        logger: memoryLogger().logger,
        progress: { enabled: false },
      });
      const stats = emulator.stats();
      const rejected = stats.byInterface.autocomplete?.byOutcome['401'] ?? 0;
      const rows =
        summary.output === null || summary.ended === 'stopped'
          ? []
          : (parse(read(summary.output.path), { columns: true }) as Record<string, string>[]);
      return { summary, stats, rejected, rows };
    } finally {
      await geo.close();
      await emulator.close();
    }
  }

  it('fetches the token once and reuses it while it is fresh', async () => {
    const { summary, stats, rejected } = await run({ tokenTtlSeconds: 3600 }, { tokenTtlSeconds: 3600 });
    expect(summary.rows).toMatchObject({ read: 30, ok: 30, failed: 0 });
    expect(stats.tokensIssued).toBe(1);
    expect(stats.byInterface.autocomplete).toEqual({ total: 30, byOutcome: { 200: 30 } });
    expect(rejected).toBe(0);
  });

  it('renews the token before its 10 minutes run out, so the service never rejects one', async () => {
    // The real lifetime on both sides; the client renews 30 s early (min(30 s, TTL / 4)).
    const { summary, stats, rejected, rows } = await run({ tokenTtlSeconds: 600 }, { tokenTtlSeconds: 600 });
    expect(summary.rows).toMatchObject({ read: 30, ok: 30, failed: 0 });
    expect(rejected).toBe(0);
    // 30 requests a minute apart: a token serves the requests of its first 570 s (10 of them),
    // so three tokens carry the run.
    expect(stats.tokensIssued).toBe(3);
    expect(rows.map((r) => r.ac_display)).toEqual(PLACES.map((p) => expect.stringContaining(p)));
  });

  it('fetches a new token once when the service rejects one, and the rejected request succeeds', async () => {
    // The service's tokens die after 5 minutes, but the client believes they live an hour.
    const { summary, stats, rejected } = await run({ tokenTtlSeconds: 300 }, { tokenTtlSeconds: 3600 });
    expect(summary.rows).toMatchObject({ read: 30, ok: 30, failed: 0 });
    expect(rejected).toBeGreaterThan(0);
    // Every 401 cost exactly one new token, and nothing else fetched one.
    expect(stats.tokensIssued).toBe(rejected + 1);
    expect(stats.byInterface.autocomplete?.total).toBe(30 + rejected);
  });

  it('stops the run when a fresh token is rejected too, without the token in the message', async () => {
    // Every token is already too old when the service checks it.
    const { summary, stats } = await run({ tokenTtlSeconds: 30 }, { tokenTtlSeconds: 3600 });
    expect(summary.ended).toBe('stopped');
    expect(summary.exitCode).toBe(1);
    expect(summary.error?.code).toBe('AUTH_REJECTED');
    expect(stats.tokensIssued).toBe(2);
    expect(stats.byInterface.autocomplete?.byOutcome['401']).toBe(2);
    expect(summary.rows.ok).toBe(0);
    expect(summary.error?.message).not.toMatch(/[A-Za-z0-9_-]{32}/);
  });
});
