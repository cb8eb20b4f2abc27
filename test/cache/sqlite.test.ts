import { spawn } from 'node:child_process';
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
import { afterAll, describe, expect, it } from 'vitest';
import { isFull } from '../../src/cache/_errors.js';
import { APPLICATION_ID, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from '../../src/cache/_sqlite-schema.js';
import { openSqliteStore, type SqliteStore } from '../../src/cache/sqlite.js';
import { isGeobatchError } from '../../src/errors.js';
import { entry, scope, storeContract } from './_contract.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-sqlite-'));
let files = 0;
const fresh = () => join(dir, `c${++files}`, 'cache.sqlite');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(path: string, options = {}): SqliteStore {
  const store = openSqliteStore(path, options);
  if (store === undefined) throw new Error('no store');
  return store;
}

interface Refusal {
  code: string;
  message: string;
  file?: string;
  hint?: string;
  received?: string;
  detail?: { problem?: string };
}

function unusableError(path: string): Refusal {
  try {
    openSqliteStore(path)?.close();
  } catch (error) {
    if (isGeobatchError(error)) return { code: error.code, message: error.message, ...error.context };
    throw error;
  }
  throw new Error('opened');
}

describe('SQLite store: the store contract', () => {
  storeContract(async () => open(fresh()));
});

