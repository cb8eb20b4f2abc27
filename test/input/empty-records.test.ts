/**
 * CSV as Excel and old tools leave it: records with no data (`;;;;`, the formatted but empty rows
 * at a sheet's end) and DOS's end-of-file mark (Ctrl-Z, 0x1A, as the last byte). Both were rows
 * that failed, so every run of such a file ended with exit 3; they are now what a blank line is,
 * and the end of the file.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openReader } from '../../src/input/open.js';
import { collect, fieldsOf, readChunks, readText, shape } from './_read.js';

describe('CSV records with no data', () => {
  it.each([
    [',', 'id,lon,lat\n1,13.4,52.5\n,,\n2,11.5,48.1\n,,\n,,\n'],
    [';', 'id;lon;lat;;\r\n1;13,4;52,5;;\r\n;;;;\r\n2;11,5;48,1;;\r\n;;;;\r\n;;;;\r\n'],
    ['\t', 'id\tlon\tlat\r\n1\t13.4\t52.5\r\n\t\t\r\n2\t11.5\t48.1\r\n\t\t\r\n\t\t\r\n'],
  ])('skips them with %j as blank lines are skipped: no row number, counted as blank', async (_d, text) => {
    const { items, reader } = await readText(text, 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@4:row']);
    expect(fieldsOf(items).map((f) => (f as Record<string, string>).id)).toEqual(['1', '2']);
    expect(reader.lineCounts()).toEqual({ lines: 6, blank: 3, header: 1 });
  });

  it('skips quoted empty cells, white space and fewer or more cells than the header alike', async () => {
    const text = 'id;city\n1;Bonn\n"";""\n  ; \t\n;\n;;;;;\n"  "\n2;Köln\n';
    const { items, reader } = await readText(text, 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@8:row']);
    expect(reader.lineCounts()).toEqual({ lines: 8, blank: 5, header: 1 });
  });

  it('keeps a record with one cell of data, however many are empty', async () => {
    const text = 'id;lon;lat;note\n;;;x\n";";;;\n0;;;\n;;;;\n';
    const { items } = await readText(text, 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@3:row', '2@4:row']);
    expect(fieldsOf(items)).toEqual([
      { id: '', lon: '', lat: '', note: 'x' },
      { id: ';', lon: '', lat: '', note: '' },
      { id: '0', lon: '', lat: '', note: '' },
    ]);
  });

  it('counts a quoted field of line breaks alone as the blank lines it spans', async () => {
    const { items, reader } = await readText('id,note\n1,a\n"\r\n",\n2,b\n', 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@5:row']);
    expect(reader.lineCounts()).toEqual({ lines: 5, blank: 2, header: 1 });
  });

  it('skips them above the header, and reads the delimiter from the header, not from them', async () => {
    for (const lead of ['\r\n\r\n', ';;;\r\n"";""\r\n', ' \t\r\n;;;\r\n']) {
      const { items, reader } = await readText(`${lead}id;lon;lat\r\n1;13,4;52,5\r\n`, 'csv');
      expect(reader.columns(), JSON.stringify(lead)).toEqual(['id', 'lon', 'lat']);
      expect(fieldsOf(items)).toEqual([{ id: '1', lon: '13,4', lat: '52,5' }]);
      expect(reader.lineCounts()).toEqual({ lines: 4, blank: 2, header: 1 });
    }
  });

  it('waits on a pipe for the header past the blank lines that come first', async () => {
    // The producer sends two blank lines, stays quiet longer than the look-ahead waits, then the
    // header: the delimiter is the header's, not the comma a blank line gives.
    async function* slow() {
      yield Buffer.from('\n;;\n');
      await new Promise((resolve) => setTimeout(resolve, 400));
      yield Buffer.from('id;lon\n1;2\n');
    }
    const reader = await openReader({ path: '-', format: 'csv', stdin: Readable.from(slow()) });
    expect(reader.columns()).toEqual(['id', 'lon']);
    expect(fieldsOf(await collect(reader))).toEqual([{ id: '1', lon: '2' }]);
  });

  it('still gives a record whose field count is wrong but has data its report row', async () => {
    const { items } = await readText('a;b;c\n;x\n;;\n', 'csv');
    expect(shape(items)).toEqual(['0@2:issue']);
    expect(items[0]).toMatchObject({ code: 'INPUT_MALFORMED', raw: ';x' });
  });

  it('reads an input of no-data records alone as one without a header', async () => {
    const { items, reader } = await readText(';;;\r\n;;;\r\n', 'csv');
    expect(items).toEqual([]);
    expect(reader.columns()).toEqual([]);
    expect(reader.lineCounts()).toEqual({ lines: 2, blank: 2, header: 0 });
  });
});

describe("DOS's end-of-file mark (Ctrl-Z)", () => {
  it('ends the file as its last byte after the last line break: no row, no line', async () => {
    const text = 'id,lon,lat\r\n1,13.4,52.5\r\n\x1a';
    const { items, reader } = await readText(text, 'csv');
    expect(shape(items)).toEqual(['0@2:row']);
    expect(reader.lineCounts()).toEqual({ lines: 2, blank: 0, header: 1 });
    expect(reader.position?.()).toEqual({ records: 1, bytes: Buffer.byteLength(text), ended: true });
  });

  it('ends the file right after the last cell, which keeps its text', async () => {
    const { items } = await readText('id;city\n1;Bonn\n2;Köln\x1a', 'csv');
    expect(fieldsOf(items)).toEqual([
      { id: '1', city: 'Bonn' },
      { id: '2', city: 'Köln' },
    ]);
  });

  it('ends the file in a chunk of its own, read from a pipe', async () => {
    const chunks = ['id,n\n1,a\n2,', 'b\n', '\x1a'].map((c) => Buffer.from(c));
    const { items, reader } = await readChunks(chunks, 'csv');
    expect(fieldsOf(items)).toEqual([
      { id: '1', n: 'a' },
      { id: '2', n: 'b' },
    ]);
    expect(reader.lineCounts().lines).toBe(3);
  });

  it('ends an NDJSON file too', async () => {
    const { items } = await readText('{"id":1}\n{"id":2}\n\x1a', 'ndjson');
    expect(shape(items)).toEqual(['0@1:row', '1@2:row']);
  });

  const collection = (features: string) => `{"type":"FeatureCollection","features":[${features}]}`;
  const feature = (id: number) =>
    `{"type":"Feature","properties":{"id":${id}},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}`;

  it('ends a GeoJSON file, the position at its size', async () => {
    const text = `${collection(`${feature(1)},${feature(2)}`)}\r\n\x1a`;
    const { items, reader } = await readText(text, 'geojson');
    expect(fieldsOf(items)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(reader.position?.()).toEqual({ records: 2, bytes: Buffer.byteLength(text), ended: true });
  });

  it('ends a GeoJSON file in a chunk of its own, and is held back only while it is last', async () => {
    const whole = collection(`${feature(1)},${feature(2)}`);
    const chunks = [whole.slice(0, 40), whole.slice(40), '\x1a'].map((c) => Buffer.from(c));
    expect(fieldsOf((await readChunks(chunks, 'geojson')).items)).toEqual([{ id: 1 }, { id: 2 }]);
    // A 0x1A that a byte follows is no end: JSON has no place for it.
    // One feature a line, so that the first is read before the line that the 0x1A breaks.
    const lines = collection(`\n${feature(1)},\n${feature(2)}\n`);
    const at = lines.indexOf(feature(2));
    const inside = [lines.slice(0, at), '\x1a', lines.slice(at)].map((c) => Buffer.from(c));
    expect(fieldsOf((await readChunks(inside, 'geojson')).items)).toEqual([{ id: 1 }, 'INPUT_MALFORMED']);
  });

  it('is text anywhere but as the last byte', async () => {
    const { items } = await readText('id,n\n1,a\x1ab\n\x1a\n2,c\n', 'csv');
    expect(fieldsOf(items)).toEqual([{ id: '1', n: 'a\x1ab' }, 'INPUT_MALFORMED', { id: '2', n: 'c' }]);
  });

  it('in a windows-1252 file too', async () => {
    const bytes = Buffer.concat([
      Buffer.from('id;Ort\r\n1;K', 'latin1'),
      Buffer.from([0xf6]),
      Buffer.from('ln\r\n\x1a'),
    ]);
    const { items } = await readText(bytes, 'csv', { encoding: 'windows-1252' });
    expect(fieldsOf(items)).toEqual([{ id: '1', Ort: 'Köln' }]);
  });
});
