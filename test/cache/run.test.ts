/**
 * The cache through `geobatch run`, as a nightly cron job uses it: the same file twice, a few
 * rows changed, a crash in the middle, two runs at once, a damaged cache file.
 */
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { pointKey } from '../../src/jobs/_fields.js';
import { cli, emulatorEnv, ROOT, until } from '../cli/_cli.js';
import { damageEntries } from './_damage.js';

let emulator: EmulatorHandle;
let dir: string;
/** Geocoding requests the emulator received (street|house number of each), since the last reset. */
let requests: string[] = [];
/** The logical requests, by X-Request-Id: a hedged second attempt of one is not another miss. */
const requestIds = new Set<string>();
let jobs = 0;
/** Called after each geocoding request the emulator took (a test's hook). */
let afterRequest: (() => void) | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cache-run-'));
  emulator = await startEmulator({
    preload: true,
    onRequest: (info) => {
      const body = info.body as {
        location?: { street?: string };
        geometry?: { coordinates?: [number, number] };
      };
      if (info.interface !== 'geocoding') return;
      const c = body?.geometry?.coordinates;
      requests.push(body.location?.street ?? (c === undefined ? '?' : pointKey(c)));
      if (info.requestId !== undefined) requestIds.add(info.requestId);
      afterRequest?.();
    },
  });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  requests = [];
  afterRequest = undefined;
});

const SAMPLE = join(ROOT, 'samples', 'community-centres.csv');

/** A geocode job over `input` (default: the sample), writing into its own directory. */
function geocodeJob(input = SAMPLE, extra = ''): { job: string; out: (name: string) => string } {
  const n = ++jobs;
  const job = join(dir, `geocode${n}.yaml`);
  writeFileSync(
    job,
    [
      'job: geocode',
      `input: ${input}`,
      `output: out${n}/result.csv`,
      'mapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }',
      extra,
    ].join('\n'),
  );
  return { job, out: (name) => join(dir, `out${n}`, name) };
}

function cacheFile(): string {
  return join(mkdtempSync(join(dir, 'cache-')), 'cache.sqlite');
}

async function run(job: string, cache: string, ...flags: string[]) {
  const child = cli(['run', job, '--no-progress', ...flags], {
    ...emulatorEnv(emulator),
    GEOBATCH_CACHE: cache,
  });
  const code = await child.exited;
  return { code, err: child.err() };
}

function summaryOf(output: string) {
  return JSON.parse(readFileSync(`${output}.summary.json`, 'utf8')) as {
    cache: {
      hits: number;
      misses: number;
      writes: number;
      requestsSaved: number;
      mode: string;
      location: string;
      problem: string | null;
    } | null;
    requests: { sent: number };
    estimate: { requests: number } | null;
  };
}