describe('SQLite store: the file', () => {
  it('is created with mode 0600 (and its WAL too) in a directory only its owner can enter', async () => {
    const path = fresh();
    const store = open(path);
    await store.putMany([entry(scope(), 'a', 1)]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    await store.close();
  });

  it('is in WAL mode and carries its schema version', async () => {
    const path = fresh();
    await open(path).close();
    const db = new DatabaseSync(path);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SQLITE_SCHEMA_VERSION });
    db.close();
  });

  it('migrates a file of an older schema, keeping its entries', async () => {
    const path = fresh();
    const older = open(path);
    await older.putMany([entry(scope(), 'kept', 'answer', 5)]);
    await older.close();
    // Back to version 1, as an earlier geobatch left it: no runs table.
    const db = new DatabaseSync(path);
    db.exec('DROP TABLE runs; PRAGMA user_version = 1');
    db.close();
    const store = open(path);
    expect((await store.getMany(scope(), ['kept'])).get('kept')).toEqual({
      value: '"answer"',
      notFound: false,
      createdAt: 5,
    });
    await store.recordRun({
      startedAt: 1,
      endedAt: 2,
      job: 'j',
      hits: 1,
      misses: 0,
      writes: 0,
      requestsSaved: 1,
    });
    expect((await store.stats()).schemaVersion).toBe(SQLITE_MIGRATIONS.length);
    await store.close();
  });

  it('says another process holds the file when it stays locked past the busy timeout', () => {
    const path = fresh();
    open(path).close();
    // Another program's connection holding the whole file (sqlite3 with an exclusive lock, a backup).
    const holder = new DatabaseSync(path);
    holder.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (x)');
    try {
      let error: unknown;
      try {
        openSqliteStore(path, { busyTimeoutMs: 50 })?.close();
      } catch (caught) {
        error = caught;
      }
      expect(isGeobatchError(error) && error.code).toBe('CACHE_UNUSABLE');
      expect(isGeobatchError(error) && error.context).toMatchObject({
        file: path,
        detail: { problem: 'busy' },
      });
      expect(isGeobatchError(error) && error.message).toMatch(
        /cannot be used: another process holds it locked \(SQLite: /,
      );
      expect(isGeobatchError(error) && error.context.hint).toMatch(
        /^another process holds it locked \(another geobatch run writing it, or a program that opened it/,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('refuses a file of a newer geobatch, naming the file and the command that clears it', () => {
    const path = fresh();
    open(path).close();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    db.close();
    const error = unusableError(path);
    expect(error).toMatchObject({ code: 'CACHE_UNUSABLE', file: path, detail: { problem: 'newer' } });
    expect(error.message).toContain(path);
    expect(error.message).toContain('newer geobatch');
    expect(error.hint).toContain(`geobatch cache clear --cache ${path}`);
  });

  it("refuses another program's SQLite database without writing into it, and does not offer to clear it", () => {
    const path = join(dir, 'foreign.sqlite');
    const db = new DatabaseSync(path);
    db.exec('CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (1)');
    db.close();
    const before = readFileSync(path);
    const error = unusableError(path);
    expect(error).toMatchObject({
      code: 'CACHE_UNUSABLE',
      file: path,
      detail: { problem: 'foreign' },
      received: 'an SQLite database of another program (tables: invoices)',
    });
    expect(error.message).toContain('another program');
    expect(error.hint).toContain("check --cache, GEOBATCH_CACHE and the job file's `cache:`");
    expect(error.hint).toContain(`\`geobatch cache clear --force --cache ${path}\``);
    expect(error.hint).not.toContain(`\`geobatch cache clear --cache ${path}\``);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a file that is not SQLite at all, saying what it looks like and to check the settings', () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'geocode these tomorrow\n'.repeat(10));
    const error = unusableError(path);
    expect(error).toMatchObject({
      code: 'CACHE_UNUSABLE',
      file: path,
      detail: { problem: 'not-sqlite' },
      received: 'a text file of 230 bytes',
    });
    expect(error.message).toContain('not an SQLite database but a text file of 230 bytes');
    expect(error.hint).toContain('it is probably the wrong file');
    expect(error.hint).toContain(`\`geobatch cache clear --force --cache ${path}\``);
    expect(error.hint).not.toContain(`\`geobatch cache clear --cache ${path}\``);
  });

  it('refuses a directory as a directory, suggesting a file in it', () => {
    const path = join(dir, 'a-directory');
    mkdirSync(path);
    const error = unusableError(path);
    expect(error).toMatchObject({ code: 'CACHE_UNUSABLE', file: path, detail: { problem: 'directory' } });
    expect(error.message).toContain('it is a directory, not a file');
    expect(error.hint).toContain(`such as ${path}/cache.sqlite`);
  });

  it('refuses a damaged cache file (cut in half) rather than answering from it, and offers to clear it', async () => {
    const path = fresh();
    const store = open(path);
    const s = scope();
    await store.putMany(Array.from({ length: 5000 }, (_, i) => entry(s, `k${i}`, 'x'.repeat(200))));
    await store.close();
    truncateSync(path, Math.floor(statSync(path).size / 2));
    const error = unusableError(path);
    expect(error).toMatchObject({ code: 'CACHE_UNUSABLE', file: path, detail: { problem: 'damaged' } });
    expect(error.message).toContain('damaged');
    expect(error.hint).toContain(`\`geobatch cache clear --cache ${path}\` deletes it`);
  });

  it("marks the file as geobatch's in its header, also a file made before the mark", async () => {
    const path = fresh();
    await open(path).close();
    const applicationId = () => {
      const db = new DatabaseSync(path);
      const row = db.prepare('PRAGMA application_id').get() as { application_id: number };
      db.close();
      return row.application_id;
    };
    expect(applicationId()).toBe(APPLICATION_ID);
    const db = new DatabaseSync(path);
    db.exec('PRAGMA application_id = 0');
    db.close();
    await open(path).close();
    expect(applicationId()).toBe(APPLICATION_ID);
  });

  it('tells a damaged cache from damaged SQLite that is not recognisably one: only the mark says', async () => {
    const damaged = async (mark: boolean) => {
      const path = fresh();
      const store = open(path);
      await store.putMany([entry(scope(), 'a', 1)]);
      await store.close();
      const bytes = readFileSync(path);
      if (!mark) bytes.writeUInt32BE(0, 68);
      // Pages 2 and on (the meta table and the geobatch name in it among them) overwritten.
      bytes.fill(0xee, 4096);
      writeFileSync(path, bytes);
      return unusableError(path).detail?.problem;
    };
    expect(await damaged(true)).toBe('damaged');
    expect(await damaged(false)).toBe('foreign');
  });

  it('read-only: a missing file stays missing, and nothing is written', async () => {
    const path = fresh();
    expect(openSqliteStore(path, { readOnly: true })).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    await open(path).close();
    const store = open(path, { readOnly: true });
    await store.putMany([entry(scope(), 'a', 1)]);
    await store.recordRun({
      startedAt: 1,
      endedAt: 2,
      job: 'j',
      hits: 0,
      misses: 1,
      writes: 0,
      requestsSaved: 0,
    });
    expect((await store.getMany(scope(), ['a'])).size).toBe(0);
    expect((await store.stats()).runs).toEqual([]);
    await store.close();
  });

  it('a full disk fails the write as SQLITE_FULL, and what was committed before stays readable', async () => {
    const path = fresh();
    const store = open(path, { maxBytes: 64 * 1024 });
    const s = scope();
    await store.putMany([entry(s, 'first', 1)]);
    const big = Array.from({ length: 2000 }, (_, i) => entry(s, `k${i}`, 'x'.repeat(100)));
    const failure = await store.putMany(big).catch((error: unknown) => error);
    expect(isFull(failure)).toBe(true);
    expect([...(await store.getAll(s)).keys()]).toEqual(['first']);
    await store.close();
  });
});

/** A child process writing `rounds` transactions of `per` entries to `path`, printing each commit. */
function writer(path: string, name: string, rounds: number, per: number) {
  const script = [
    "import { openSqliteStore } from './src/cache/sqlite.ts';",
    "import { scopeOf } from './src/cache/key.ts';",
    'const store = openSqliteStore(process.env.CACHE_FILE);',
    "const scope = scopeOf({ interface: 'geocoding', service: 's', operation: 'o', params: {}, format: 1 });",
    `for (let r = 0; r < ${rounds}; r++) {`,
    `  const batch = Array.from({ length: ${per} }, (_, i) => ({ scope, item: '${name}' + r + ':' + i, value: JSON.stringify('v'.repeat(300)), notFound: false, createdAt: Date.now() }));`,
    '  await store.putMany(batch);',
    "  process.stdout.write(String(r + 1) + '\\n');",
    '}',
    'await store.close();',
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...process.env, CACHE_FILE: path },
  });
  let committed = 0;
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    const lines = d.toString().trim().split('\n');
    committed = Number(lines[lines.length - 1]);
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, committed: () => committed, stderr: () => stderr };
}

/** Runs a module script (from the repository, through tsx) with CACHE_FILE set; resolves to its output. */
function run(script: string, path: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...process.env, CACHE_FILE: path },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) => child.on('exit', () => resolve(out)));
}

