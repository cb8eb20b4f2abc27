import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { openReader } from '../../src/input/open.js';
import type { InputFormat } from '../../src/input/reader.js';
import { readText, tempFile } from './_read.js';

async function refusal(bytes: Buffer, format: InputFormat = 'csv', encoding?: 'windows-1252') {
  const error = await openReader({ path: tempFile(bytes, 'input.csv'), format, encoding }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isGeobatchError(error)) throw new Error(`expected a GeobatchError, got ${String(error)}`);
  return error;
}

/** The first bytes of an .xlsx file: a ZIP local file header naming an Office Open XML part. */
const xlsx = Buffer.concat([
  Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00]),
  Buffer.alloc(20, 0x00),
  Buffer.from('[Content_Types].xml'),
  Buffer.from([0x9c, 0xfc, 0xe2, 0x81]),
  Buffer.from('PK\x03\x04xl/workbook.xml'),
]);

describe('input that is not text', () => {
  it('stops on an Excel workbook renamed .csv, saying what it is and to save it as CSV UTF-8', async () => {
    for (const encoding of [undefined, 'windows-1252'] as const) {
      const error = await refusal(xlsx, 'csv', encoding);
      expect(error.code).toBe('INPUT_ENCODING');
      expect(error.message).toBe(
        'The input is an Excel workbook (.xlsx, a ZIP file); geobatch reads CSV, NDJSON or GeoJSON text',
      );
      expect(error.context).toMatchObject({
        path: 'input',
        expected: 'CSV, NDJSON or GeoJSON text (utf-8 or windows-1252)',
        received: 'an Excel workbook (.xlsx, a ZIP file)',
      });
      expect(error.context.hint).toMatch(/save it as "CSV UTF-8"/);
      expect(error.context.hint).not.toMatch(/windows-1252/);
    }
  });

  it('tells an ODS spreadsheet and any other ZIP archive apart from a workbook', async () => {
    const ods = Buffer.concat([
      Buffer.from('PK\x03\x04'),
      Buffer.alloc(26),
      Buffer.from('mimetypeapplication/vnd.oasis.opendocument.spreadsheet'),
    ]);
    expect((await refusal(ods)).message).toMatch(
      /^The input is an OpenDocument spreadsheet \(\.ods, a ZIP file\);/,
    );
    const zip = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(26), Buffer.from('data.csv')]);
    const error = await refusal(zip, 'ndjson');
    expect(error.message).toBe('The input is a ZIP archive; geobatch reads CSV, NDJSON or GeoJSON text');
    expect(error.context.hint).toMatch(/unzip -p file\.zip data\.csv \| geobatch run job\.yaml -i -/);
  });

  it('stops on a gzip file, saying to decompress it or stream it through zcat', async () => {
    const error = await refusal(gzipSync('{"a":1}\n'), 'ndjson');
    expect(error.code).toBe('INPUT_ENCODING');
    expect(error.message).toBe(
      'The input is a gzip-compressed file; geobatch reads CSV, NDJSON or GeoJSON text',
    );
    expect(error.context).toMatchObject({ path: 'input', received: 'a gzip-compressed file' });
    expect(error.context.hint).toBe(
      'Decompress it first, or stream it in: `zcat file.gz | geobatch run job.yaml -i -`.',
    );
  });

  it('stops on an old Excel workbook and on a GeoPackage given as input', async () => {
    const xls = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(504),
    ]);
    expect((await refusal(xls)).message).toMatch(/^The input is an Excel 97-2003 workbook \(\.xls\)/);
    const gpkg = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(84)]);
    const error = await refusal(gpkg, 'geojson');
    expect(error.message).toMatch(/^The input is an SQLite database \(a GeoPackage\?\);/);
    expect(error.context.hint).toMatch(/ogr2ogr -f GeoJSON/);
  });

  it('stops on a NUL byte in the first KiB, naming its position', async () => {
    const error = await refusal(Buffer.from('id,name\n1,a\0b\n'));
    expect(error.code).toBe('INPUT_ENCODING');
    expect(error.message).toBe(
      'The input is binary data, not text (byte 12 is NUL, which text never holds); geobatch reads CSV, NDJSON or GeoJSON text',
    );
  });

  it('recognises UTF-16 without a byte order mark by its NUL high bytes', async () => {
    const error = await refusal(Buffer.from('id,city\n1,Köln\n2,Berlin\n', 'utf16le'));
    expect(error.message).toMatch(/^The input is UTF-16LE text without a byte order mark;/);
    expect(error.context.hint).toMatch(/iconv -f UTF-16LE -t UTF-8/);
  });

  it('reads text that merely starts like a signature', async () => {
    const { items } = await readText('BZh,PK\n1,2\n', 'csv');
    expect(items.map((item) => item.kind)).toEqual(['row']);
  });
});
