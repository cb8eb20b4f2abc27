import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { Decoder, firstInvalid, utf8ReadAsSingleByte } from '../../src/input/_encoding.js';
import { openReader } from '../../src/input/open.js';
import type { ReadItem } from '../../src/types.js';
import { collect, fieldsOf, readText, tempFile } from './_read.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** Rows of about 600 bytes: 2000 of them pass the reader's 1 MiB look-ahead. */
function longRows(count: number): string {
  const pad = 'x'.repeat(590);
  const lines = ['id,pad'];
  for (let i = 1; i <= count; i++) lines.push(`${i},${pad}`);
  return `${lines.join('\n')}\n`;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('Input encoding', () => {
  it('stops before reading a row when Latin-1 input is read as UTF-8, naming the line, the byte and the setting', async () => {
    const bytes = latin1('id,city\n1,Berlin\n2,München\n3,Köln\n');
    const error = await failure(openReader({ path: tempFile(bytes), format: 'csv' }));
    expect(isGeobatchError(error) && error.code).toBe('INPUT_ENCODING');
    expect(isGeobatchError(error) && error.fatal).toBe(true);
    expect(isGeobatchError(error) && error.context).toMatchObject({
      path: 'input.encoding',
      detail: { line: 3, column: 4, byte: '0xFC' },
    });
    expect(isGeobatchError(error) && error.message).toBe(
      'The input is not valid UTF-8: line 3 has byte 0xFC at column 4 ("2,München" as windows-1252); it is probably windows-1252 (Latin-1)',
    );
    expect(isGeobatchError(error) && error.context.hint).toMatch(/`input\.encoding: windows-1252`/);
  });

  it('names CESU-8 (an emoji in two encoded halves) rather than advise windows-1252, which would garble it', async () => {
    // U+1F600 as MySQL's utf8 or Java writes it: the surrogates D83D and DE00, each as three bytes.
    const bytes = Buffer.from([...Buffer.from('id,name\n1,'), 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80, 0x0a]);
    const error = await failure(openReader({ path: tempFile(bytes), format: 'csv' }));
    expect(isGeobatchError(error) && error.code).toBe('INPUT_ENCODING');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      path: 'input.encoding',
      detail: { line: 2, column: 3, byte: '0xED' },
    });
    expect(isGeobatchError(error) && error.message).toBe(
      "The input is not valid UTF-8: line 2 has a UTF-16 surrogate written as UTF-8 at column 3 (byte 0xED): it is CESU-8, as MySQL's `utf8` and Java write a character beyond U+FFFF (an emoji) in two halves",
    );
    expect(isGeobatchError(error) && error.context.hint).toMatch(/^Export the file again as UTF-8/);
    expect(isGeobatchError(error) && error.context.hint).not.toMatch(/input\.encoding: windows-1252/);
  });

  it('reads the same Latin-1 file as intended once its encoding is set', async () => {
    const bytes = latin1('id,city\n1,Berlin\n2,München\n');
    const { items } = await readText(bytes, 'csv', { encoding: 'windows-1252' });
    expect(fieldsOf(items)).toEqual([
      { id: '1', city: 'Berlin' },
      { id: '2', city: 'München' },
    ]);
  });

  it('stops at a bad byte past the look-ahead with its line, after the rows before it, without a replacement character', async () => {
    const head = longRows(2000);
    const bytes = Buffer.concat([Buffer.from(head), latin1('2001,Gr\xfcn\n2002,ok\n')]);
    const reader = await openReader({ path: tempFile(bytes), format: 'csv' });
    const items: ReadItem[] = [];
    const error = await failure(
      (async () => {
        for await (const item of reader) items.push(item);
      })(),
    );
    expect(isGeobatchError(error) && error.code).toBe('INPUT_ENCODING');
    expect(isGeobatchError(error) && error.context.detail).toEqual({ line: 2002, column: 8, byte: '0xFC' });
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(2000);
    expect(
      items.every((item) => item.kind === 'row' && !JSON.stringify(item.fields).includes('\ufffd')),
    ).toBe(true);
  });

  it.each([
    ['ndjson', '{"city":"Gr\xfcn"}\n', 2001],
    ['geojson', '{"type":"Feature","geometry":null,"properties":{"city":"Gr\xfcn"}}\n]}\n', 2002],
  ] as const)('checks %s input as it streams too', async (format, tail, line) => {
    const pad = 'x'.repeat(590);
    const rows: string[] = [];
    for (let i = 0; i < 2000; i++)
      rows.push(
        format === 'ndjson'
          ? JSON.stringify({ i, pad })
          : `${JSON.stringify({ type: 'Feature', geometry: null, properties: { i, pad } })},`,
      );
    const head = format === 'ndjson' ? '' : '{"type":"FeatureCollection","features":[\n';
    const bytes = Buffer.concat([Buffer.from(`${head}${rows.join('\n')}\n`), latin1(tail)]);
    const reader = await openReader({ path: tempFile(bytes), format });
    const error = await failure(collect(reader));
    expect(isGeobatchError(error) && error.code).toBe('INPUT_ENCODING');
    expect(isGeobatchError(error) && error.context.detail).toEqual({
      line,
      column: latin1(tail).indexOf(0xfc) + 1,
      byte: '0xFC',
    });
  });

  it('refuses a UTF-16 file by its byte order mark, saying how to convert it', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id,city\n', 'utf16le')]);
    const error = await failure(openReader({ path: tempFile(bytes), format: 'csv' }));
    expect(isGeobatchError(error) && error.code).toBe('INPUT_ENCODING');
    expect(isGeobatchError(error) && error.message).toMatch(/UTF-16LE byte order mark/);
    expect(isGeobatchError(error) && error.context.hint).toMatch(/iconv -f UTF-16 -t UTF-8/);
  });

  it.each(['ndjson', 'csv'] as const)('drops a UTF-8 byte order mark from %s input', async (format) => {
    const text = format === 'csv' ? 'a\n1\n' : '{"a":1}\n';
    const { items } = await readText(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
      format,
    );
    expect(fieldsOf(items)).toEqual([format === 'csv' ? { a: '1' } : { a: 1 }]);
  });

  it('warns when input declared windows-1252 reads as UTF-8 with accented letters', async () => {
    const { warnings, items } = await readText('id,city\n1,Köln\n', 'csv', { encoding: 'windows-1252' });
    expect(warnings).toEqual([expect.stringMatching(/declared windows-1252 but reads as valid UTF-8/)]);
    expect(fieldsOf(items)).toEqual([{ id: '1', city: 'KÃ¶ln' }]);
  });

  it('stops on a character cut by the end of the input', async () => {
    const error = await failure(readText(Buffer.from([...Buffer.from('{"a":"K'), 0xc3]), 'ndjson'));
    expect(isGeobatchError(error) && error.context.detail).toEqual({ line: 1, column: 8, byte: '0xC3' });
  });

  it('keeps a character split between two chunks past the look-ahead whole', async () => {
    const head = Buffer.from(longRows(1800));
    const tail = Buffer.from('1801,Köln\n');
    const cut = tail.indexOf(0xc3) + 1;
    const chunks = [head, tail.subarray(0, cut), tail.subarray(cut)];
    const reader = await openReader({ path: '-', format: 'csv', stdin: Readable.from(chunks) });
    const items = await collect(reader);
    expect(fieldsOf(items).at(-1)).toEqual({ id: '1801', pad: 'Köln' });
  });
});

