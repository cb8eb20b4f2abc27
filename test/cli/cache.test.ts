import {
  existsSync,
  mkdirSync,
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
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/cache/sqlite.js';
import { entry, scope } from '../cache/_contract.js';
import { damageEntries } from '../cache/_damage.js';
import { cli } from './_cli.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-cache-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;
let file: string;
let files = 0;

/** A cache with 3 geocodes (one 100 days old) and 2 elevations, and one run recorded. */
beforeEach(async () => {
  file = join(dir, `c${++files}.sqlite`);
  const store = openSqliteStore(file);
  if (store === undefined) throw new Error('no store');
  const now = Date.now();
  await store.putMany([
    entry(scope('geocoding'), 'a', 'x', now - DAY),
    entry(scope('geocoding'), 'b', 'x', now - 100 * DAY),
    entry(scope('geocoding'), 'c', null, now - DAY / 2, true),
    entry(scope('elevation'), 'p', 1, now),
    entry(scope('elevation'), 'q', 2, now),
  ]);
  await store.recordRun({
    startedAt: now - 5000,
    endedAt: now,
    job: 'nightly',
    hits: 3927,
    misses: 25,
    writes: 25,
    requestsSaved: 3927,
  });
  await store.close();
});

async function geobatch(...args: string[]) {
  const run = cli(['cache', ...args]);
  return { code: await run.exited, out: run.out(), err: run.err() };
}

describe('geobatch cache', () => {
  it('path: the flag, else GEOBATCH_CACHE, else the default under XDG_CACHE_HOME', async () => {
    expect((await geobatch('path', '--cache', file)).out).toBe(`${file}\n`);
    const env = cli(['cache', 'path'], { GEOBATCH_CACHE: file });
    await env.exited;
    expect(env.out()).toBe(`${file}\n`);
    const xdg = cli(['cache', 'path'], { XDG_CACHE_HOME: '/var/tmp/x', GEOBATCH_CACHE: '' });
    await xdg.exited;
    expect(xdg.out()).toBe('/var/tmp/x/geobatch/cache.sqlite\n');
  });

  it('path with GEOBATCH_CACHE=off says that no cache is in use, and why', async () => {
    const off = cli(['cache', 'path'], { GEOBATCH_CACHE: 'off', XDG_CACHE_HOME: '/var/tmp/x' });
    expect(await off.exited).toBe(0);
    expect(off.out()).toBe('no cache in use: GEOBATCH_CACHE=off turns it off\n');
    const named = cli(['cache', 'path', '--cache', file], { GEOBATCH_CACHE: 'off' });
    await named.exited;
    expect(named.out()).toBe(`${file}\n`);
  });

  it('stats: entries, not-found and bytes per interface, and the recent runs', async () => {
    const { code, out } = await geobatch('stats', '--cache', file);
    expect(code).toBe(0);
    expect(out).toContain(`${file} (sqlite, schema 2,`);
    expect(out).toMatch(/elevation\s+2\s+0\s+4 B/);
    expect(out).toMatch(/geocoding\s+3\s+1\s+13 B/);
    expect(out).toMatch(/nightly\s+3,927\s+25\s+25\s+3,927/);
    const json = JSON.parse((await geobatch('stats', '--cache', file, '--json')).out) as {
      interfaces: { interface: string; entries: number }[];
      runs: { hits: number }[];
    };
    expect(json.interfaces.map((i) => [i.interface, i.entries])).toEqual([
      ['elevation', 2],
      ['geocoding', 3],
    ]);
    expect(json.runs[0]?.hits).toBe(3927);
  });

  it('stats on a cache that does not exist says so and creates nothing', async () => {
    const missing = join(dir, 'none', 'cache.sqlite');
    const { code, out } = await geobatch('stats', '--cache', missing);
    expect(code).toBe(0);
    expect(out).toBe(`no cache at ${missing} yet\n`);
    // With --json, still JSON: a pipe into jq gets a document.
    const json = await geobatch('stats', '--json', '--cache', missing);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ location: missing, cache: null });
  });

  it('prune: entries past their lifetime by default, or older than --older-than', async () => {
    expect((await geobatch('prune', '--cache', file)).out).toContain('pruned 1 entries');
    expect((await geobatch('prune', '--cache', file, '--older-than', '12h')).out).toContain(
      'pruned 2 entries',
    );
    const json = JSON.parse((await geobatch('stats', '--cache', file, '--json')).out) as {
      interfaces: { entries: number }[];
    };
    expect(json.interfaces.map((i) => i.entries)).toEqual([2]);
  });

  it('prune refuses an age it cannot read, with exit 2', async () => {
    const { code, err } = await geobatch('prune', '--cache', file, '--older-than', 'a while');
    expect(code).toBe(2);
    expect(err).toContain('--older-than: expected an age such as 30d, 12h or 90m, got `a while`');
  });

  it('clear: one interface, then everything', async () => {
    expect((await geobatch('clear', '--cache', file, '--interface', 'elevation')).out).toContain(
      'cleared 2 entries of elevation',
    );
    expect((await geobatch('clear', '--cache', file)).out).toContain('cleared 3 entries');
    expect((await geobatch('stats', '--cache', file)).out).toContain('no entries');
  });

  it('clear refuses a file that is not a geobatch cache, naming it and what it looks like, and keeps it', async () => {
    const csv = join(dir, 'customers.csv');
    writeFileSync(csv, 'id,street,city\n1,Hauptstraße 1,Berlin\n');
    const refused = await geobatch('clear', '--cache', csv);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      `geobatch: ${csv} is not a geobatch cache but a text file of 39 bytes: nothing was deleted`,
    );
    expect(refused.err).toContain('add --force');
    expect(readFileSync(csv, 'utf8')).toBe('id,street,city\n1,Hauptstraße 1,Berlin\n');

    const other = join(dir, 'invoices.db');
    const db = new DatabaseSync(other);
    db.exec('CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (1)');
    db.close();
    const before = readFileSync(other);
    const foreign = await geobatch('clear', '--cache', other);
    expect(foreign.code).toBe(2);
    expect(foreign.err).toContain('an SQLite database of another program (tables: invoices)');
    expect(readFileSync(other).equals(before)).toBe(true);
  });

  it('clear --force deletes a file that is not a geobatch cache, and --help says so', async () => {
    const csv = join(dir, 'wrong.csv');
    writeFileSync(csv, 'a,b\n');
    const forced = await geobatch('clear', '--cache', csv, '--force');
    expect(forced.code).toBe(0);
    expect(forced.out).toContain(`deleted ${csv} (it was a text file of 4 bytes; --force)`);
    expect(existsSync(csv)).toBe(false);
    expect((await geobatch('clear', '--help')).out).toMatch(
      /--force\s+also delete a file that is not a geobatch cache/,
    );
  });

  it('stats on a cache damaged past its header names the file and says how to start over', async () => {
    damageEntries(file);
    const { code, err } = await geobatch('stats', '--cache', file);
    expect(code).toBe(1);
    expect(err).toContain(`geobatch: The request cache ${file} cannot be used: it is damaged (SQLite: `);
    expect(err).toContain(`geobatch cache clear --cache ${file}`);
  });

  it('clear deletes a damaged geobatch cache without --force', async () => {
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const cleared = await geobatch('clear', '--cache', file);
    expect(cleared.code).toBe(0);
    expect(cleared.out).toContain(`deleted ${file} (it was not a usable cache)`);
    expect(existsSync(file)).toBe(false);
  });

  it('clear refuses a directory with a message about directories, deleting nothing', async () => {
    const folder = join(dir, 'caches');
    mkdirSync(folder);
    writeFileSync(join(folder, 'keep.txt'), 'x');
    const refused = await geobatch('clear', '--cache', folder);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      `geobatch: ${folder} is a directory, not a cache file: nothing was deleted`,
    );
    expect(refused.err).toContain(`such as ${folder}/cache.sqlite`);
    expect(existsSync(join(folder, 'keep.txt'))).toBe(true);
  });

  it('clear on an empty file leaves it alone: there is nothing to clear', async () => {
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    const run = await geobatch('clear', '--cache', empty);
    expect(run.code).toBe(0);
    expect(run.out).toBe(`no cache at ${empty} yet\n`);
    expect(statSync(empty).size).toBe(0);
  });
});

describe('the job file cache: block', () => {
  it('validate shows where the cache is, relative to the job file, or that it is off', async () => {
    const job = join(dir, 'with-cache.yaml');
    const base = 'job: elevation\ninput: in.csv\noutput: out.csv\n';
    writeFileSync(job, `${base}cache: { path: caches/nightly.sqlite, mode: read-only }\n`);
    const shown = cli(['validate', job], { GEOBATCH_CACHE: '' });
    expect(await shown.exited).toBe(0);
    expect(shown.out()).toContain(
      `cache        ${join(dir, 'caches', 'nightly.sqlite')} (read-only, from the job file)`,
    );
    writeFileSync(job, `${base}cache: false\n`);
    const off = cli(['validate', job], { GEOBATCH_CACHE: '' });
    await off.exited;
    expect(off.out()).toContain('cache        off');
  });

  it('refuses an unknown mode or lifetime, naming the path in the file', async () => {
    const job = join(dir, 'bad-cache.yaml');
    writeFileSync(
      job,
      'job: elevation\ninput: in.csv\noutput: out.csv\ncache: { lifetimes: { geocoding: -1 } }\n',
    );
    const run = cli(['validate', job]);
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('cache.lifetimes.geocoding');
  });
});
