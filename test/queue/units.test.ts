/** The distributed run's pieces that need no database: chunk cuts by group, the recipe, revived errors. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CacheFlags } from '../../src/cache/settings.js';
import { fingerprintOf, loadJobFile, parseJobFile } from '../../src/config/load.js';
import type { AnyJob } from '../../src/engine/job.js';
import { ConfigError, IoError, isGeobatchError, reviveError, ServiceError } from '../../src/errors.js';
import { markNumberTexts, numberTextKeys } from '../../src/number-texts.js';
import { withNumbers } from '../../src/output/_number-texts.js';
import { GroupTracker } from '../../src/queue/_groups.js';
import { fromLines, toLines } from '../../src/queue/chunks.js';
import { queueRun } from '../../src/queue/queued-run.js';
import { ownWorkerEnv, sharedCache, storedText, workerCacheFlags } from '../../src/queue/recipe.js';
import { targetsOf } from '../../src/queue/runs.js';
import type { RunSpec } from '../../src/run/spec.js';
import type { Outcome, Row } from '../../src/types.js';

const row = (index: number, trip: string | undefined): Row => ({
  kind: 'row',
  ref: { index, line: index + 2 },
  fields: trip === undefined ? {} : { trip },
});

const grouped = { groupOf: (r: Row) => r.fields.trip as string | undefined } as unknown as AnyJob;

describe('GroupTracker', () => {
  it('begins a chunk only where a new group begins, as the job groups rows', () => {
    const groups = new GroupTracker(grouped);
    const names = ['A', 'A', undefined, 'B', 'A', 'B', 'C', 'C'];
    const starts = names.map((name, i) => groups.see(row(i, name)));
    // A begins; a row naming none and A coming back (a failure of its own) begin nothing.
    expect(starts).toEqual([true, false, false, true, false, false, true, false]);
  });

  it("cuts a pipeline's rows only where no step's group goes on, its steps grouping by different columns", () => {
    // A track's fixes (trk) and a tour's stops: (k2, A) is a new combination inside tour A.
    const parts = (r: Row) => [r.fields.trk as string, r.fields.tour as string];
    const pipeline = {
      groupOf: (r: Row) => JSON.stringify(parts(r)),
      groupParts: parts,
    } as unknown as AnyJob;
    const groups = new GroupTracker(pipeline);
    const rows = [
      ['k1', 'A'],
      ['k1', 'A'],
      ['k2', 'A'],
      ['k3', 'B'],
      ['k3', 'C'],
      ['k4', 'D'],
    ].map(
      ([trk, tour], index): Row => ({
        kind: 'row',
        ref: { index, line: index + 2 },
        fields: { trk: String(trk), tour: String(tour) },
      }),
    );
    expect(rows.map((r) => groups.see(r))).toEqual([true, false, false, true, false, true]);
  });

  it('tells a chunk which of its groups ended before it, with their 1-based rows', () => {
    const groups = new GroupTracker(grouped);
    const first = [row(0, 'A'), row(1, 'A')];
    const second = [row(2, 'B'), row(3, 'A'), row(4, 'B')];
    for (const item of [...first, ...second]) groups.see(item);
    expect(groups.endedBefore(first)).toBeUndefined();
    expect(groups.endedBefore(second)).toEqual({ A: { first: 1, last: 2 } });
  });
});

/** A run's recipe whose cache is a PostgreSQL URL, stored without its password. */
const PG_RECIPE = {
  file: '/j.yaml',
  text: '',
  overrides: {},
  emulator: false,
  cache: { location: 'postgres://u@db.example/c' },
};