function integrity(path: string): { check: string; entries: number } {
  const db = new DatabaseSync(path);
  const check = (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
  const entries = (db.prepare('SELECT COUNT(*) AS n FROM entries').get() as { n: number }).n;
  db.close();
  return { check, entries };
}

describe('SQLite store: under real conditions', () => {
  it('two processes opening a new cache file at the same instant both get it (6 pairs)', async () => {
    // A new file is switched to WAL mode, which SQLite refuses at once (BUSY, its busy timeout
    // unused) while the other process holds a read lock: 23 of 40 such pairs failed before.
    const opener = (path: string, start: number) =>
      run(
        [
          "import { openSqliteStore } from './src/cache/sqlite.ts';",
          `await new Promise((r) => setTimeout(r, Math.max(0, ${start} - 5 - Date.now())));`,
          `while (Date.now() < ${start}) {}`,
          'try { await openSqliteStore(process.env.CACHE_FILE).close(); console.log("ok"); }',
          'catch (error) { console.log(error.code, error.message); }',
        ].join('\n'),
        path,
      );
    const results: string[] = [];
    // One pair at a time: both loaded and waiting when the instant comes.
    for (let pair = 0; pair < 6; pair++) {
      const path = fresh();
      const start = Date.now() + 2000;
      results.push(...(await Promise.all([opener(path, start), opener(path, start)])).map((r) => r.trim()));
    }
    expect(results).toEqual(results.map(() => 'ok'));
  }, 30_000);

  it('two processes writing one file at once both succeed, and every entry arrives', async () => {
    const path = fresh();
    await open(path).close();
    const a = writer(path, 'a', 40, 50);
    const b = writer(path, 'b', 40, 50);
    expect([await a.exited, await b.exited]).toEqual([0, 0]);
    expect(a.stderr() + b.stderr()).toBe('');
    expect(integrity(path)).toEqual({ check: 'ok', entries: 4000 });
  });

  it('kill -9 in the middle of writes leaves an intact file holding every committed batch', async () => {
    const path = fresh();
    await open(path).close();
    const run = writer(path, 'k', 100_000, 200);
    const deadline = Date.now() + 30_000;
    while (run.committed() < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    run.child.kill('SIGKILL');
    await run.exited;
    const committed = run.committed();
    expect(committed).toBeGreaterThanOrEqual(20);
    const after = integrity(path);
    expect(after.check).toBe('ok');
    // Everything reported committed is there; a batch in the middle of its write is all or nothing.
    expect(after.entries).toBeGreaterThanOrEqual(committed * 200);
    expect(after.entries % 200).toBe(0);
    const store = open(path);
    expect((await store.getMany(scope(), ['x'])).size).toBe(0);
    await store.close();
  });
});

describe('SQLite store: reading ahead in file order', () => {
  const items = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `item ${from + i}`);
  const valuesOf = (found: Map<string, { value: string }>) =>
    Object.fromEntries([...found].map(([item, e]) => [item, JSON.parse(e.value) as unknown]));
  const expected = (list: string[]) => Object.fromEntries(list.map((item) => [item, `answer of ${item}`]));

  async function filled(count: number, other?: ReturnType<typeof scope>): Promise<SqliteStore> {
    const store = open(fresh());
    // Another scope's entries in between: a stretch of the table holds both, only ours may come back.
    const written = items(0, count).flatMap((item) => [
      entry(scope(), item, `answer of ${item}`),
      ...(other === undefined ? [] : [entry(other, item, `other answer of ${item}`)]),
    ]);
    await store.putMany(written);
    return store;
  }

  it('serves batches asked in the order they were written from the stretch after the last hits', async () => {
    const other = scope('geocoding', { other: true });
    const store = await filled(2000, other);
    for (let from = 0; from < 2000; from += 500) {
      const batch = items(from, from + 500);
      expect(valuesOf(await store.getMany(scope(), batch))).toEqual(expected(batch));
    }
    // The first batch goes through the index; the other three are read ahead.
    expect(store.found).toEqual({ ahead: 1500, indexed: 500 });
    expect(valuesOf(await store.getMany(other, items(0, 3)))).toEqual({
      'item 0': 'other answer of item 0',
      'item 1': 'other answer of item 1',
      'item 2': 'other answer of item 2',
    });
    await store.close();
  });

  it('finds what the stretch lacks through the index: changed rows, rows answered out of order', async () => {
    const store = await filled(2000);
    // Row 620 changed since: its new entry is at the end of the table, far from its old one.
    await store.putMany([entry(scope(), 'item 620 changed', 'answer of item 620 changed')]);
    expect((await store.getMany(scope(), items(0, 500))).size).toBe(500);
    const batch = [...items(500, 1000).filter((i) => i !== 'item 620'), 'item 620 changed', 'new item'];
    batch.reverse();
    const found = await store.getMany(scope(), batch);
    expect(valuesOf(found)).toEqual(expected(batch.filter((i) => i !== 'new item')));
    expect(store.found).toEqual({ ahead: 499, indexed: 500 + 1 });
    await store.close();
  });

  it('keeps reading ahead when each batch has a few changed rows, whose entries are at the end', async () => {
    const store = await filled(3000);
    const changed = (from: number) => `item ${from + 7} changed`;
    await store.putMany([0, 500, 1000, 1500, 2000, 2500].map((from) => entry(scope(), changed(from), 'new')));
    for (let from = 0; from < 3000; from += 500) {
      const batch = items(from, from + 500).map((item, i) => (i === 7 ? changed(from) : item));
      expect((await store.getMany(scope(), batch)).size).toBe(500);
    }
    // The first batch by index; then every batch's 499 unchanged rows read ahead, its changed one
    // by index, but for the last: its stretch reaches the table's end, where the changed rows are.
    expect(store.found).toEqual({ ahead: 5 * 499 + 1, indexed: 500 + 4 });
    await store.close();
  });

  it('stops reading ahead when the hits are scattered, and takes it up again when they are dense', async () => {
    const store = await filled(3000);
    const every10th = (from: number) => items(from, from + 1000).filter((_, i) => i % 10 === 0);
    const step = async (batch: string[]) => {
      const before = { ...store.found };
      expect((await store.getMany(scope(), batch)).size).toBe(batch.length);
      return { ahead: store.found.ahead - before.ahead, indexed: store.found.indexed - before.indexed };
    };
    expect(await step(items(0, 100))).toEqual({ ahead: 0, indexed: 100 });
    // Every tenth entry: the stretch after the first batch holds 12 of them; then no stretch.
    expect(await step(every10th(100))).toEqual({ ahead: 12, indexed: 88 });
    expect(await step(every10th(1100))).toEqual({ ahead: 0, indexed: 100 });
    expect(await step(items(2100, 2200))).toEqual({ ahead: 0, indexed: 100 });
    expect(await step(items(2200, 2300))).toEqual({ ahead: 100, indexed: 0 });
    await store.close();
  });
});