describe('geobatch run with the request cache', () => {
  it('says so when the cache file is deleted while the run uses it', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    afterRequest = () => {
      if (requests.length !== 100) return;
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${cache}${suffix}`, { force: true });
    };
    const { code, err } = await run(job, cache, '-o', out('deleted.csv'));
    expect(code).toBe(3);
    const problem = `${cache}: the file was deleted while this run used it; the answers it bought since are not kept, and the next run asks for them again`;
    expect(summaryOf(out('deleted.csv')).cache?.problem).toBe(problem);
    expect(err).toContain(problem);
  });

  it('a second run over the same file sends nothing and writes the same bytes', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    requestIds.clear();
    const first = await run(job, cache, '-o', out('first.csv'));
    expect(first.code).toBe(3); // the sample plants rows that fail
    const sent = requestIds.size;
    expect(sent).toBeGreaterThan(300);
    expect(summaryOf(out('first.csv')).cache).toMatchObject({
      hits: 0,
      misses: sent,
      writes: sent,
      mode: 'use',
      location: cache,
    });

    requests = [];
    const second = await run(job, cache, '-o', out('second.csv'));
    expect(second.code).toBe(3);
    expect(requests).toEqual([]);
    expect(readFileSync(out('second.csv')).equals(readFileSync(out('first.csv')))).toBe(true);
    expect(readFileSync(out('second.errors.csv'), 'utf8')).toBe(
      readFileSync(out('first.errors.csv'), 'utf8'),
    );
    expect(summaryOf(out('second.csv')).cache).toMatchObject({
      hits: sent,
      misses: 0,
      writes: 0,
      requestsSaved: sent,
    });
    expect(second.err).toContain(`; the cache answered ${sent} requests (${sent} items wholly)`);
  });

  it('after 25 rows changed, sends only their 25 requests', async () => {
    const cache = cacheFile();
    const lines = readFileSync(SAMPLE, 'utf8').trimEnd().split('\n');
    const header = (lines[0] as string).split(',');
    const street = header.indexOf('street');
    const changed = lines.map((line, i) => {
      if (i === 0 || i % 15 !== 0 || i > 25 * 15) return line;
      const cells = line.split(',');
      cells[street] = `Neue Straße ${i}`;
      return cells.join(',');
    });
    const input = join(dir, 'changed.csv');
    writeFileSync(input, `${changed.join('\n')}\n`);
    const before = geocodeJob();
    await run(before.job, cache, '-o', before.out('r.csv'));
    requests = [];
    const after = geocodeJob(input);
    await run(after.job, cache, '-o', after.out('r.csv'));
    expect(requests.sort()).toEqual(
      Array.from({ length: 25 }, (_, k) => `Neue Straße ${(k + 1) * 15}`).sort(),
    );
  });

  it('--no-cache sends every request and leaves the cache alone; refresh asks again; read-only writes nothing', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    await run(job, cache, '--no-cache', '-o', out('a.csv'));
    expect(existsSync(cache)).toBe(false);
    expect(summaryOf(out('a.csv')).cache).toBeNull();
    await run(job, cache, '--cache-mode', 'read-only', '-o', out('b.csv'));
    expect(existsSync(cache)).toBe(false);
    // Logical requests, by X-Request-Id: on a loaded machine a slow answer draws a hedged second
    // attempt, which the emulator counts but the cache does not.
    requestIds.clear();
    await run(job, cache, '-o', out('c.csv'));
    const sent = requestIds.size;
    expect(sent).toBeGreaterThan(400);
    requestIds.clear();
    await run(job, cache, '--cache-mode', 'refresh', '-o', out('d.csv'));
    expect(requestIds.size).toBe(sent);
    expect(summaryOf(out('d.csv')).cache).toMatchObject({ hits: 0, writes: sent, mode: 'refresh' });
    expect(readFileSync(out('d.csv')).equals(readFileSync(out('c.csv')))).toBe(true);
  });

  it('--dry-run says how many items the cache would answer, and counts only the rest as requests', async () => {
    const cache = cacheFile();
    const full = geocodeJob();
    await run(full.job, cache, '-o', full.out('r.csv'));
    // The answers it wrote, not the requests it sent: on a loaded machine a slow answer draws a
    // hedged attempt, one more request for the same item.
    const sent = summaryOf(full.out('r.csv')).cache?.writes;
    expect(sent).toBeGreaterThan(400);
    const lines = readFileSync(SAMPLE, 'utf8').trimEnd().split('\n');
    const input = join(dir, 'more.csv');
    writeFileSync(input, `${[...lines, '999999,Extrastraße,1,10115,Berlin'].join('\n')}\n`);
    const more = geocodeJob(input);
    const dry = await run(more.job, cache, '--dry-run');
    expect(dry.code).toBe(3); // the planted bad rows would fail
    expect(dry.err).toContain(`the cache would answer ${sent} requests (${sent} items wholly)`);
    expect(dry.err).toMatch(/\n {2}1 request after dedup and batching/);
  });

  it('keys the embedded emulator as one service whatever its port, and any other address apart', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    const first = cli(['run', job, '--emulator', '--no-progress', '-o', out('e1.csv')], {
      GEOBATCH_CACHE: cache,
    });
    await first.exited;
    const second = cli(['run', job, '--emulator', '--no-progress', '-o', out('e2.csv')], {
      GEOBATCH_CACHE: cache,
    });
    await second.exited;
    const http = (name: string) =>
      (
        JSON.parse(readFileSync(`${out(name)}.summary.json`, 'utf8')) as {
          client: { requests: { total: number } };
        }
      ).client.requests.total;
    expect(http('e1.csv')).toBeGreaterThan(300);
    expect(http('e2.csv')).toBe(0);
    // The same job against an emulator at an address (GEOBATCH_EMULATOR_URL) is not answered for:
    // every request is sent again. Counted by X-Request-Id, as the summary counts requests sent: a
    // loaded machine's hedged second attempts (409 attempts for 401 requests in one CI run) are
    // not requests of their own.
    const sent = (name: string) =>
      (JSON.parse(readFileSync(`${out(name)}.summary.json`, 'utf8')) as { requests: { sent: number } })
        .requests.sent;
    requestIds.clear();
    await run(job, cache, '-o', out('e3.csv'));
    expect(requestIds.size).toBe(sent('e1.csv'));
  });

  it('holds no credential: neither the API key nor the address search partner key is in the file', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    await run(job, cache, '-o', out('r.csv'));
    const customers = join(dir, 'customers.yaml');
    writeFileSync(
      customers,
      `job: customer-lookup\ninput: ${join(ROOT, 'samples', 'suppliers.csv')}\noutput: customers/r.csv\nmapping: { key: supplier_key }\n`,
    );
    await run(customers, cache);
    const db = new DatabaseSync(cache);
    const kinds = db.prepare('SELECT DISTINCT interface FROM scopes ORDER BY interface').all();
    db.close();
    expect(kinds).toEqual([{ interface: 'addressSearch' }, { interface: 'geocoding' }]);
    const raw = Buffer.concat([cache, `${cache}-wal`].filter(existsSync).map((f) => readFileSync(f)));
    const { apiKey, partner, partnerKey } = emulator.credentials;
    for (const secret of [apiKey, partnerKey, `${partner}:${partnerKey}`]) {
      expect(raw.includes(secret), 'a credential is in the cache file').toBe(false);
      expect(raw.includes(Buffer.from(secret).toString('base64'))).toBe(false);
    }
  });

  it('stops before any request on a file that is no cache, pointing at the settings, and clear keeps it', async () => {
    const cache = cacheFile();
    writeFileSync(cache, 'this is not a cache\n'.repeat(50));
    const { job, out } = geocodeJob();
    const wrong = await run(job, cache, '-o', out('r.csv'));
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`The request cache ${cache} cannot be used`);
    expect(wrong.err).toContain('it is probably the wrong file: check --cache, GEOBATCH_CACHE');
    expect(wrong.err).not.toContain(`\`geobatch cache clear --cache ${cache}\``);
    expect(wrong.err).toContain(`\`geobatch cache clear --force --cache ${cache}\``);
    expect(requests).toEqual([]);
    const clear = cli(['cache', 'clear', '--cache', cache]);
    expect(await clear.exited).toBe(2);
    expect(readFileSync(cache, 'utf8')).toBe('this is not a cache\n'.repeat(50));
    const forced = cli(['cache', 'clear', '--cache', cache, '--force']);
    expect(await forced.exited).toBe(0);
    expect((await run(job, cache, '-o', out('r.csv'))).code).toBe(3);
  });

  it('stops before any request on a damaged cache, naming the command that clears it, which does', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    await run(job, cache, '-o', out('first.csv'));
    truncateSync(cache, Math.floor(statSync(cache).size / 2));
    requests = [];
    const broken = await run(job, cache, '-o', out('r.csv'));
    expect(broken.code).toBe(1);
    expect(broken.err).toContain(`hint: \`geobatch cache clear --cache ${cache}\` deletes it`);
    expect(requests).toEqual([]);
    const clear = cli(['cache', 'clear', '--cache', cache]);
    expect(await clear.exited).toBe(0);
    expect(clear.out()).toContain(`deleted ${cache}`);
    expect((await run(job, cache, '-o', out('r.csv'))).code).toBe(3);
  });

  it('a cache damaged past its header: the night that finds it warns and goes on, the next refuses it before any request', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    // Logical requests, by X-Request-Id: a loaded machine's hedged attempts are not misses.
    requestIds.clear();
    await run(job, cache, '-o', out('first.csv'));
    const sent = requestIds.size;
    damageEntries(cache);
    requestIds.clear();
    const finding = await run(job, cache, '-o', out('second.csv'));
    expect(finding.code).toBe(3);
    expect(requestIds.size).toBe(sent);
    const warning = finding.err
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('is damaged'))
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(warning).toEqual([expect.objectContaining({ level: 'warn' })]);
    expect(warning[0]?.msg).toContain(
      `later runs refuse it (CACHE_UNUSABLE) until \`geobatch cache clear --cache ${cache}\``,
    );
    expect(summaryOf(out('second.csv')).cache?.problem).toContain(
      `${cache} is damaged (SQLite: database disk image is malformed)`,
    );
    expect(finding.err).toContain(`  cache: ${cache} is damaged`);
    expect(readFileSync(out('second.csv.report.html'), 'utf8')).toContain('data-cache-problem');

    requests = [];
    const next = await run(job, cache, '-o', out('third.csv'));
    expect(next.code).toBe(1);
    expect(requests).toEqual([]);
    expect(next.err).toContain(`The request cache ${cache} cannot be used: a run found it damaged at`);
    expect(next.err).toContain(`hint: \`geobatch cache clear --cache ${cache}\` deletes it`);
    const clear = cli(['cache', 'clear', '--cache', cache]);
    expect(await clear.exited).toBe(0);
    requestIds.clear();
    expect((await run(job, cache, '-o', out('fourth.csv'))).code).toBe(3);
    expect(requestIds.size).toBe(sent);
  });

  it('read-only uses the cache and leaves the file as it was: same bytes and time, no -wal or -shm', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob();
    requestIds.clear();
    await run(job, cache, '-o', out('first.csv'));
    const sent = requestIds.size;
    const before = { bytes: readFileSync(cache), mtime: statSync(cache).mtimeMs };
    requests = [];
    const second = await run(job, cache, '--cache-mode', 'read-only', '-o', out('second.csv'));
    expect(second.code).toBe(3);
    expect(requests).toEqual([]);
    expect(summaryOf(out('second.csv')).cache).toMatchObject({ hits: sent, writes: 0, mode: 'read-only' });
    expect(readFileSync(cache).equals(before.bytes)).toBe(true);
    expect(statSync(cache).mtimeMs).toBe(before.mtime);
    expect([`${cache}-wal`, `${cache}-shm`].filter(existsSync)).toEqual([]);
  });

  it('two runs sharing one cache file at once both finish with the right output', async () => {
    const cache = cacheFile();
    const reference = geocodeJob();
    await run(reference.job, cache.replace('cache.sqlite', 'other.sqlite'), '-o', reference.out('ref.csv'));
    const [a, b] = [geocodeJob(), geocodeJob()];
    const results = await Promise.all([
      run(a.job, cache, '-o', a.out('r.csv')),
      run(b.job, cache, '-o', b.out('r.csv')),
    ]);
    expect(
      results.map((r) => r.code),
      results.map((r) => r.err).join('\n---\n'),
    ).toEqual([3, 3]);
    for (const j of [a, b])
      expect(readFileSync(j.out('r.csv')).equals(readFileSync(reference.out('ref.csv')))).toBe(true);
    requests = [];
    await run(a.job, cache, '-o', a.out('again.csv'));
    expect(requests).toEqual([]);
  });
});