describe('the recipe of a distributed run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'geobatch-recipe-'));
  const job = (cache: string) => {
    const file = join(dir, `job-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      file,
      `job: elevation\ninput: in.csv\noutput: out.csv\nmapping:\n  lon: lon\n  lat: lat\nservice:\n  endpoints:\n    elevation: http://127.0.0.1:9\n${cache}`,
    );
    return file;
  };

  it('shares the queue database as the cache when the run would use a file, and keeps off off', async () => {
    const config = await loadJobFile(job(''), {});
    expect(sharedCache(config, {}, {}).location).toBe('queue');
    expect(sharedCache(config, { location: false }, {}).location).toBe(false);
    expect(sharedCache(config, undefined, {}).location).toBe(false);
    const named = sharedCache(config, { location: 'postgres://u:s3cret@db.example/c', mode: 'refresh' }, {});
    expect(named).toEqual({ location: 'postgres://u@db.example/c', mode: 'refresh' });
  });

  it('warns, naming the file and why, when a cache file the user named gives way to the queue database', async () => {
    const file = job('cache: job-cache.sqlite\n');
    const config = await loadJobFile(file, {});
    const warnings: { msg: string; cache?: string; from?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const shared = (flags: CacheFlags, env: Record<string, string>) => {
      warnings.length = 0;
      const cache = sharedCache(config, flags, env, logger);
      logger.flush();
      return cache;
    };
    expect(shared({ location: 'mine.sqlite' }, {})).toEqual({ location: 'queue', mode: 'use' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ cache: join(process.cwd(), 'mine.sqlite'), from: '--cache' });
    expect(warnings[0]?.msg).toMatch(/mine\.sqlite \(from --cache\) is not used: .*a file cannot be shared/);
    shared({}, { GEOBATCH_CACHE: '/var/cache/nightly.sqlite' });
    expect(warnings[0]).toMatchObject({ cache: '/var/cache/nightly.sqlite', from: 'GEOBATCH_CACHE' });
    shared({}, {});
    expect(warnings[0]).toMatchObject({
      cache: join(dir, 'job-cache.sqlite'),
      from: "the job file's cache:",
    });
    // The default file was never asked for: nothing to warn about, nor with a shared database.
    const plain = await loadJobFile(job(''), {});
    warnings.length = 0;
    sharedCache(plain, {}, {}, logger);
    sharedCache(plain, { location: 'postgres://u@db.example/c' }, {}, logger);
    sharedCache(plain, { location: false }, {}, logger);
    expect(warnings).toEqual([]);
  });

  it('gives a worker the password of its own GEOBATCH_CACHE for the same database, never the recipe', () => {
    const recipe = PG_RECIPE;
    expect(
      workerCacheFlags(recipe, 'postgres://q', { GEOBATCH_CACHE: 'postgres://u:pw@db.example/c' }).location,
    ).toBe('postgres://u:pw@db.example/c');
    expect(
      workerCacheFlags(recipe, 'postgres://q', { GEOBATCH_CACHE: 'postgres://other:pw@elsewhere/c' })
        .location,
    ).toBe('postgres://u@db.example/c');
    expect(
      workerCacheFlags({ ...recipe, cache: { location: 'queue' } }, 'postgres://q:pw@h/d', {}).location,
    ).toBe('postgres://q:pw@h/d');
  });

  it("gives a worker the password of the job file's cache as its own environment resolves it", () => {
    // `cache: ${PG_CACHE}`: the recipe holds the coordinator's URL without the password; the
    // worker's job file, loaded with its own environment, has PG_CACHE's URL with one.
    const recipe = { ...PG_RECIPE, text: 'cache: ${PG_CACHE}\n' };
    expect(workerCacheFlags(recipe, 'postgres://q', {}, 'postgres://u:pw@db.example/c')).toEqual({
      location: 'postgres://u:pw@db.example/c',
    });
    expect(
      workerCacheFlags(recipe, 'postgres://q', {}, { path: 'postgres://u:pw@db.example/c' }).location,
    ).toBe('postgres://u:pw@db.example/c');
    // Another database's password is not taken; GEOBATCH_CACHE without one does not hide the job's.
    expect(workerCacheFlags(recipe, 'postgres://q', {}, 'postgres://u:pw@elsewhere/c')).toEqual({
      location: 'postgres://u@db.example/c',
      fromQueue: true,
    });
    expect(
      workerCacheFlags(
        recipe,
        'postgres://q',
        { GEOBATCH_CACHE: 'postgres://u@db.example/c' },
        'postgres://u:pw@db.example/c',
      ).location,
    ).toBe('postgres://u:pw@db.example/c');
  });

  it("marks a worker's cache URL without a password as the queue's, so that a refusal says why it has none", () => {
    const recipe = PG_RECIPE;
    expect(workerCacheFlags(recipe, 'postgres://q', {})).toEqual({
      location: 'postgres://u@db.example/c',
      fromQueue: true,
    });
    expect(workerCacheFlags(recipe, 'postgres://q', { GEOBATCH_CACHE: 'postgres://u@db.example/c' })).toEqual(
      {
        location: 'postgres://u@db.example/c',
        fromQueue: true,
      },
    );
    expect(
      workerCacheFlags(recipe, 'postgres://q', { GEOBATCH_CACHE: 'postgres://u:pw@db.example/c' }),
    ).toEqual({ location: 'postgres://u:pw@db.example/c' });
    expect(workerCacheFlags({ ...recipe, cache: { location: 'queue' } }, 'postgres://q@h/d', {})).toEqual({
      location: 'postgres://q@h/d',
    });
  });

  it("keeps a password given in the cache URL's query (?password=, ?sslpassword=) out of the queue database too", async () => {
    const config = await loadJobFile(job(''), {});
    const warnings: { msg: string; cache?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const flags = { location: 'postgres://u@db.example/c?password=s3cret&sslmode=require&sslpassword=k3y' };
    expect(sharedCache(config, flags, {}, logger)).toEqual({
      location: 'postgres://u@db.example/c?sslmode=require',
      mode: 'use',
    });
    expect(warnings).toEqual([
      expect.objectContaining({ cache: 'postgres://u@db.example/c?sslmode=require' }),
    ]);
    expect(JSON.stringify(warnings)).not.toMatch(/s3cret|k3y/);
    expect(ownWorkerEnv(config, flags, {})).toEqual({ GEOBATCH_CACHE: flags.location });
  });

  it("warns that the cache's password stays with the coordinator, naming the ways to give it, never the password", async () => {
    const config = await loadJobFile(job(''), {});
    const warnings: { msg: string; cache?: string; from?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const flags = { location: 'postgres://u:s3cret@db.example/c' };
    expect(sharedCache(config, flags, {}, logger)).toEqual({
      location: 'postgres://u@db.example/c',
      mode: 'use',
    });
    expect(warnings).toEqual([
      expect.objectContaining({
        cache: 'postgres://u@db.example/c',
        from: '--cache',
        msg: "The request cache's password (from --cache) is never stored in the queue database: the workers get postgres://u@db.example/c without it. Give it on every worker machine with PGPASSWORD or ~/.pgpass, or set GEOBATCH_CACHE to the URL with its password in each worker's environment; a worker without it stops the run with CACHE_UNUSABLE",
      }),
    ]);
    expect(JSON.stringify(warnings)).not.toContain('s3cret');
    // The coordinator's own worker has it from this process, as GEOBATCH_CACHE for the same database.
    expect(ownWorkerEnv(config, flags, { HOME: '/h' })).toEqual({
      HOME: '/h',
      GEOBATCH_CACHE: 'postgres://u:s3cret@db.example/c',
    });
    const own = workerCacheFlags(
      { file: '/j.yaml', text: '', overrides: {}, emulator: false, cache: sharedCache(config, flags, {}) },
      'postgres://q',
      ownWorkerEnv(config, flags, {}),
    );
    expect(own.location).toBe('postgres://u:s3cret@db.example/c');
    // Without a password in the URL there is nothing to warn of, nor to hand over.
    warnings.length = 0;
    sharedCache(config, { location: 'postgres://u@db.example/c' }, {}, logger);
    expect(warnings).toEqual([]);
    expect(ownWorkerEnv(config, { location: 'postgres://u@db.example/c' }, {})).toEqual({});
  });

  it('refuses a job file whose cache URL holds a password, before touching the database', async () => {
    const file = job('cache: postgres://u:s3cret@db.example/c\n');
    const config = await loadJobFile(file, {});
    const spec = {
      jobFingerprint: 'x',
      input: { path: '-' },
      output: { path: '/tmp/o.csv' },
    } as unknown as RunSpec;
    const refused = await queueRun(
      spec,
      config,
      { url: 'postgres://127.0.0.1:9/none' },
      {
        overrides: {},
        cache: {},
        emulator: undefined,
        logger: pino({ level: 'silent' }),
      },
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).context).toMatchObject({ path: 'cache', file });
    expect((refused as ConfigError).message).not.toContain('s3cret');
  });
});

describe('reviveError', () => {
  it('raises a reported error again as the class its code belongs to, with its context', () => {
    const auth = reviveError({ code: 'AUTH_REJECTED', message: 'rejected', status: 401 });
    expect(auth).toBeInstanceOf(ServiceError);
    expect(auth).toMatchObject({ code: 'AUTH_REJECTED', message: 'rejected', context: { status: 401 } });
    expect(reviveError({ code: 'QUEUE_UNUSABLE', message: 'gone' })).toBeInstanceOf(IoError);
    const unknown = reviveError({ code: 'FROM_THE_FUTURE', message: 'new' });
    expect(isGeobatchError(unknown) && unknown.code).toBe('INTERNAL');
  });
});

describe('chunk lines', () => {
  it('carry which fields hold number texts, so a worker and the coordinator write them as numbers', () => {
    const fields = { id: '12345678901234567891', code: '1.50', name: 'a\tb' };
    markNumberTexts(fields, ['id', 'code']);
    const item: Row = { kind: 'row', ref: { index: 0, line: 2 }, fields };
    const issueFields = { id: '-0' };
    markNumberTexts(issueFields, ['id']);
    const outcome: Outcome = {
      status: 'failed',
      ref: { index: 1, line: 3 },
      row: { kind: 'row', ref: { index: 1, line: 3 }, fields },
      issue: {
        kind: 'issue',
        ref: { index: 1, line: 3 },
        stage: 'input',
        code: 'INPUT_MALFORMED',
        message: 'm',
        fields: issueFields,
      },
    };
    const plain: Row = { kind: 'row', ref: { index: 2, line: 4 }, fields: { id: 7 } };
    const [back, backOutcome, backPlain] = fromLines<Row & Outcome>(toLines([item, outcome, plain]));
    expect(back?.fields).toEqual(fields);
    expect(numberTextKeys(back?.fields ?? {})).toEqual(['id', 'code']);
    const failed = backOutcome as Extract<Outcome, { status: 'failed' }>;
    expect(numberTextKeys(failed.row?.fields ?? {})).toEqual(['id', 'code']);
    expect(numberTextKeys(failed.issue.fields ?? {})).toEqual(['id']);
    expect(backPlain).toEqual(plain);
    expect(numberTextKeys(backPlain?.fields ?? {})).toBeUndefined();
    // Through the writer's path: JSON output shows the number as it was written.
    expect(JSON.stringify(withNumbers(back?.fields ?? {}))).toBe(
      '{"id":12345678901234567891,"code":1.50,"name":"a\\tb"}',
    );
  });
});

describe('the job file text a queue database keeps', () => {
  const text = [
    '# nightly geocode; my key is Zq9SECRETkey77',
    'job: geocode   # the kind',
    'input: in.csv',
    'output: out.csv',
    'mapping:',
    '  # partner key Pk9PARTNERkey33',
    '  street: &column street',
    '  zip: { column: plz }  # postcode',
    '  city: *column # sk-ALIAS-key',
    'service:',
    `  credentials: { apiKey: "\${GEOBATCH_API_KEY}" }`,
    'options: { prefix: geo_ }',
    '',
  ].join('\n');

  it('holds no comment, where free text (a key, say) would go unchecked into the database', () => {
    const stored = storedText(text);
    expect(stored).not.toMatch(/Zq9SECRETkey77|Pk9PARTNERkey33|sk-ALIAS-key|#/);
  });

  it('means the same job: the worker loads it as the coordinator loaded the file', () => {
    const env = { GEOBATCH_API_KEY: 'k3y-0815' };
    const original = parseJobFile(text, '/jobs', env, '/jobs/g.yaml');
    const stored = parseJobFile(storedText(text), '/jobs', env, '/jobs/g.yaml');
    expect(fingerprintOf(stored)).toBe(fingerprintOf(original));
    expect(stored.steps).toEqual(original.steps);
  });

  it('keeps every value as the file writes it: a worker sends the zip the coordinator checked', () => {
    const written = [
      'job: geocode',
      'input: in.csv',
      'output: out.csv',
      'mapping:',
      '  street: street # the column',
      '  zip: { value: 01067 }  # Dresden, not 1067',
      '  city: { value: "a # b" }',
      '  houseNo: { value: +49 }',
      'options: { prefix: geo_ }',
      '',
    ].join('\n');
    const stored = storedText(written);
    expect(stored).not.toMatch(/Dresden|the column/);
    expect(stored).toContain('01067 ');
    const loaded = parseJobFile(stored, '/jobs', {}, '/jobs/g.yaml');
    expect(loaded.steps[0]?.mapping).toEqual(
      parseJobFile(written, '/jobs', {}, '/jobs/g.yaml').steps[0]?.mapping,
    );
    expect(loaded.steps[0]?.mapping).toMatchObject({
      zip: { value: '01067' },
      city: { value: 'a # b' },
      houseNo: { value: '+49' },
    });
  });

  it('drops a comment line after a block scalar kept with |+ or >+ without changing its value', () => {
    for (const keep of ['|+', '>+']) {
      const written = [
        `description: ${keep}`,
        '  line',
        '',
        '# owner: ops team',
        '  # indented note',
        'job: geocode',
        'input: in.csv',
        'output: out.csv',
        'mapping:',
        '  street: street',
        '  city: city',
        '  houseNo: { value: 007 }',
        '',
      ].join('\n');
      const stored = storedText(written, 'g.yaml');
      expect(stored, keep).not.toMatch(/owner|note/);
      expect(parse(stored).description, keep).toBe(parse(written).description);
      const loaded = parseJobFile(stored, '/jobs', {}, '/jobs/g.yaml');
      expect(loaded.steps[0]?.mapping.houseNo, keep).toEqual({ value: '007' });
    }
  });

  it("keeps a block scalar's lines that only look like comments", () => {
    const written = [
      'job: geocode',
      'description: |',
      '  step one',
      '  # not a comment',
      '# a comment',
      '',
    ].join('\n');
    const stored = storedText(written);
    expect(stored).not.toContain('# a comment');
    expect(stored).toContain('  # not a comment');
  });
});

describe('what a run writes (targetsOf)', () => {
  it('is one value per file: the same file named through a linked directory, other files otherwise, none for standard output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-target-'));
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const real = targetsOf({ outputs: [join(dir, 'real', 'out.csv')] });
    expect(real).toHaveLength(1);
    // A nightly run started from the linked path replaces the crashed run of the real one.
    expect(targetsOf({ outputs: [join(dir, 'link', 'out.csv')] })).toEqual(real);
    expect(targetsOf({ outputs: [join(dir, 'real', 'other.csv')] })).not.toEqual(real);
    const more = targetsOf({
      outputs: [join(dir, 'link', 'out.csv'), join(dir, 'real', 'out.ndjson')],
      others: [join(dir, 'real', 'errors.csv')],
    });
    expect(more).toHaveLength(3);
    expect(more?.[0]).toBe(real?.[0]);
    expect(targetsOf({ outputs: ['-'], others: [join(dir, 'errors.csv')] })).toBeNull();
  });
});
