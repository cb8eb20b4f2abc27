import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { fieldsOf, readChunks, readText, shape } from './_read.js';

describe('CSV reader', () => {
  it.each([
    [',', 'a,b,c\n1,2,3\n'],
    [';', 'a;b;c\n1;2;3\n'],
    ['\t', 'a\tb\tc\n1\t2\t3\n'],
    ['|', 'a|b|c\n1|2|3\n'],
  ])('detects the %j delimiter from the header line', async (_delimiter, text) => {
    const { reader, items } = await readText(text, 'csv');
    expect(reader.columns()).toEqual(['a', 'b', 'c']);
    expect(fieldsOf(items)).toEqual([{ a: '1', b: '2', c: '3' }]);
  });

  it('ignores delimiters inside quotes when detecting', async () => {
    const { reader } = await readText('"x;y;z",b,c\n1,2,3\n', 'csv');
    expect(reader.columns()).toEqual(['x;y;z', 'b', 'c']);
  });

  it('uses a delimiter that is set instead of detecting one', async () => {
    const { items } = await readText('a;b,c\n1;2,3\n', 'csv', { csv: { delimiter: ',' } });
    expect(fieldsOf(items)).toEqual([{ 'a;b': '1;2', c: '3' }]);
  });

  it('reads quoted fields with embedded delimiters, line breaks and escaped quotes', async () => {
    const text = 'name,note\n"Doe, Jane","said ""hi""\nthen left"\nplain,x\n';
    const { items } = await readText(text, 'csv');
    expect(fieldsOf(items)).toEqual([
      { name: 'Doe, Jane', note: 'said "hi"\nthen left' },
      { name: 'plain', note: 'x' },
    ]);
    expect(shape(items)).toEqual(['0@2:row', '1@4:row']);
  });

  it('counts a CRLF inside a quoted field as one line', async () => {
    const { items } = await readText('a,b\r\n1,2\r\n"x\r\ny",4\r\n5,6\r\n', 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@3:row', '2@5:row']);
  });

  it('strips a UTF-8 byte order mark from the first column name', async () => {
    const { reader } = await readText(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,x\n1,2\n')]),
      'csv',
    );
    expect(reader.columns()).toEqual(['id', 'x']);
  });

  it.each(['latin1', 'windows-1252'] as const)('decodes %s (ä and the euro sign)', async (encoding) => {
    const bytes = Buffer.from([...Buffer.from('city,price\nK'), 0xe4, ...Buffer.from('ln,5'), 0x80, 0x0a]);
    const { items } = await readText(bytes, 'csv', { encoding });
    expect(fieldsOf(items)).toEqual([{ city: 'Käln', price: '5€' }]);
  });

  it('keeps a multi-byte UTF-8 character whole when a chunk boundary splits it', async () => {
    const bytes = Buffer.from('city,price\nKöln,5€\n');
    const euro = bytes.indexOf(0xe2);
    const o = bytes.indexOf(0xc3);
    const chunks = [bytes.subarray(0, o + 1), bytes.subarray(o + 1, euro + 2), bytes.subarray(euro + 2)];
    const { items } = await readChunks(chunks, 'csv');
    expect(fieldsOf(items)).toEqual([{ city: 'Köln', price: '5€' }]);
  });

  it('keeps a split character whole in windows-1252 input after a BOM-less start too', async () => {
    const bytes = Buffer.from([...Buffer.from('a,b\n'), 0xe4, 0x2c, 0x80, 0x0a]);
    const { items } = await readChunks([bytes.subarray(0, 5), bytes.subarray(5)], 'csv', {
      encoding: 'latin1',
    });
    expect(fieldsOf(items)).toEqual([{ a: 'ä', b: '€' }]);
  });

  it('reports malformed records in the middle and keeps reading with exact numbering', async () => {
    const text = [
      'a,b',
      '1,2',
      '3"x",q"r', // quote inside an unquoted field (two errors, one record)
      '4,5,6', // too many fields
      '',
      '7', // too few fields
      '"abc"x,def', // bad closing quote: csv-parse keeps the quote open to the next good closing quote
      '8,9',
      '"g",h',
      '10,11',
      '"never closed,12',
      '13,14',
    ].join('\n');
    const { items } = await readText(`${text}\n`, 'csv');
    expect(shape(items)).toEqual([
      '0@2:row',
      '1@3:issue',
      '2@4:issue',
      '3@6:issue',
      '4@7:issue',
      '5@10:row',
      '6@11:issue',
    ]);
    expect(fieldsOf(items)).toEqual([
      { a: '1', b: '2' },
      'INPUT_MALFORMED',
      'INPUT_MALFORMED',
      'INPUT_MALFORMED',
      'INPUT_MALFORMED',
      { a: '10', b: '11' },
      'INPUT_MALFORMED',
    ]);
    const tooMany = items[2];
    expect(tooMany?.kind === 'issue' && tooMany).toMatchObject({
      stage: 'input',
      message: 'Malformed CSV record: expected 2 fields (as in the header), got 3',
      raw: '4,5,6',
      fields: { a: '4', b: '5' },
    });
  });

  it('folds every error of one record into one issue, up to an unclosed quote at the end', async () => {
    const { items } = await readText('id,city\n1,A\n2,"Bonn\n"x\n3,B\n', 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue']);
    expect(items[1]?.kind === 'issue' && items[1]).toMatchObject({
      message: 'Malformed CSV record: a closing quote not followed by a delimiter or line end',
      raw: '2,"Bonn\n"x\n3,B\n',
    });
  });

  it('gives two identical malformed lines one index each', async () => {
    const { items } = await readText('a;b\n1;2\n3"x"\n3"x"\n5;6', 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:issue', '3@5:row']);
  });

  it('skips blank lines without giving them an index, and keeps their line numbers', async () => {
    const { items } = await readText('a,b\n\n1,2\n\n\n3,4\n', 'csv');
    expect(shape(items)).toEqual(['0@3:row', '1@6:row']);
  });

  it('renames empty and repeated header names, with a warning', async () => {
    const { reader, warnings } = await readText(',id,id\n1,2,3\n', 'csv');
    expect(reader.columns()).toEqual(['column_1', 'id', 'id_2']);
    expect(warnings).toHaveLength(2);
  });

  it('stops with INPUT_MALFORMED when a field outgrows maxFieldBytes', async () => {
    const text = `a,b\n1,"${'x'.repeat(200_000)}`;
    const error = await readText(text, 'csv', { csv: { maxFieldBytes: 100_000 } }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('INPUT_MALFORMED');
    expect(isGeobatchError(error) && error.context.hint).toMatch(/quote/);
  });

  it('reads a file with only a header as no rows', async () => {
    const { reader, items } = await readText('a,b\n', 'csv');
    expect(items).toEqual([]);
    expect(reader.columns()).toEqual(['a', 'b']);
  });

  it('counts the bytes it consumed against the known size', async () => {
    const { reader } = await readText('a,b\n1,2\n', 'csv');
    expect(reader.sizeBytes).toBe(8);
    expect(reader.bytesRead()).toBe(8);
  });
});
