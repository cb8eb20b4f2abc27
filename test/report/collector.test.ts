import { describe, expect, it } from 'vitest';
import { createReportCollector } from '../../src/report/collector.js';
import type { Outcome } from '../../src/types.js';
import { failed, ok, row } from '../output/_outcomes.js';

const here = { type: 'Point' as const, coordinates: [8.4, 49] };
const there = { type: 'Point' as const, coordinates: [13.4, 52.5] };

describe('createReportCollector', () => {
  it('maps each output record with the geometry the GeoJSON output gives it', () => {
    const collector = createReportCollector();
    collector.add(ok(row(0, { id: 'a' }), { columns: {}, geometry: there })); // the job's own
    collector.add(ok(row(1, { id: 'b' }, here), { columns: {} })); // none of its own: the input's
    collector.add(ok(row(2, { id: 'c' }, here), { columns: {}, geometry: null })); // null wins
    collector.add(ok(row(3, { id: 'd' }), { columns: {}, geometry: here }, { columns: {}, geometry: there }));
    const map = collector.map();
    expect(map.features.map((f) => [f.row, f.geometry])).toEqual([
      [1, there],
      [2, here],
      [4, here],
      [4, there],
    ]);
    expect(map.withoutGeometry).toEqual({ ok: 1, failed: 0 });
  });

  it('puts failed rows on the map by their input geometry and keeps them as examples', () => {
    const collector = createReportCollector();
    collector.add(failed(row(4, { id: 'e', city: 'Nirgendwo' }, here), 4));
    collector.add(failed(undefined, 5, 'INPUT_MALFORMED'));
    expect(collector.map().features).toEqual([
      { geometry: here, status: 'failed', row: 5, code: 'NO_MATCH' },
    ]);
    expect(collector.map().withoutGeometry).toEqual({ ok: 0, failed: 1 });
    expect(collector.failures().map((e) => [e.row, e.code, e.fields])).toEqual([
      [5, 'NO_MATCH', { id: 'e', city: 'Nirgendwo' }],
      [6, 'INPUT_MALFORMED', {}],
    ]);
  });

  it('puts a failed row without a geometry where locate says its job reads it, the input geometry first', () => {
    const located: number[] = [];
    const collector = createReportCollector({
      locate: (r) => {
        located.push(r.ref.index + 1);
        const [lon, lat] = [Number.parseFloat(String(r.fields.lon)), Number.parseFloat(String(r.fields.lat))];
        return Number.isFinite(lon) && Number.isFinite(lat)
          ? { type: 'Point', coordinates: [lon, lat] }
          : undefined;
      },
    });
    collector.add(failed(row(0, { lon: '8.4', lat: '49' }), 0)); // a CSV row: its mapped point
    collector.add(failed(row(1, { lon: '', lat: '' }), 1)); // no usable point
    collector.add(failed(row(2, { lon: '1', lat: '1' }, there), 2)); // the input's own geometry wins
    collector.add(failed(undefined, 3, 'INPUT_MALFORMED')); // an unreadable record: no row to locate
    collector.add(ok(row(4, { lon: '0', lat: '0' }), { columns: {} })); // ok rows: as the output has them
    const map = collector.map();
    expect(map.features.map((f) => [f.row, f.status, f.geometry])).toEqual([
      [1, 'failed', here],
      [3, 'failed', there],
    ]);
    expect(map.withoutGeometry).toEqual({ ok: 1, failed: 2 });
    expect(located).toEqual([1, 2]);
  });

  it('takes the fields a failed issue could read when the row itself is gone', () => {
    const collector = createReportCollector();
    const outcome: Outcome = {
      status: 'failed',
      ref: { index: 9, line: 12 },
      issue: {
        kind: 'issue',
        ref: { index: 9, line: 12 },
        stage: 'input',
        code: 'INPUT_MALFORMED',
        message: 'too many fields',
        fields: { id: 'j' },
      },
    };
    collector.add(outcome);
    expect(collector.failures()[0]?.fields).toEqual({ id: 'j' });
  });
});
