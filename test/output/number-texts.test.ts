/**
 * Numbers a double cannot repeat as written, read from NDJSON and written to every output format:
 * each shows the number as the input wrote it (golden text for the text formats).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCsvWriter } from '../../src/output/csv.js';
import { createGeojsonWriter } from '../../src/output/geojson.js';
import { openGpkgOutput } from '../../src/output/gpkg.js';
import { createNdjsonWriter } from '../../src/output/ndjson.js';
import { createReportWriter } from '../../src/output/report.js';
import type { RecordWriter, WriterOptions } from '../../src/output/writer.js';
import type { Outcome, Row } from '../../src/types.js';
import { readText } from '../input/_read.js';
import { columnTypes, openGpkg } from './_gpkg-read.js';
import { failed, memorySink, ok, tempDir } from './_outcomes.js';

const INPUT = [
  '{"id":12345678901234567891,"code":1.50,"z":-0,"big":1e400,"n":7,"f":0.5,"o":{"p":1.50}}',
  '{"id":9223372036854775807,"code":2.25,"z":0,"big":"x","n":8,"f":0.10000000000000000001,"o":null}',
];

async function outcomes(): Promise<Outcome[]> {
  const { items } = await readText(`${INPUT.join('\n')}\n`, 'ndjson');
  const rows = items.filter((item): item is Row => item.kind === 'row');
  expect(rows).toHaveLength(2);
  return [ok(rows[0] as Row, { columns: { elevation: 100 } }), failed(rows[1], 1)];
}

const options: WriterOptions = {
  jobColumns: ['elevation'],
  inputColumns: () => ['id', 'code', 'z', 'big', 'n', 'f', 'o'],
};

async function written(create: (sink: ReturnType<typeof memorySink>['sink']) => RecordWriter) {
  const { sink, text } = memorySink();
  const writer = create(sink);
  for (const outcome of await outcomes()) writer.write(outcome);
  writer.end();
  return text();
}

describe('numbers kept as the input wrote them', () => {
  it('CSV: each cell holds the number as written', async () => {
    expect(await written((sink) => createCsvWriter(sink, options))).toBe(
      'id,code,z,big,n,f,o,elevation,geobatch_status,geobatch_error\n' +
        '12345678901234567891,1.50,-0,1e400,7,0.5,"{""p"":1.50}",100,ok,\n' +
        '9223372036854775807,2.25,0,x,8,0.10000000000000000001,,,failed,NO_MATCH\n',
    );
  });

  it('NDJSON: each number has the same JSON text as in the input, and a nested object is the object', async () => {
    expect(await written((sink) => createNdjsonWriter(sink, options))).toBe(
      '{"id":12345678901234567891,"code":1.50,"z":-0,"big":1e400,"n":7,"f":0.5,"o":{"p":1.50},"elevation":100,"geobatch_status":"ok","geobatch_error":""}\n' +
        '{"id":9223372036854775807,"code":2.25,"z":0,"big":"x","n":8,"f":0.10000000000000000001,"o":null,"elevation":null,"geobatch_status":"failed","geobatch_error":"NO_MATCH"}\n',
    );
  });

  it('GeoJSON: properties hold the numbers as written, and the file is valid JSON', async () => {
    const text = await written((sink) => createGeojsonWriter(sink, options));
    expect(text).toContain(
      '"properties":{"id":12345678901234567891,"code":1.50,"z":-0,"big":1e400,"n":7,"f":0.5,"o":{"p":1.50},"elevation":100,',
    );
    const parsed = JSON.parse(text) as GeoJSON.FeatureCollection;
    expect(parsed.type).toBe('FeatureCollection');
    expect(parsed.features.map((f) => f.properties?.code)).toEqual([1.5, 2.25]);
  });

  it('NDJSON error report: the fields hold the numbers as written', async () => {
    const text = await written((sink) =>
      createReportWriter(sink, { format: 'ndjson', job: 'elevation', inputColumns: () => [] }),
    );
    expect(text).toContain(
      '"fields":{"id":9223372036854775807,"code":2.25,"z":0,"big":"x","n":8,"f":0.10000000000000000001,"o":null}}',
    );
  });

  it('GeoPackage: INTEGER when the number fits 64 bits, REAL when a double holds it, else its text', async () => {
    const path = join(tempDir(), 'numbers.gpkg');
    const { file, writer } = await openGpkgOutput(path, options);
    for (const outcome of await outcomes()) writer.write(outcome);
    writer.end();
    await file.commit();
    const db = openGpkg(path);
    const read = db.prepare(
      'SELECT id, typeof(id) AS idType, code, z, big, n, f, typeof(f) AS fType FROM numbers ORDER BY fid',
    );
    read.setReadBigInts(true);
    expect(read.all().map((r) => ({ ...r }))).toEqual([
      {
        id: '12345678901234567891',
        idType: 'text',
        code: 1.5,
        z: 0n,
        big: '1e400',
        n: 7n,
        f: '0.5',
        fType: 'text',
      },
      {
        id: '9223372036854775807',
        idType: 'text',
        code: 2.25,
        z: 0n,
        big: 'x',
        n: 8n,
        f: '0.10000000000000000001',
        fType: 'text',
      },
    ]);
    expect(columnTypes(db, 'numbers')).toMatchObject({
      id: 'TEXT',
      code: 'REAL',
      z: 'INTEGER',
      big: 'TEXT',
      n: 'INTEGER',
      f: 'TEXT',
    });
    db.close();
  });

  it('GeoPackage: keeps a 64-bit integer exact, also when its column later turns to text', async () => {
    const path = join(tempDir(), 'ids.gpkg');
    const { items } = await readText(
      '{"k":9007199254740993,"m":-9223372036854775808}\n{"k":"x","m":1}\n',
      'ndjson',
    );
    const { file, writer } = await openGpkgOutput(path, { jobColumns: [], inputColumns: () => ['k', 'm'] });
    for (const item of items) if (item.kind === 'row') writer.write(ok(item, { columns: {} }));
    writer.end();
    await file.commit();
    const db = openGpkg(path);
    const read = db.prepare('SELECT k, m FROM ids ORDER BY fid');
    read.setReadBigInts(true);
    expect(read.all().map((r) => ({ ...r }))).toEqual([
      { k: '9007199254740993', m: -9223372036854775808n },
      { k: 'x', m: 1n },
    ]);
    expect(columnTypes(db, 'ids')).toMatchObject({ k: 'TEXT', m: 'INTEGER' });
    db.close();
  });
});
