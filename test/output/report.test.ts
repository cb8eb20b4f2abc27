import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { createReportWriter } from '../../src/output/report.js';
import { clearSecrets, registerSecret } from '../../src/secrets.js';
import type { Fields, Outcome } from '../../src/types.js';
import { failed, memorySink, ok, row } from './_outcomes.js';

const requestFailure: Outcome = {
  status: 'failed',
  ref: { index: 6, line: 9 },
  row: row(6, { id: '7', code: 'X1' }),
  issue: {
    kind: 'issue',
    ref: { index: 6, line: 9 },
    stage: 'request',
    code: 'RETRIES_EXHAUSTED',
    message: 'HTTP 503 from https://x.test/?apiKey=SECRET-KEY-123',
    status: 503,
    attempts: 4,
    detail: { errCode: 7, publicReport: 'key SECRET-KEY-123 busy' },
  },
};

afterEach(() => clearSecrets());

describe('error report', () => {
  it('shows a NUL in a raw line as ␀, so that the report reads back as text, not binary', async () => {
    const { sink, text } = memorySink();
    const writer = createReportWriter(sink, { format: 'csv', job: 'geocode', inputColumns: () => ['id'] });
    const malformed = failed(undefined, 7, 'INPUT_MALFORMED') as Extract<Outcome, { status: 'failed' }>;
    writer.write({ ...malformed, issue: { ...malformed.issue, raw: '2,ab\0cd' } });
    writer.end();
    const written = await text();
    expect(written).not.toContain('\0');
    expect((parse(written, { columns: true }) as Record<string, string>[])[0]?.geobatch_raw).toBe(
      '2,ab\u2400cd',
    );
  });

  it('writes one CSV record per failed row with its number, line, stage, code, status, attempts and input', async () => {
    registerSecret('SECRET-KEY-123');
    const { sink, text } = memorySink();
    const writer = createReportWriter(sink, {
      format: 'csv',
      job: 'geocode',
      inputColumns: () => ['id', 'code'],
    });
    writer.write(ok(row(0, { id: '1', code: 'A' }), { columns: {} }));
    writer.write(requestFailure);
    const malformed = failed(undefined, 7, 'INPUT_MALFORMED') as Extract<Outcome, { status: 'failed' }>;
    writer.write({ ...malformed, issue: { ...malformed.issue, raw: '=bad"' } });
    writer.end();
    const records = parse(await text(), { columns: true }) as Record<string, string>[];
    expect(records).toEqual([
      {
        geobatch_row: '7',
        geobatch_line: '9',
        geobatch_job: 'geocode',
        geobatch_stage: 'request',
        geobatch_error: 'RETRIES_EXHAUSTED',
        geobatch_http_status: '503',
        geobatch_message: 'HTTP 503 from https://x.test/?apiKey=[redacted]',
        geobatch_attempts: '4',
        geobatch_detail: '{"errCode":7,"publicReport":"key [redacted] busy"}',
        geobatch_raw: '',
        id: '7',
        code: 'X1',
      },
      {
        geobatch_row: '8',
        geobatch_line: '9',
        geobatch_job: 'geocode',
        geobatch_stage: 'input',
        geobatch_error: 'INPUT_MALFORMED',
        geobatch_http_status: '',
        geobatch_message: 'no match found',
        geobatch_attempts: '',
        geobatch_detail: '',
        geobatch_raw: `'=bad"`,
        id: '',
        code: '',
      },
    ]);
    expect(writer.stats().records).toBe(2);
  });

  it('writes NDJSON records with the original fields as an object', async () => {
    registerSecret('SECRET-KEY-123');
    const { sink, text } = memorySink();
    const writer = createReportWriter(sink, { format: 'ndjson', job: 'geocode', inputColumns: () => [] });
    writer.write(requestFailure);
    const record = JSON.parse(await text());
    expect(record).toEqual({
      row: 7,
      line: 9,
      job: 'geocode',
      stage: 'request',
      code: 'RETRIES_EXHAUSTED',
      status: 503,
      message: 'HTTP 503 from https://x.test/?apiKey=[redacted]',
      attempts: 4,
      detail: { errCode: 7, publicReport: 'key [redacted] busy' },
      raw: null,
      fields: { id: '7', code: 'X1' },
    });
  });

  it("writes a malformed record's raw line as read, a partner name in it too; message and detail stay scrubbed", async () => {
    registerSecret('demo-partner');
    registerSecret('SECRET-KEY-123');
    const raw = '3,"demo-partner ""x"x,1,2';
    const fields = { id: '3', name: '"demo-partner ""x"x', lon: '1', lat: '2' };
    const ref = { index: 2, line: 4 };
    const malformed: Outcome = {
      status: 'failed',
      ref,
      issue: {
        kind: 'issue',
        ref,
        stage: 'input',
        code: 'INPUT_MALFORMED',
        message: 'Malformed CSV record near demo-partner',
        raw,
        fields,
      },
    };
    for (const format of ['csv', 'ndjson'] as const) {
      const { sink, text } = memorySink();
      const writer = createReportWriter(sink, {
        format,
        job: 'elevation',
        inputColumns: () => Object.keys(fields),
      });
      writer.write(requestFailure);
      writer.write(malformed);
      writer.end();
      const written = await text();
      expect(written).not.toContain('SECRET-KEY-123');
      const records: Record<string, unknown>[] =
        format === 'csv'
          ? (parse(written, { columns: true }) as Record<string, string>[]).map((r) => ({
              message: r.geobatch_message,
              detail: r.geobatch_detail,
              raw: r.geobatch_raw,
              name: r.name,
            }))
          : written
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line) as Record<string, unknown>)
              .map((r) => ({
                message: r.message,
                detail: r.detail,
                raw: r.raw,
                name: (r.fields as Fields).name,
              }));
      expect(records[0]).toMatchObject({ message: 'HTTP 503 from https://x.test/?apiKey=[redacted]' });
      expect(JSON.stringify(records[0]?.detail)).toContain('key [redacted] busy');
      expect(records[1]).toEqual({
        message: 'Malformed CSV record near [redacted]',
        detail: format === 'csv' ? '' : null,
        raw,
        name: fields.name,
      });
    }
  });

  it('writes only the header when no row failed', async () => {
    const { sink, text } = memorySink();
    const writer = createReportWriter(sink, { format: 'csv', job: 'geocode', inputColumns: () => ['id'] });
    writer.end();
    expect((await text()).trim().split(',')).toEqual([
      'geobatch_row',
      'geobatch_line',
      'geobatch_job',
      'geobatch_stage',
      'geobatch_error',
      'geobatch_http_status',
      'geobatch_message',
      'geobatch_attempts',
      'geobatch_detail',
      'geobatch_raw',
      'id',
    ]);
  });

  it("keeps an earlier run's geobatch columns out of the input columns of a report fed back", async () => {
    const { sink, text } = memorySink();
    const input = ['geobatch_row', 'geobatch_error', 'id', 'geobatch_status', 'geobatch_message'];
    const writer = createReportWriter(sink, { format: 'csv', job: 'geocode', inputColumns: () => input });
    const fields = {
      geobatch_row: '3',
      geobatch_error: 'X',
      id: '9',
      geobatch_status: 'failed',
      geobatch_message: 'm',
    };
    writer.write(failed(row(0, fields), 0));
    writer.end();
    const [header, record] = parse(await text()) as string[][];
    expect(header?.filter((c) => c === 'geobatch_status' || c === 'geobatch_error')).toEqual([
      'geobatch_error',
    ]);
    expect(header?.slice(10)).toEqual(['id']);
    expect(record?.slice(10)).toEqual(['9']);
  });
});
