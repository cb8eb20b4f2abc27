/** Damage where opening a cache file never looks: the leaf pages of its `entries` table. */
import { closeSync, openSync, writeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

/**
 * Overwrites every leaf page of `entries` with bytes SQLite cannot read, leaving the header, the
 * schema, `meta` and the index intact: the file opens, and a lookup that reaches an entry fails
 * with SQLITE_CORRUPT. The file must be closed (its WAL checkpointed). Resolves to the page count.
 */
export function damageEntries(path: string): number {
  const db = new DatabaseSync(path);
  const { page_size: size } = db.prepare('PRAGMA page_size').get() as { page_size: number };
  const pages = (
    db.prepare("SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf'").all() as {
      pageno: number;
    }[]
  ).map((row) => row.pageno);
  db.close();
  const fd = openSync(path, 'r+');
  try {
    for (const page of pages) writeSync(fd, Buffer.alloc(size, 0xee), 0, size, (page - 1) * size);
  } finally {
    closeSync(fd);
  }
  return pages.length;
}
