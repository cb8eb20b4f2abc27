import { describe, expect, it } from 'vitest';
import { BATCH_ITEMS, BATCHES, batched, batchesOf } from '../../src/batches.js';
import { isGeobatchError } from '../../src/errors.js';
import { openReader } from '../../src/input/open.js';
import type { InputReader, ReaderOptions } from '../../src/input/reader.js';
import type { ReadItem } from '../../src/types.js';
import { collect, tempFile } from './_read.js';

async function inBatches(reader: InputReader): Promise<{ items: ReadItem[]; sizes: number[] }> {
  const batches = batchesOf(reader);
  const items: ReadItem[] = [];
  const sizes: number[] = [];
  for (let next = await batches.next(); next.done !== true; next = await batches.next()) {
    items.push(...next.value);
    sizes.push(next.value.length);
  }
  return { items, sizes };
}

const rows = (n: number, row: (i: number) => string) => Array.from({ length: n }, (_, i) => row(i)).join('');

/** Inputs with what readers must get right: records over several lines, bad records, blank lines. */
const INPUTS: [name: string, format: ReaderOptions['format'], content: string][] = [
  ['CSV, 1,000 plain rows', 'csv', `id,name\n${rows(1000, (i) => `${i},name ${i}\n`)}`],
  [
    'CSV, quoted line breaks, stray quotes, blank lines, CRLF',
    'csv',
    `\uFEFFid,text\r\n${rows(300, (i) => (i % 7 === 0 ? `${i},"two\r\nlines"\r\n` : i % 11 === 0 ? `${i},bad "quote\r\n\r\n` : `${i},x\r\n`))}`,
  ],
  ['CSV, a record too long', 'csv', `id,text\n1,a\n2,${'x'.repeat(5000)}\n3,b\n`],
  [
    'NDJSON, bad and blank lines',
    'ndjson',
    rows(500, (i) => (i % 9 === 0 ? 'not json\n' : i % 13 === 0 ? '\n' : `{"id":${i},"name":"n${i}"}\n`)),
  ],
  [
    'GeoJSON',
    'geojson',
    JSON.stringify({
      type: 'FeatureCollection',
      features: ['a', 'b', 'c'].map((id) => ({
        type: 'Feature',
        properties: { id },
        geometry: { type: 'Point', coordinates: [7, 50] },
      })),
    }),
  ],
];

describe('readers in batches', () => {
  for (const [name, format, content] of INPUTS) {
    it(`hand out the same items, lines and columns in batches as one by one: ${name}`, async () => {
      const path = tempFile(content);
      const options = { path, format, maxRecordBytes: 4096 } as const;
      const one = await openReader(options);
      const items = await collect(one);
      const many = await openReader(options);
      const { items: batchedItems, sizes } = await inBatches(many);
      expect(batchedItems).toEqual(items);
      expect(items.length).toBeGreaterThan(0);
      expect(many.lineCounts()).toEqual(one.lineCounts());
      expect(many.columns()).toEqual(one.columns());
      expect(Math.max(...sizes)).toBeLessThanOrEqual(BATCH_ITEMS);
      // CSV and NDJSON hand out real batches; GeoJSON one item at a time.
      if (format !== 'geojson' && items.length > BATCH_ITEMS) expect(sizes.length).toBeLessThan(items.length);
    });
  }

  it('are still read once: taking the batches after the items is refused', async () => {
    const reader = await openReader({ path: tempFile('id\n1\n'), format: 'csv' });
    await collect(reader);
    let error: unknown;
    try {
      reader[BATCHES]?.();
    } catch (e) {
      error = e;
    }
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
  });
});

describe('batches.ts', () => {
  it('flattens batches for whoever takes items one by one, and closes the source when they stop early', async () => {
    let closed = false;
    const source = batched(async function* () {
      try {
        yield [1, 2, 3];
        yield [4, 5];
      } finally {
        closed = true;
      }
    });
    const taken: number[] = [];
    for await (const n of source) {
      taken.push(n);
      if (n === 4) break;
    }
    expect(taken).toEqual([1, 2, 3, 4]);
    expect(closed).toBe(true);
  });

  it('makes one-item batches of a plain async iterable and hands on return()', async () => {
    let closed = false;
    async function* plain() {
      try {
        yield 'a';
        yield 'b';
      } finally {
        closed = true;
      }
    }
    const batches = batchesOf(plain());
    expect(await batches.next()).toEqual({ done: false, value: ['a'] });
    await batches.return?.();
    expect(closed).toBe(true);
  });
});