describe('UTF-8 checks', () => {
  it.each([
    ['a lone continuation byte', [0x41, 0x80], 1],
    ['an overlong form', [0xc0, 0x80], 0],
    ['a surrogate', [0x41, 0xed, 0xa0, 0x80], 1],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a lead byte followed by ASCII', [0xe4, 0x41], 0],
  ])('finds %s', (_name, bytes, bad) => {
    expect(firstInvalid(Uint8Array.from(bytes), true).bad).toBe(bad);
  });

  it('accepts every valid width and leaves a cut character pending until the next piece', () => {
    const decoder = new Decoder('utf-8');
    const bytes = Buffer.from('aé€😀');
    expect(decoder.decode(bytes.subarray(0, 5))).toBe('aé');
    expect(decoder.decode(bytes.subarray(5, 9))).toBe('€');
    expect(decoder.decode(bytes.subarray(9), true)).toBe('😀');
    expect(decoder.end()).toBeUndefined();
  });
});

describe('utf8ReadAsSingleByte', () => {
  it('gives back the text that UTF-8 read as windows-1252 was, and nothing for other text', () => {
    const misread = (text: string) => new TextDecoder('windows-1252').decode(Buffer.from(text));
    for (const text of ['Straße', 'Köln', 'Düsseldorf', '„Top“ € 5', 'Łódź', '😀'])
      expect(utf8ReadAsSingleByte(misread(text)), text).toBe(text);
    // windows-1252 text proper (its ö and ß are no UTF-8 sequence), ASCII, and a character that
    // no byte reads as.
    for (const text of ['Größe', 'Straße', 'plain', 'Ã', 'Łódź'])
      expect(utf8ReadAsSingleByte(text)).toBeUndefined();
  });
});
