import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openReader } from '../../src/input/open.js';
import { numberTextKeys } from '../../src/number-texts.js';
import { retainedHeap } from '../fixtures/gc.js';
import { collect, fieldsOf, hugeRecord, readChunks, readText, shape } from './_read.js';

describe('NDJSON reader', () => {
  it('reads one object per line with its line number', async () => {
    const { reader, items } = await readText('{"a":1,"b":"x"}\n{"a":2,"c":true}\n', 'ndjson');
    expect(fieldsOf(items)).toEqual([
      { a: 1, b: 'x' },
      { a: 2, c: true },
    ]);
    expect(shape(items)).toEqual(['0@1:row', '1@2:row']);
    expect(reader.columns()).toEqual(['a', 'b']);
  });

  it('holds unreadable first lines back until a row names the columns, within a bound', async () => {
    const firstSeen = async (bad: number) => {
      // Lines long enough that 10,001 of them outgrow the reader's first mebibyte.
      const line = `[${'1,'.repeat(100)}2]\n`;
      const chunks = [Buffer.from(line.repeat(bad)), Buffer.from('{"a":1,"b":2}\n')];
      const reader = await openReader({ path: '-', format: 'ndjson', stdin: Readable.from(chunks) });
      let first: readonly string[] | undefined;
      let count = 0;
      for await (const _ of reader) {
        first ??= [...reader.columns()];
        count++;
      }
      return { first, count };
    };
    expect(await firstSeen(6_000)).toEqual({ first: ['a', 'b'], count: 6_001 });
    // No more than 10,000 records wait: beyond, they leave before the columns are known.
    expect(await firstSeen(10_001)).toEqual({ first: [], count: 10_002 });
  });

  it('marks the input cut short when it ends inside its last line, with no line break after it', async () => {
    const cut = await readText('{"a":1}\n{"a":2,"b":8.', 'ndjson');
    expect(shape(cut.items)).toEqual(['0@1:row', '1@2:issue']);
    expect(cut.reader.truncated()).toBe(true);
    expect(cut.items[1]?.kind === 'issue' && cut.items[1].message).toMatch(
      /^NDJSON input ends inside line 2, which is not whole JSON \(.+\): was the file cut short\?$/,
    );
    // The same line with its line break is a bad line of a whole file; a whole last line is whole.
    for (const text of ['{"a":1}\n{"a":2,"b":8.\n', '{"a":1}\n{"a":2}', '{"a":1}\n[1,2]']) {
      const { reader } = await readText(text, 'ndjson');
      expect(reader.truncated(), text).toBe(false);
    }
  });

  it('reports lines that are not JSON or not objects and keeps reading', async () => {
    const { items } = await readText('{"a":1}\nnot json\n[1,2]\n"text"\n{"a":2}\n', 'ndjson');
    expect(shape(items)).toEqual(['0@1:row', '1@2:issue', '2@3:issue', '3@4:issue', '4@5:row']);
    const issue = items[2];
    expect(issue?.kind === 'issue' && issue).toMatchObject({
      stage: 'input',
      code: 'INPUT_MALFORMED',
      message: 'Malformed NDJSON line: expected a JSON object, got an array',
      raw: '[1,2]',
    });
  });

  it('reads a line that is a GeoJSON Feature as a feature (.geojsonl): properties, geometry, numbers kept', async () => {
    const text = [
      '{"type":"Feature","geometry":{"type":"Point","coordinates":[8.40,49.0094]},"properties":{"id":12345678901234567891,"name":"a"}}',
      '{"type":"Feature","geometry":null,"properties":null}',
      '{"type":"Feature","geometry":{"type":"Point","coordinates":[8.4]},"properties":{"name":"c"}}',
      '{"type":"Feature","name":"no geometry member: an ordinary object"}',
    ].join('\n');
    const { reader, items } = await readText(text, 'ndjson');
    expect(shape(items)).toEqual(['0@1:row', '1@2:row', '2@3:issue', '3@4:row']);
    expect(items[0]).toMatchObject({
      fields: { id: '12345678901234567891', name: 'a' },
      geometry: { type: 'Point', coordinates: [8.4, 49.0094] },
    });
    expect(items[1]).toMatchObject({ fields: {}, geometry: null });
    expect(items[2]).toMatchObject({
      code: 'INPUT_MALFORMED',
      message:
        'Invalid GeoJSON feature: expected the coordinates of the Point to be a position of two or three numbers, got [8.4]',
      raw: text.split('\n')[2],
    });
    expect(fieldsOf(items)[3]).toEqual({ type: 'Feature', name: 'no geometry member: an ordinary object' });
    expect(reader.columns()).toEqual(['id', 'name']);
  });

  it('skips blank lines without an index but counts their lines', async () => {
    const { items } = await readText('\n{"a":1}\n   \n\r\n{"a":2}', 'ndjson');
    expect(shape(items)).toEqual(['0@2:row', '1@5:row']);
  });

  it('keeps nested values as JSON text so that every output format can hold them', async () => {
    const { items } = await readText('{"a":{"b":[1,2]},"n":null}\n', 'ndjson');
    expect(fieldsOf(items)).toEqual([{ a: '{"b":[1,2]}', n: null }]);
  });

  it('keeps a `__proto__` key as a field rather than a prototype', async () => {
    const { items } = await readText('{"__proto__":{"x":1},"a":2}\n', 'ndjson');
    const fields = items[0]?.kind === 'row' ? items[0].fields : {};
    expect(Object.keys(fields)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });

  it('reads CRLF line ends', async () => {
    const { items } = await readText('{"a":1}\r\n{"a":2}\r\n', 'ndjson');
    expect(fieldsOf(items)).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('reads standard input, keeping a character split across chunks whole', async () => {
    const bytes = Buffer.from('{"city":"Köln"}\n{"city":"Zürich"}\n');
    const cut = bytes.indexOf(0xc3) + 1;
    const { items } = await readChunks([bytes.subarray(0, cut), bytes.subarray(cut)], 'ndjson');
    expect(fieldsOf(items)).toEqual([{ city: 'Köln' }, { city: 'Zürich' }]);
  });
});

describe('NDJSON reader: files joined', () => {
  it('reads a line that starts with a byte order mark, as where two files were joined with cat', async () => {
    const { items } = await readText('\ufeff{"id":"1"}\n\ufeff{"id":"2"}\n{"id":"3"}\n', 'ndjson');
    expect(fieldsOf(items)).toEqual([{ id: '1' }, { id: '2' }, { id: '3' }]);
  });
});

describe('NDJSON reader: lone UTF-16 surrogates', () => {
  it('fails the row naming the field, rather than writing U+FFFD for it, and keeps the other fields', async () => {
    const line = String.raw`{"id":1,"name":"a\ud800b"}`;
    const { items } = await readText(`{"id":0,"name":"ok"}\n${line}\n{"id":2,"name":"ok"}\n`, 'ndjson');
    expect(shape(items)).toEqual(['0@1:row', '1@2:issue', '2@3:row']);
    expect(items[1]).toEqual({
      kind: 'issue',
      ref: { index: 1, line: 2 },
      stage: 'input',
      code: 'INPUT_MALFORMED',
      field: 'name',
      message:
        'Malformed NDJSON line: field "name" holds \\ud800, half of a UTF-16 surrogate pair without its other half: it is no character, and cannot be written as UTF-8',
      raw: line,
      // Its output record and its report line still say which row it is.
      fields: { id: 1, name: null },
    });
  });

  it('fails a value holding a NUL (\\u0000) the same way, which GeoPackage readers would cut at', async () => {
    const line = String.raw`{"id":1,"name":"ab\u0000cd","lat":49}`;
    const { items } = await readText(`${line}\n{"id":2,"name":"ok"}\n`, 'ndjson');
    expect(shape(items)).toEqual(['0@1:issue', '1@2:row']);
    expect(items[0]).toMatchObject({
      code: 'INPUT_MALFORMED',
      field: 'name',
      message: expect.stringMatching(
        /^Malformed NDJSON line: field "name" holds a NUL character \(\\u0000\) at character 3, where GeoPackage readers/,
      ),
      fields: { id: 1, name: null, lat: 49 },
    });
  });

  it('keeps the numbers of a row failed for a NUL as written, as an ok row has them', async () => {
    const { items } = await readText(
      String.raw`{"id":12345678901234567,"lat":49.0,"note":"a\u0000b"}` + '\n',
      'ndjson',
    );
    const fields = items[0]?.fields ?? {};
    expect(fields).toEqual({ id: '12345678901234567', lat: '49.0', note: null });
    // Marked as number text: JSON outputs write 12345678901234567 and 49.0, not strings.
    expect(numberTextKeys(fields)).toEqual(['id', 'lat']);
  });

  it('names a key holding one by its escape', async () => {
    const { items } = await readText(`${String.raw`{"\udc00x":1}`}\n`, 'ndjson');
    expect(items[0]).toMatchObject({
      code: 'INPUT_MALFORMED',
      field: '\\udc00x',
      message: expect.stringMatching(/^Malformed NDJSON line: field name "\\udc00x" holds \\udc00, half of/),
    });
  });

  it('reads a whole surrogate pair, and keeps a nested lone one as its JSON escape', async () => {
    const { items } = await readText(`${String.raw`{"a":"\ud83d\ude00","b":{"c":"\ud800"}}`}\n`, 'ndjson');
    expect(fieldsOf(items)).toEqual([{ a: '😀', b: String.raw`{"c":"\ud800"}` }]);
  });
});

describe('NDJSON reader: records nested too deep', () => {
  it('fails a line nested deeper than 100 levels alone, and reads the next; 100 levels are read', async () => {
    const nested = (depth: number) => `{"a":2,"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    // The object itself is one level: 99 arrays in it make 100.
    const text = `{"a":1}\n${nested(5000)}\n${nested(99)}\n{"a":"[[[[ in a string ]]]]"}\n`;
    const { items } = await readText(text, 'ndjson');
    expect(shape(items)).toEqual(['0@1:row', '1@2:issue', '2@3:row', '3@4:row']);
    expect(items[1]).toMatchObject({
      code: 'INPUT_MALFORMED',
      message:
        'Malformed NDJSON line: nested more than 100 levels deep (arrays and objects within each other)',
    });
  });
});

describe('NDJSON reader: records over maxRecordBytes', () => {
  it('keeps a line over maxRecordBytes but within 4096 characters whole in raw, without a cut marker', async () => {
    const long = `{"a":"${'x'.repeat(3035)}"}`;
    expect(long.length).toBe(3043);
    const bytes = Buffer.from(`{"a":1}\n${long}\n{"a":2}\n`);
    const { items: read } = await readText(bytes, 'ndjson', { maxRecordBytes: 1000 });
    // The same through chunks that split the line, and so reach it after it went over the limit.
    const { items: chunked } = await readChunks(
      [bytes.subarray(0, 500), bytes.subarray(500, 1600), bytes.subarray(1600)],
      'ndjson',
      { maxRecordBytes: 1000 },
    );
    for (const items of [read, chunked]) {
      expect(shape(items)).toEqual(['0@1:row', '1@2:issue', '2@3:row']);
      expect(items[1]).toMatchObject({
        code: 'INPUT_MALFORMED',
        message: 'NDJSON line of 3043 bytes is longer than maxRecordBytes (1000); it was skipped',
        raw: long,
      });
    }
  });

  it('reports a line longer than maxRecordBytes as a row error with its start, and reads the next line', async () => {
    const long = `{"a":"${'x'.repeat(5000)}"}`;
    const { items } = await readText(`{"a":1}\n${long}\n{"a":2}\n`, 'ndjson', { maxRecordBytes: 1000 });
    expect(shape(items)).toEqual(['0@1:row', '1@2:issue', '2@3:row']);
    expect(items[1]).toMatchObject({
      code: 'INPUT_MALFORMED',
      stage: 'input',
      message: 'NDJSON line of 5008 bytes is longer than maxRecordBytes (1000); it was skipped',
      raw: `${long.slice(0, 4096)}… [cut: the record is 5008 bytes; only its first 4096 characters are kept]`,
    });
  });

  it('skips a 16 MiB line to its end without holding it', async () => {
    let maxGrowth = 0;
    let before = 0;
    const stdin = hugeRecord('{"a":1}\n{"a":"', Buffer.alloc(65536, 0x78), 256, '"}\r\n{"a":2}\n', () => {
      maxGrowth = Math.max(maxGrowth, retainedHeap() - before);
    });
    before = retainedHeap();
    const reader = await openReader({ path: '-', format: 'ndjson', stdin, maxRecordBytes: 1024 * 1024 });
    const items = await collect(reader);
    expect(shape(items)).toEqual(['0@1:row', '1@2:issue', '2@3:row']);
    const issue = items[1]?.kind === 'issue' ? items[1] : undefined;
    expect(issue?.message).toBe(
      `NDJSON line of ${256 * 65536 + 8} bytes is longer than maxRecordBytes (1048576); it was skipped`,
    );
    expect(issue?.raw?.length).toBeLessThan(4200);
    // Holding the line would retain 16 MB; the look-ahead and one record's limit are the bound.
    expect(maxGrowth).toBeLessThan(4_000_000);
  });
});
