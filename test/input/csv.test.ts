import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { fieldsOf, range, readChunks, readText, seeded, shape } from './_read.js';

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

  it("reads Excel's sep= line as the delimiter, not as the header, and counts it", async () => {
    // A ';' file whose header holds more commas than semicolons: only the sep= line tells.
    const text = '\ufeffsep=;\r\nid;name, city;lon\r\n1;Karlsruhe, Baden;8,4044\r\n';
    const { reader, items, warnings } = await readText(text, 'csv');
    expect(reader.columns()).toEqual(['id', 'name, city', 'lon']);
    expect(fieldsOf(items)).toEqual([{ id: '1', 'name, city': 'Karlsruhe, Baden', lon: '8,4044' }]);
    expect(items[0]?.ref).toEqual({ index: 0, line: 3 });
    expect(reader.lineCounts()).toMatchObject({ lines: 3, header: 2 });
    expect(warnings).toEqual([]);
  });

  it('reads a sep= line after empty lines, and one quoted, as the delimiter', async () => {
    for (const [text, line] of [
      ['\nsep=;\nid;lat;lon\n1;52,5;13,4\n', 4],
      ['\r\n\r\nsep=;\r\nid;lat;lon\r\n1;52,5;13,4\r\n', 5],
      ['"sep=;"\nid;lat;lon\n1;52,5;13,4\n', 3],
      [' \n\t\nsep=;\nid;lat;lon\n1;52,5;13,4\n', 5],
    ] as const) {
      const { reader, items, warnings } = await readText(text, 'csv');
      expect(reader.columns()).toEqual(['id', 'lat', 'lon']);
      expect(fieldsOf(items)).toEqual([{ id: '1', lat: '52,5', lon: '13,4' }]);
      expect(items[0]?.ref).toEqual({ index: 0, line });
      expect(warnings).toEqual([]);
    }
    const { warnings } = await readText('\nsep=;\na,b\n1,2\n', 'csv', { csv: { delimiter: ',' } });
    expect(warnings).toEqual(['The file\'s line 2 says sep=;, but input.delimiter is ",": "," is used']);
  });

  it('prefers a delimiter that is set over the sep= line, saying so', async () => {
    const { reader, warnings } = await readText('sep=;\na,b\n1,2\n', 'csv', { csv: { delimiter: ',' } });
    expect(reader.columns()).toEqual(['a', 'b']);
    expect(warnings).toEqual(['The file\'s first line says sep=;, but input.delimiter is ",": "," is used']);
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

  it('reports a malformed record as its own line alone and keeps reading at the next line', async () => {
    const text = [
      'a,b',
      '1,2',
      '3"x",q"r', // quotes inside unquoted fields: text
      '4,5,6', // too many fields
      '',
      '7', // too few fields
      '"abc"x,def', // a closing quote followed by text
      '8,9',
      '"g",h',
      '10,11',
      '"never closed,12',
      '13,14',
    ].join('\n');
    const { items } = await readText(`${text}\n`, 'csv');
    expect(shape(items)).toEqual([
      '0@2:row',
      '1@3:row',
      '2@4:issue',
      '3@6:issue',
      '4@7:issue',
      '5@8:row',
      '6@9:row',
      '7@10:row',
      '8@11:issue',
      '9@12:row',
    ]);
    expect(fieldsOf(items)).toEqual([
      { a: '1', b: '2' },
      { a: '3"x"', b: 'q"r' },
      'INPUT_MALFORMED',
      'INPUT_MALFORMED',
      'INPUT_MALFORMED',
      { a: '8', b: '9' },
      { a: 'g', b: 'h' },
      { a: '10', b: '11' },
      'INPUT_MALFORMED',
      { a: '13', b: '14' },
    ]);
    expect(items[2]?.kind === 'issue' && items[2]).toMatchObject({
      stage: 'input',
      message: 'Malformed CSV record: expected 2 fields (as in the header), got 3',
      raw: '4,5,6',
      fields: { a: '4', b: '5' },
    });
    expect(items[4]?.kind === 'issue' && items[4]).toMatchObject({
      message: 'Malformed CSV record: a closing quote not followed by a delimiter or line end',
      raw: '"abc"x,def',
      fields: { a: '"abc"x', b: 'def' },
    });
    expect(items[8]?.kind === 'issue' && items[8]).toMatchObject({
      message:
        'Malformed CSV record: the quoted field opened on this line is never closed; only this line is reported',
      raw: '"never closed,12',
      fields: { a: '"never closed', b: '12' },
    });
  });

  it('marks the input cut short when it ends inside a quoted field of its last line', async () => {
    const cut = await readText('a,b\n1,2\n"3 Hauptstr,4', 'csv');
    expect(shape(cut.items)).toEqual(['0@2:row', '1@3:issue']);
    expect(cut.reader.truncated()).toBe(true);
    expect(cut.items[1]?.kind === 'issue' && cut.items[1].message).toBe(
      'Malformed CSV record: the quoted field opened on this line is never closed: the input ends inside it (was the file cut short?); only this line is reported',
    );
    // With its line break, a stray quote of a whole file: only that line is reported.
    const whole = await readText('a,b\n1,2\n"3 Hauptstr,4\n', 'csv');
    expect(whole.reader.truncated()).toBe(false);
  });

  it('costs only one line for a stray quote in a large file, and reports that line whole', async () => {
    // Row 100 gets a quote after its first comma; later rows hold quotes that could close it.
    const lines = ['id,name,city'];
    for (let i = 1; i <= 2000; i++) {
      if (i === 100) lines.push(`${i},"Name ${i},City ${i}`);
      else if (i % 150 === 0) lines.push(`${i},"Name, ${i}",City ${i}`);
      else if (i % 170 === 0) lines.push(`${i},Name ${i},"City"`);
      else lines.push(`${i},Name ${i},City ${i}`);
    }
    const { items } = await readText(`${lines.join('\n')}\n`, 'csv');
    expect(items).toHaveLength(2000);
    const issues = items.filter((item) => item.kind === 'issue');
    expect(issues).toEqual([
      expect.objectContaining({
        ref: { index: 99, line: 101 },
        code: 'INPUT_MALFORMED',
        raw: '100,"Name 100,City 100',
        fields: { id: '100', name: '"Name 100', city: 'City 100' },
      }),
    ]);
    const rows = items.filter((item) => item.kind === 'row');
    expect(rows.map((row) => row.fields.id)).toEqual(
      range(2000)
        .map((i) => String(i + 1))
        .filter((id) => id !== '100'),
    );
    expect(rows.every((row) => row.ref.line === Number(row.fields.id) + 1)).toBe(true);
    expect(rows.find((row) => row.fields.id === '150')?.fields.name).toBe('Name, 150');
  });

  it('reads quotes inside unquoted values as text, as spreadsheets do', async () => {
    const text = 'id,lat,lon,height\n1,37°36\'37.8"N,122°22\'32.6"W,5\'6"\n2,a "b" c,x,y\n';
    const { items } = await readText(text, 'csv');
    expect(fieldsOf(items)).toEqual([
      { id: '1', lat: '37°36\'37.8"N', lon: '122°22\'32.6"W', height: '5\'6"' },
      { id: '2', lat: 'a "b" c', lon: 'x', height: 'y' },
    ]);
  });

  it('gives a record with line breaks inside quotes its first and last line, keeping each break as written', async () => {
    const { items } = await readText('a,b\n1,"x\ny\r\nz"\n2,w\n', 'csv');
    expect(items.map((item) => item.ref)).toEqual([
      { index: 0, line: 2, lastLine: 4 },
      { index: 1, line: 5 },
    ]);
    expect(fieldsOf(items)).toEqual([
      { a: '1', b: 'x\ny\r\nz' },
      { a: '2', b: 'w' },
    ]);
  });

  it('takes a quote still open after maxRecordLines lines for a stray one and reads the lines after it again', async () => {
    const text = 'a,b\n1,"l1\nl2\nl3\nl4"\n2,z\n';
    const strict = await readText(text, 'csv', { csv: { maxRecordLines: 3 } });
    expect(shape(strict.items)).toEqual(['0@2:issue', '1@3:issue', '2@4:issue', '3@5:issue', '4@6:row']);
    expect(strict.items[0]?.kind === 'issue' && strict.items[0].message).toBe(
      'Malformed CSV record: the quoted field opened on this line is still open after 3 lines (maxRecordLines); only this line is reported',
    );
    expect(strict.items.map((item) => item.kind === 'issue' && item.raw)).toEqual([
      '1,"l1',
      'l2',
      'l3',
      'l4"',
      false,
    ]);
    const { items } = await readText(text, 'csv');
    expect(fieldsOf(items)).toEqual([
      { a: '1', b: 'l1\nl2\nl3\nl4' },
      { a: '2', b: 'z' },
    ]);
  });

  it("refuses a record over several lines that does not have the header's number of fields", async () => {
    const { items } = await readText('a,b,c\n1,"x,y\n2,p,q\n3,r"\n4,t,u\n', 'csv');
    expect(shape(items)).toEqual(['0@2:issue', '1@3:row', '2@4:issue', '3@5:row']);
    expect(items[0]?.kind === 'issue' && items[0].message).toBe(
      'Malformed CSV record: the quoted field opened on this line runs to line 4 into a record of 2 fields, not 3 as in the header; only this line is reported',
    );
    expect(fieldsOf(items)[1]).toEqual({ a: '2', b: 'p', c: 'q' });
  });

  it('reads the line after a quote that closes badly on a later line again', async () => {
    const { items } = await readText('id,city\n1,A\n2,"Bonn\n"x\n3,B\n', 'csv');
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:issue', '3@5:row']);
    expect(items[1]?.kind === 'issue' && items[1]).toMatchObject({
      message:
        'Malformed CSV record: the quoted field opened on this line is closed on line 4 by a quote not followed by a delimiter or line end; only this line is reported',
      raw: '2,"Bonn',
      fields: { id: '2', city: '"Bonn' },
    });
  });

  it('accounts for every physical line: header, blank, or inside exactly one item, with raw text whole', async () => {
    const random = seeded(7);
    const pieces = [
      () => `${random()},plain,${random()}`,
      () => `${random()},"quoted, with comma",x`,
      () => `${random()},"two\nlines",y`,
      () => `${random()},"three\r\nlines\nhere",z`,
      () => `${random()},"stray,quote`,
      () => `${random()},"bad"close,w`,
      () => `${random()},5'6",v`,
      () => '',
      () => `${random()},too,many,fields`,
      () => `${random()}`,
      () => `${random()},"",""""`,
    ];
    const records = ['id,name,note'];
    for (let i = 0; i < 600; i++)
      records.push((pieces[Math.floor(random() * pieces.length)] as () => string)());
    const text = `${records.join(random() < 0.5 ? '\n' : '\r\n')}\n`;
    const physical = text.split(/\r?\n/).slice(0, -1);
    const { reader, items } = await readText(text, 'csv');
    const owner = new Map<number, string>();
    const claim = (line: number, by: string) => {
      expect(owner.get(line), `line ${line} claimed twice`).toBeUndefined();
      owner.set(line, by);
    };
    claim(1, 'header');
    for (const [i, line] of physical.entries()) if (line === '') claim(i + 1, 'blank');
    for (const item of items) {
      for (let line = item.ref.line; line <= (item.ref.lastLine ?? item.ref.line); line++)
        claim(line, `item ${item.ref.index}`);
      if (item.kind === 'issue') expect(item.raw).toBe(physical[item.ref.line - 1]);
    }
    expect([...owner.keys()].sort((x, y) => x - y)).toEqual(range(physical.length).map((i) => i + 1));
    expect(reader.lineCounts()).toEqual({
      lines: physical.length,
      blank: [...owner.values()].filter((v) => v === 'blank').length,
      header: 1,
    });
    expect(items.map((item) => item.ref.index)).toEqual(range(items.length));
  });

  it('reports a line longer than maxRecordBytes with its start, marked as cut, and reads on', async () => {
    const long = `2,${'x'.repeat(5000)}`;
    const { items } = await readText(`a,b\n1,y\n${long}\n3,z\n`, 'csv', { maxRecordBytes: 1000 });
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:row']);
    const issue = items[1]?.kind === 'issue' ? items[1] : undefined;
    expect(issue?.message).toBe(
      'Malformed CSV record: the line is 5002 bytes long, more than maxRecordBytes (1000); it was skipped',
    );
    expect(issue?.raw).toBe(
      `${long.slice(0, 4096)}… [cut: the record is 5002 bytes; only its first 4096 characters are kept]`,
    );
  });

  it('keeps a CRLF line over maxRecordBytes but within 4096 characters whole, unmarked', async () => {
    const long = `2,${'ü'.repeat(1500)}`;
    const { items } = await readText(`a,b\r\n1,y\r\n${long}\r\n3,z\r\n`, 'csv', { maxRecordBytes: 1000 });
    expect(shape(items)).toEqual(['0@2:row', '1@3:issue', '2@4:row']);
    expect(items[1]).toMatchObject({
      code: 'INPUT_MALFORMED',
      message:
        'Malformed CSV record: the line is 3002 bytes long, more than maxRecordBytes (1000); it was skipped',
      raw: long,
    });
  });

  it('stops with INPUT_MALFORMED naming the line when the header cannot be read', async () => {
    const error = await readText('\n"id,name\n1,2\n', 'csv').catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('INPUT_MALFORMED');
    expect(isGeobatchError(error) && error.context).toMatchObject({ row: 0, detail: { line: 2 } });
    expect(isGeobatchError(error) && error.message).toBe(
      'Cannot read the CSV header (line 2): the quoted field opened on this line is never closed',
    );
  });

  it('reads a file with old Mac line ends (a lone CR)', async () => {
    const { items } = await readText('a,b\r1,"x\ry"\r3,4\r', 'csv');
    expect(fieldsOf(items)).toEqual([
      { a: '1', b: 'x\ry' },
      { a: '3', b: '4' },
    ]);
    expect(shape(items)).toEqual(['0@2:row', '1@4:row']);
  });

  it('gives two identical malformed lines one index each', async () => {
    const { items } = await readText('a;b\n1;2\n3"x\n3"x\n5;6', 'csv');
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

  it('never gives a renamed column the name of one the header has, so a mapping reads the column written so', async () => {
    const { reader, items, warnings } = await readText(',column_1,lon,lon,lon_2\na,b,1,2,3\n', 'csv');
    expect(reader.columns()).toEqual(['column_1_2', 'column_1', 'lon', 'lon_3', 'lon_2']);
    expect(fieldsOf(items)[0]).toEqual({
      column_1_2: 'a',
      column_1: 'b',
      lon: '1',
      lon_3: '2',
      lon_2: '3',
    });
    expect(warnings).toEqual([
      'CSV header column 1 ("") is read as column_1_2',
      'CSV header column 4 ("lon") is read as lon_3',
    ]);
  });

  it('reads a file with only a header as no rows', async () => {
    const { reader, items } = await readText('a,b\n', 'csv');
    expect(items).toEqual([]);
    expect(reader.columns()).toEqual(['a', 'b']);
  });

  it('fails a row with a NUL past the first KiB, naming its column and keeping the other fields', async () => {
    // The binary check reads the first KiB; a damaged file's zero bytes further on reach a row.
    const padding = Array.from({ length: 100 }, (_, i) => `${i},padding padding,49.0`).join('\n');
    const text = `id,name,lat\n${padding}\nx,ab\0cd,49.0\n"y","multi\nline\0",49.1\nz,ok,49.2\n`;
    const { items } = await readText(text, 'csv');
    expect(shape(items).slice(-3)).toEqual(['100@102:issue', '101@103:issue', '102@105:row']);
    expect(items[100]).toEqual({
      kind: 'issue',
      ref: { index: 100, line: 102 },
      stage: 'input',
      code: 'INPUT_MALFORMED',
      field: 'name',
      message:
        'Malformed CSV record: column "name" holds a NUL character (\\u0000) at character 3, where GeoPackage readers, databases and C tools take the text to end (in a CSV, the mark of a damaged file)',
      raw: 'x,ab\0cd,49.0',
      fields: { id: 'x', name: null, lat: '49.0' },
    });
    // On a later line of a record that spans lines too.
    expect(items[101]).toMatchObject({ field: 'name', fields: { id: 'y', name: null, lat: '49.1' } });
  });

  it('refuses a header with a NUL in a name past the first KiB, naming the column', async () => {
    const text = `id,lat,lon,${'c'.repeat(1100)},no\0te\n1,49,8.4,x,y\n`;
    const error = await readText(text, 'csv').catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('INPUT_MALFORMED');
    expect(isGeobatchError(error) && error.message).toBe(
      'Cannot read the CSV header (line 1): column 5 holds a NUL character (\\u0000)',
    );
  });

  it('counts the bytes it consumed against the known size', async () => {
    const { reader } = await readText('a,b\n1,2\n', 'csv');
    expect(reader.sizeBytes).toBe(8);
    expect(reader.bytesRead()).toBe(8);
  });
});

describe('CSV reader: maxRecordBytes holds for a record spanning lines', () => {
  const LIMIT = { maxRecordBytes: 100 };
  /** `1,"<first>\n<second>"`: 3 + first + 1 + second + 1 bytes, its final line break not counted. */
  const record = (first: string, second: string, eol = '\n') => `1,"${first}${eol}${second}"`;

  it('reads a record of exactly the limit, on one line or on two', async () => {
    const line = `1,${'x'.repeat(98)}`;
    const one = await readText(`a,b\n${line}\n2,z\n`, 'csv', LIMIT);
    expect(shape(one.items)).toEqual(['0@2:row', '1@3:row']);
    const two = await readText(`a,b\n${record('a'.repeat(50), 'b'.repeat(45))}\n2,z\n`, 'csv', LIMIT);
    expect(shape(two.items)).toEqual(['0@2:row', '1@4:row']);
    expect(two.items[0]?.ref).toEqual({ index: 0, line: 2, lastLine: 3 });
    expect(fieldsOf(two.items)[0]).toEqual({ a: '1', b: `${'a'.repeat(50)}\n${'b'.repeat(45)}` });
  });

  it('reports a record one byte over the limit by its first line, naming its size and the limit, and reads on', async () => {
    const line = `1,${'x'.repeat(99)}`;
    const one = await readText(`a,b\n${line}\n2,z\n`, 'csv', LIMIT);
    expect(shape(one.items)).toEqual(['0@2:issue', '1@3:row']);
    expect(one.items[0]).toMatchObject({
      code: 'INPUT_MALFORMED',
      message:
        'Malformed CSV record: the line is 101 bytes long, more than maxRecordBytes (100); it was skipped',
    });
    const two = await readText(`a,b\n${record('a'.repeat(50), 'b'.repeat(46))}\n2,z\n`, 'csv', LIMIT);
    // The closing line is read again as a record of its own (one field: malformed too).
    expect(shape(two.items)).toEqual(['0@2:issue', '1@3:issue', '2@4:row']);
    expect(two.items[0]).toMatchObject({
      code: 'INPUT_MALFORMED',
      ref: { index: 0, line: 2 },
      message:
        'Malformed CSV record: the quoted field opened on this line runs to line 3 into a record of 101 bytes, more than maxRecordBytes (100); only this line is reported',
      raw: `1,"${'a'.repeat(50)}`,
    });
  });

  it('counts bytes, not characters, and a CRLF inside the field as two', async () => {
    const exact = await readText(
      `a,b\r\n${record('ü'.repeat(30), 'ü'.repeat(17), '\r\n')}\r\n`,
      'csv',
      LIMIT,
    );
    expect(shape(exact.items)).toEqual(['0@2:row']);
    const over = await readText(
      `a,b\r\n${record('ü'.repeat(30), `${'ü'.repeat(17)}x`, '\r\n')}\r\n`,
      'csv',
      LIMIT,
    );
    expect(shape(over.items)).toEqual(['0@2:issue', '1@3:issue']);
    expect(over.items[0]?.kind === 'issue' && over.items[0].message).toContain(
      'runs to line 3 into a record of 101 bytes, more than maxRecordBytes (100)',
    );
  });

  it('gives up on a record still open once it holds more than the limit', async () => {
    const text = `a,b\n1,"${'a'.repeat(60)}\n${'b'.repeat(60)}\nc"\n2,z\n`;
    const { items } = await readText(text, 'csv', LIMIT);
    expect(shape(items)).toEqual(['0@2:issue', '1@3:issue', '2@4:issue', '3@5:row']);
    expect(items[0]?.kind === 'issue' && items[0].message).toBe(
      'Malformed CSV record: the quoted field opened on this line is still open after 125 bytes, more than maxRecordBytes (100); only this line is reported',
    );
    const cut = await readText(`a,b\n1,"a\n${'b'.repeat(150)}"\n2,z\n`, 'csv', LIMIT);
    expect(shape(cut.items)).toEqual(['0@2:issue', '1@3:issue', '2@4:row']);
    expect(cut.items[0]?.kind === 'issue' && cut.items[0].message).toBe(
      'Malformed CSV record: the quoted field opened on this line runs into line 3, which is longer than maxRecordBytes (100); only this line is reported',
    );
  });
});
