import { describe, expect, it } from 'vitest';
import { createNdjsonWriter } from '../../src/output/ndjson.js';
import { failed, memorySink, ok, row } from './_outcomes.js';

describe('NDJSON writer', () => {
  it('writes one object per record: input fields, job columns (null when failed), status and error', async () => {
    const { sink, text } = memorySink();
    const writer = createNdjsonWriter(sink, { jobColumns: ['lat'], inputColumns: () => [] });
    writer.write(ok(row(0, { a: 1, b: 'x' }), { columns: { lat: 50 } }, { columns: { lat: 51 } }));
    writer.write(failed(row(1, { a: 2 }), 1));
    writer.end();
    const lines = (await text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { a: 1, b: 'x', lat: 50, geobatch_status: 'ok', geobatch_error: '' },
      { a: 1, b: 'x', lat: 51, geobatch_status: 'ok', geobatch_error: '' },
      { a: 2, lat: null, geobatch_status: 'failed', geobatch_error: 'NO_MATCH' },
    ]);
    expect(writer.stats().records).toBe(3);
  });

  it("writes geobatch's own keys once, with this run's values, when an earlier output or report is fed back", async () => {
    const { sink, text } = memorySink();
    const writer = createNdjsonWriter(sink, { jobColumns: ['lat'], inputColumns: () => [] });
    const earlier = { a: 1, lat: 7, geobatch_status: 'failed', geobatch_error: 'NO_MATCH', geobatch_row: 4 };
    writer.write(ok(row(0, earlier), { columns: { lat: 50 } }));
    writer.write(failed(row(1, earlier), 1));
    writer.end();
    const lines = (await text()).trimEnd().split('\n');
    expect(lines).toEqual([
      '{"a":1,"lat":50,"geobatch_status":"ok","geobatch_error":""}',
      '{"a":1,"lat":null,"geobatch_status":"failed","geobatch_error":"NO_MATCH"}',
    ]);
  });
});