describe("the job file's `cache: false` with GEOBATCH_CACHE set (a cron environment)", () => {
  it('keeps nothing: the environment says where a cache is, the job file that it must not be used', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob(SAMPLE, 'cache: false');
    const result = await run(job, cache, '-o', out('r.csv'));
    expect(result.code).toBe(3);
    expect(existsSync(cache)).toBe(false);
    expect(summaryOf(out('r.csv')).cache).toBeNull();
  });

  it('uses the cache an explicit --cache names, and says that it overrides the job file', async () => {
    const cache = cacheFile();
    const { job, out } = geocodeJob(SAMPLE, 'cache: false');
    requestIds.clear();
    const result = await run(job, join(dir, 'unused.sqlite'), '--cache', cache, '-o', out('r.csv'));
    expect(result.code).toBe(3);
    expect(summaryOf(out('r.csv')).cache).toMatchObject({ location: cache, writes: requestIds.size });
    expect(result.err).toContain('The job file says `cache: false`, and --cache');
    expect(existsSync(join(dir, 'unused.sqlite'))).toBe(false);
  });
});

describe('a run killed with SIGKILL and resumed, with the cache', () => {
  it('sends again only what was in flight at the kill, not the rows after the last checkpoint', async () => {
    const cache = cacheFile();
    const rows = 3000;
    const lines = ['id,lon,lat'];
    for (let i = 0; i < rows; i++) {
      lines.push(`${i},${(6 + (i % 60) * 0.15).toFixed(5)},${(47.5 + Math.floor(i / 60) * 0.15).toFixed(5)}`);
    }
    writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
    // A checkpoint every 60 s: without the cache, a resume would ask again every row answered since.
    const job = join(dir, 'reverse.yaml');
    writeFileSync(
      job,
      'job: reverse-geocode\ninput: points.csv\noutput: reverse/points.csv\nrun: { checkpointSeconds: 60 }\n',
    );
    const env = { ...emulatorEnv(emulator), GEOBATCH_CACHE: cache };
    const concurrency = 4;
    const args = ['run', job, '--resume', '--no-progress', '--concurrency', String(concurrency)];
    // 10 ms an answer, as a real service takes longer: answers arrive one by one, not in bursts.
    emulator.setFaults({ latency: { fixedMs: 10 } });
    try {
      const first = cli(args, env);
      await until(() => requests.length >= 1000, 60_000, 'requests before the kill');
      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull();
      await new Promise((r) => setTimeout(r, 300));
      const before = new Set(requests);
      requests = [];
      const second = cli(args, env);
      expect([0, 3]).toContain(await second.exited);
      const again = requests.filter((key) => before.has(key));
      // Only the requests in flight (or answered within the last few milliseconds) when it died.
      expect(again.length).toBeLessThanOrEqual(2 * concurrency);
      expect(new Set([...before, ...requests]).size).toBe(rows);
      expect(
        readFileSync(join(dir, 'reverse', 'points.csv'), 'utf8')
          .trim()
          .split('\n'),
      ).toHaveLength(rows + 1);
    } finally {
      emulator.setFaults({});
    }
  }, 180_000);

  it('refreshing, buys each item once through a kill and a resume, and none from before the run', async () => {
    const cache = cacheFile();
    const rows = 2000;
    const lines = ['id,lon,lat'];
    for (let i = 0; i < rows; i++) {
      lines.push(
        `${i},${(6.05 + (i % 50) * 0.15).toFixed(5)},${(47.55 + Math.floor(i / 50) * 0.15).toFixed(5)}`,
      );
    }
    writeFileSync(join(dir, 'refresh-points.csv'), `${lines.join('\n')}\n`);
    // A checkpoint every second, so that the resume has the run's start from its checkpoint.
    const job = join(dir, 'refresh.yaml');
    writeFileSync(
      job,
      'job: reverse-geocode\ninput: refresh-points.csv\noutput: refresh/points.csv\nrun: { checkpointSeconds: 1 }\n',
    );
    const env = { ...emulatorEnv(emulator), GEOBATCH_CACHE: cache };
    const concurrency = 4;
    const args = ['run', job, '--resume', '--no-progress', '--concurrency', String(concurrency)];
    // Yesterday's answers: a refresh must ask for every one of them again.
    expect([0, 3]).toContain(await cli(args, env).exited);
    requests = [];
    emulator.setFaults({ latency: { fixedMs: 10 } });
    try {
      const first = cli([...args, '--cache-mode', 'refresh'], env);
      await until(() => requests.length >= 800, 60_000, 'requests before the kill');
      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull();
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(join(dir, 'refresh', 'points.csv.checkpoint.json'))).toBe(true);
      const before = new Set(requests);
      requests = [];
      const second = cli([...args, '--cache-mode', 'refresh'], env);
      expect([0, 3]).toContain(await second.exited);
      const again = requests.filter((key) => before.has(key));
      // Only what was in flight (or answered in the last milliseconds) at the kill is bought twice;
      // before, every row answered since the last checkpoint was.
      expect(again.length).toBeLessThanOrEqual(2 * concurrency);
      expect(new Set([...before, ...requests]).size).toBe(rows);
    } finally {
      emulator.setFaults({});
    }
  }, 180_000);
});
