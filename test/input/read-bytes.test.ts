import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/input/_lines.js';
import { readCsv } from '../../src/input/csv.js';
import { readGeojson } from '../../src/input/geojson.js';
import { readNdjson } from '../../src/input/ndjson.js';
import { ByteReach, type ReadPosition, unread } from '../../src/input/reader.js';
import type { ReadItem } from '../../src/types.js';

const utf8 = { encoding: 'utf-8', bom: 0 } as const;
const csvSettings = { delimiter: ',', maxRecordBytes: 1 << 20, maxRecordLines: 100, onWarning: () => {} };

/** `bytes` in chunks of `size`, as the reader's source hands them over. */
async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Each batch the reader hands on, with its position right then. */
async function batches(
  read: AsyncIterable<readonly ReadItem[] | ReadItem>,
  position: ReadPosition,
): Promise<{ items: number; at: ReadPosition }[]> {
  const seen: { items: number; at: ReadPosition }[] = [];
  for await (const batch of read) {
    seen.push({ items: Array.isArray(batch) ? batch.length : 1, at: { ...position } });
  }
  return seen;
}

function csvState(position: ReadPosition) {
  return { columns: [] as readonly string[], blankLines: 0, headerLines: 0, lines: 0, position };
}

describe('LineSplitter bytes', () => {
  it('counts the bytes up to the end of the last whole line, byte order mark and line breaks included', () => {
    const splitter = new LineSplitter({ encoding: 'utf-8', bom: 3, maxLineBytes: 64, crLines: false });
    splitter.push(Buffer.from('\ufeffa\r\nbc'));
    expect(splitter.bytes).toBe(6);
    splitter.push(Buffer.from('d\nééé'));
    expect(splitter.bytes).toBe(10);
    splitter.end();
    expect(splitter.bytes).toBe(16);
  });
});

describe('ByteReach', () => {
  it('is exact at the end of each batch and in proportion inside it', () => {
    const reach = new ByteReach();
    reach.mark(10, 1000);
    expect(reach.at(5)).toBe(500);
    reach.mark(20, 1400);
    expect([reach.at(10), reach.at(15), reach.at(20), reach.at(3)]).toEqual([1000, 1200, 1400, 1000]);
  });
});

describe('how far a reader has handed records on', () => {
  it('CSV: each batch ends where its last record ends, not where the bytes read end', async () => {
    // Rows of one length, so that the proportion inside a chunk is exact.
    const row = (i: number) => `${String(i).padStart(6, '0')},some street,1\n`;
    const header = 'id,street,no\n';
    const text = header + Array.from({ length: 5000 }, (_, i) => row(i)).join('');
    const bytes = Buffer.from(text);
    const position = unread();
    const seen = await batches(
      readCsv(chunked(bytes, 65536), utf8, csvSettings, csvState(position)),
      position,
    );
    let records = 0;
    for (const { items, at } of seen) {
      records += items;
      expect(at).toMatchObject({ records, ended: false });
      // Exact where a chunk's lines end; inside a chunk, the header's shorter line shifts it a little.
      expect(Math.abs(at.bytes - (header.length + records * row(0).length))).toBeLessThan(row(0).length);
    }
    expect(position).toEqual({ records: 5000, bytes: bytes.length, ended: true });
  });

  it('CSV: a record over several lines ends on its last line; the end is the file size', async () => {
    const text = 'a,b\n1,"x\ny\nz"\n2,w\n\n3,v';
    const position = unread();
    const seen = await batches(
      readCsv(chunked(Buffer.from(text), 5), utf8, csvSettings, csvState(position)),
      position,
    );
    const ends = seen.map(({ at }) => at);
    expect(ends.map((at) => at.records)).toEqual([1, 2, 3]);
    expect(ends[0]?.bytes).toBeGreaterThanOrEqual(text.indexOf('z"') + 3);
    expect(position).toEqual({ records: 3, bytes: text.length, ended: true });
  });

  it('NDJSON: skips blank lines in the count, and ends at the file size', async () => {
    const line = (i: number) => `${JSON.stringify({ id: String(i).padStart(5, '0') })}\n`;
    const text = Array.from({ length: 1000 }, (_, i) => line(i)).join('');
    const position = unread();
    const state = { columns: [] as readonly string[], lines: 0, blankLines: 0, position };
    const seen = await batches(
      readNdjson(chunked(Buffer.from(`${text}\n`), 4096), utf8, 1 << 20, state),
      position,
    );
    expect(seen[0]?.at).toEqual({ records: 64, bytes: 64 * line(0).length, ended: false });
    expect(position).toEqual({ records: 1000, bytes: text.length + 1, ended: true });
  });

  it('GeoJSON: counts features and places their ends in bytes to within a feature', async () => {
    const feature = (i: number) =>
      JSON.stringify({ type: 'Feature', properties: { name: `plätz ${i}` }, geometry: null });
    const head = '{"type":"FeatureCollection","features":[\n';
    const features = Array.from({ length: 2000 }, (_, i) => `${feature(i)},\n`);
    const text = `${head}${features.join('').slice(0, -2)}\n]}\n`;
    const bytes = Buffer.from(text);
    // Where each feature ends, with the comma and line break after it.
    let end = head.length;
    const ends = features.map((line) => (end += Buffer.byteLength(line)));
    const position = unread();
    const state = { columns: [] as readonly string[], truncated: false, position };
    const settings = { path: 'x.geojson', maxRecordBytes: 1 << 20, onWarning: () => {} };
    const seen = await batches(readGeojson(chunked(bytes, 16384), utf8, settings, state), position);
    expect(seen.map(({ at }) => at.records)).toEqual(features.map((_, i) => i + 1));
    for (const { at } of seen) {
      expect(Math.abs(at.bytes - (ends[at.records - 1] as number))).toBeLessThan(
        Buffer.byteLength(features[0] as string),
      );
    }
    expect(position).toEqual({ records: 2000, bytes: bytes.length, ended: true });
  });
});
