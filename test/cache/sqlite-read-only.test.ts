/**
 * Read-only mode on the SQLite file: it reads a file it may not write and writes nothing, not
 * even beside it. The tests run as root, whom permissions do not stop: where a test needs an open
 * that fails, it makes the `-shm` a symbolic link, which SQLite refuses to follow for anyone; and
 * where `runuser` can drop to `nobody`, one test reads a file that user may not write for real.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { problemOf } from '../../src/cache/_errors.js';
import { openSqliteStore, type SqliteOptions, type SqliteStore } from '../../src/cache/sqlite.js';
import { ROOT } from '../cli/_cli.js';
import { entry, scope } from './_contract.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-read-only-'));
let files = 0;
const fresh = () => join(dir, `c${++files}`, 'cache.sqlite');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(path: string, options: SqliteOptions = {}): SqliteStore {
  const store = openSqliteStore(path, options);
  if (store === undefined) throw new Error('no store');
  return store;
}

/** A cache of `items` (geocoding), closed: no process has it open, no -wal beside it. */
async function written(items: readonly string[], path = fresh()): Promise<string> {
  const store = open(path);
  await store.putMany(items.map((item) => entry(scope(), item, `answer of ${item}`)));
  await store.close();
  return path;
}

/** The directory's names, and the file's bytes and modification time: what a write would change. */
function snapshot(path: string) {
  return {
    names: readdirSync(dirname(path)).sort(),
    bytes: readFileSync(path).toString('base64'),
    mtimeNs: statSync(path, { bigint: true }).mtimeNs,
  };
}

function readOnly(path: string) {
  const debug: string[] = [];
  const store = open(path, { readOnly: true, debug: (_fields, message) => debug.push(message) });
  return { store, debug };
}

const found = async (store: SqliteStore, items: string[]) =>
  [...(await store.getMany(scope(), items)).keys()].sort();

describe('SQLite store, read-only', () => {
  it('reads a file no process has open without writing anything: no -wal or -shm, same bytes and time', async () => {
    const path = await written(['a', 'b']);
    const before = snapshot(path);
    const { store, debug } = readOnly(path);
    expect(await found(store, ['a', 'b', 'c'])).toEqual(['a', 'b']);
    expect((await store.stats()).interfaces).toMatchObject([{ interface: 'geocoding', entries: 2 }]);
    // Not even while it is open: a -wal or -shm made now would stay, owned by this user.
    expect(readdirSync(dirname(path)).sort()).toEqual(before.names);
    await store.putMany([entry(scope(), 'new', 1)]);
    await store.recordRun({
      startedAt: 1,
      endedAt: 2,
      job: 'j',
      hits: 1,
      misses: 0,
      writes: 0,
      requestsSaved: 1,
    });
    await store.close();
    expect(snapshot(path)).toEqual(before);
    expect(debug).toEqual([expect.stringContaining('reading it immutable, so that no -wal/-shm is left')]);
  });

  it('falls back to reading it immutable when its -shm cannot be opened, and says why in a debug line', async () => {
    const path = await written(['a']);
    // What a writer that died leaves, with a -shm nobody can open: SQLite never follows a link.
    writeFileSync(`${path}-wal`, '');
    symlinkSync(join(dir, 'nowhere'), `${path}-shm`);
    const before = snapshot(path);
    const { store, debug } = readOnly(path);
    expect(await found(store, ['a'])).toEqual(['a']);
    await store.close();
    expect(snapshot(path)).toEqual(before);
    expect(lstatSync(`${path}-shm`).isSymbolicLink()).toBe(true);
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(debug).toEqual([expect.stringContaining('its -wal/-shm cannot be used read-only')]);
  });

  it('reads what a writer commits meanwhile, through the WAL once the writer has the file open', async () => {
    const path = await written(['a']);
    const { store } = readOnly(path);
    expect(await found(store, ['a', 'b'])).toEqual(['a']);
    const writer = open(path);
    await writer.putMany([entry(scope(), 'b', 'new')]);
    // The answer is in the writer's WAL, not yet in the file an immutable reader would read.
    expect(await found(store, ['a', 'b'])).toEqual(['a', 'b']);
    await writer.close();
    expect(await found(store, ['a', 'b'])).toEqual(['a', 'b']);
    await store.close();
  });

  it('does not answer from what it read before a writer came and went between two reads', async () => {
    const path = await written(['a', 'b']);
    const { store } = readOnly(path);
    expect(await found(store, ['a', 'b'])).toEqual(['a', 'b']);
    // A whole `cache clear` between two lookups: it leaves no -wal, and rewrites the file (VACUUM).
    const clearer = open(path);
    await clearer.clear();
    await clearer.putMany([entry(scope(), 'c', 1)]);
    await clearer.close();
    expect(await found(store, ['a', 'b', 'c'])).toEqual(['c']);
    await store.close();
  });

  it('reads a file of an older, compatible schema as it is, never migrating it', async () => {
    const path = await written(['kept']);
    const db = new DatabaseSync(path);
    db.exec('DROP TABLE runs; PRAGMA user_version = 1');
    db.close();
    const before = snapshot(path);
    const { store } = readOnly(path);
    expect(await found(store, ['kept'])).toEqual(['kept']);
    expect(await store.stats()).toMatchObject({ schemaVersion: 1, runs: [] });
    await store.close();
    expect(snapshot(path)).toEqual(before);
  });

  it('refuses a geobatch file too old to read without migrating it, and leaves it as it was', async () => {
    const path = await written(['a']);
    const db = new DatabaseSync(path);
    db.exec('PRAGMA user_version = 0');
    db.close();
    const before = snapshot(path);
    let error: unknown;
    try {
      openSqliteStore(path, { readOnly: true });
    } catch (caught) {
      error = caught;
    }
    expect(problemOf(error)).toBe('outdated');
    expect(error).toMatchObject({ code: 'CACHE_UNUSABLE', context: { file: path } });
    expect((error as Error).message).toContain('read-only mode does not do');
    expect(snapshot(path)).toEqual(before);
  });
});

/** Whether this process can run a command as `nobody` (root, with runuser). */
const asNobody =
  process.getuid?.() === 0 && spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status === 0;

describe.runIf(asNobody)('SQLite store, read-only, as a user who may not write the file', () => {
  it('reads a cache owned by another user (mode 644, directory 755) and creates nothing', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'geobatch-shared-'));
    try {
      chmodSync(shared, 0o755);
      const path = await written(['a', 'b'], join(shared, 'cache.sqlite'));
      chmodSync(path, 0o644);
      const before = snapshot(path);
      const script = [
        "import { openSqliteStore } from './src/cache/sqlite.ts';",
        'const store = openSqliteStore(process.env.CACHE_FILE, { readOnly: true });',
        'const stats = await store.stats();',
        'process.stdout.write(JSON.stringify(stats.interfaces.map((i) => i.entries)));',
        'await store.close();',
      ].join('\n');
      const child = spawnSync(
        'runuser',
        ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: ROOT, env: { ...process.env, CACHE_FILE: path }, encoding: 'utf8' },
      );
      expect(child.stderr).toBe('');
      expect(child.stdout).toBe('[2]');
      expect(snapshot(path)).toEqual(before);
      expect(existsSync(`${path}-wal`)).toBe(false);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });
});
