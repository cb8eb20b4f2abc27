/**
 * The cache writer against another process's lock on the file (a `cache prune`, an `sqlite3`
 * shell left in a transaction): the answers wait and are written once it is free, instead of
 * caching stopping for the rest of the night after one busy write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { scopeOf } from '../../src/cache/key.js';
import { openSqliteStore } from '../../src/cache/sqlite.js';
import { createTally } from '../../src/cache/tally.js';
import { CacheWriter } from '../../src/cache/writer.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-cache-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scope = scopeOf({ interface: 'geocoding', service: 's', operation: 'o', params: {}, format: 1 });
const entry = (item: string) => ({
  scope,
  item,
  value: '{"ok":true,"value":1}',
  notFound: false,
  createdAt: 1,
});

describe('the cache writer', () => {
  it('keeps answers while another process holds the file locked, and writes them once it is free', async () => {
    const path = join(dir, 'locked.sqlite');
    const store = openSqliteStore(path, { writeBusyTimeoutMs: 20 });
    if (store === undefined) throw new Error('no store');
    const tally = createTally();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line).msg) });
    const writer = new CacheWriter(store, tally, logger);
    writer.add(entry('before'));
    await writer.flush();

    const other = new DatabaseSync(path);
    other.exec('BEGIN EXCLUSIVE');
    for (let i = 0; i < 50; i++) writer.add(entry(`k${i}`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(writer.stopped).toBe(false);
    expect(tally.writes).toBe(1);
    setTimeout(() => other.exec('COMMIT'), 1200);
    await writer.flush();
    other.close();

    expect(writer.stopped).toBe(false);
    expect(tally.writes).toBe(51);
    expect(tally.problems).toEqual([]);
    expect((await store.getMany(scope, ['k0', 'k49'])).size).toBe(2);
    expect(lines).toContain(
      'Request cache: another process holds the file locked; answers wait and are written when it is free',
    );
    await store.close();
  });
});
