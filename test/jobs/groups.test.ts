import { describe, expect, it } from 'vitest';
import { GroupRuns, type Run } from '../../src/jobs/_groups.js';
import { bySequence, readInstant } from '../../src/jobs/_sequence.js';
import type { Row } from '../../src/types.js';

const mapping = { trip: { column: 'trip_id' } };
const rowAt = (index: number, trip: string): Row => ({
  kind: 'row',
  ref: { index, line: index + 2 },
  fields: { trip_id: trip },
});

/** Enters `trips` as consecutive rows; returns what each row got. */
function enter(groups: GroupRuns, trips: readonly string[]) {
  return trips.map((trip, index) => groups.enter(rowAt(index, trip)));
}

describe('GroupRuns', () => {
  it('puts consecutive rows of one group into one run, which ends where another group begins', () => {
    const groups = new GroupRuns(mapping, 'trip', 'trip');
    const [a1, a2, b1] = enter(groups, ['A', 'A', 'B']) as Run[];
    expect(a1).toBe(a2);
    expect(b1).not.toBe(a1);
    expect(a1?.ended).toBe(true);
    expect(b1?.ended).toBe(false);
    groups.end();
    expect(b1?.ended).toBe(true);
  });

  it('fails each row of a group that comes again after another, naming where it was before', () => {
    const groups = new GroupRuns(mapping, 'trip', 'trip');
    const results = enter(groups, ['A', 'A', 'B', 'A', 'B']);
    expect(results[3]).toEqual({
      code: 'FIELD_INVALID',
      field: 'trip_id',
      message:
        'trip_id: trip A already ended (rows 1-2) and comes again at row 4; the rows of each trip must be together: sort the input by trip_id (a stable sort keeps their order)',
    });
    // A rejected row does not end the group around it.
    expect(results[4]).toBe(results[2]);
  });

  it('fails a row without a group as FIELD_MISSING, without ending the current group', () => {
    const groups = new GroupRuns(mapping, 'trip', 'trip');
    const results = enter(groups, ['A', ' ', 'A']);
    expect(results[1]).toMatchObject({ code: 'FIELD_MISSING', field: 'trip_id' });
    expect(results[2]).toBe(results[0]);
  });

  it('forgets the oldest ended groups beyond its bound, so memory stays flat', () => {
    const groups = new GroupRuns(mapping, 'trip', 'trip', 2);
    const results = enter(groups, ['A', 'B', 'C', 'D', 'A', 'C']);
    // A ended three groups ago, beyond the two remembered: it starts afresh.
    expect((results[4] as Run).name).toBe('A');
    expect((results[4] as Run).first).toBe(4);
    expect(results[5]).toMatchObject({ code: 'FIELD_INVALID' });
  });

  it('allows a resume only where no group has rows on both sides', () => {
    const groups = new GroupRuns(mapping, 'trip', 'trip');
    enter(groups, ['A', 'A', 'A', 'B', 'B', 'C']);
    // Rows 0-2 are A, 3-4 B, 5 C (still open: more C rows may come).
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => groups.resumableAt(i))).toEqual([
      true,
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    groups.end();
    expect(groups.resumableAt(6)).toBe(true);
  });
});

describe('bySequence', () => {
  const seq = (s: string | undefined) => s;

  it('orders numbers as numbers when every value is one', () => {
    expect(bySequence(['10', '9', '1.5', '-2'], seq)).toEqual(['-2', '1.5', '9', '10']);
  });

  it('orders as text when any value is not a number, keeping equal values in input order', () => {
    const items = [
      { s: 'b', i: 0 },
      { s: '10', i: 1 },
      { s: 'a', i: 2 },
      { s: 'b', i: 3 },
      { s: '9', i: 4 },
    ];
    expect(bySequence(items, (x) => x.s).map((x) => x.i)).toEqual([1, 4, 2, 0, 3]);
  });

  it('puts missing values last, in input order', () => {
    expect(bySequence(['2', undefined, '1'], seq)).toEqual(['1', '2', undefined]);
  });
});

describe('readInstant', () => {
  it('reads numbers and ISO 8601 date-times, and nothing else', () => {
    expect(readInstant('1714975200')).toEqual({ kind: 'number', value: 1714975200 });
    expect(readInstant('2024-05-06T06:00:10Z')).toEqual({
      kind: 'date',
      value: Date.UTC(2024, 4, 6, 6, 0, 10),
    });
    expect(readInstant('2024-05-06T08:00:10+02:00')).toEqual(readInstant('2024-05-06T06:00:10Z'));
    // Every offset form ISO 8601 has: hours alone, with minutes, with or without the colon.
    for (const offset of ['+02', '+0200', '+02:00'])
      expect(readInstant(`2024-05-06T08:00:10${offset}`), offset).toEqual(
        readInstant('2024-05-06T06:00:10Z'),
      );
    expect(readInstant('2024-05-06 04:00:10-02')).toEqual(readInstant('2024-05-06T06:00:10Z'));
    expect(readInstant('2024-05-06')).toEqual({ kind: 'date', value: Date.UTC(2024, 4, 6) });
    expect(readInstant('2024-05-06+02')).toBeUndefined();
    expect(readInstant('n/a')).toBeUndefined();
    expect(readInstant('May 6')).toBeUndefined();
    expect(readInstant('2024-13-45T99:00:00Z')).toBeUndefined();
  });

  it("reads a time without an offset as UTC, whatever the machine's zone", () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ['UTC', 'Europe/Berlin', 'America/New_York']) {
        process.env.TZ = tz;
        // 02:30 does not exist in Berlin that night: read locally it became 03:30.
        expect(readInstant('2024-03-31T02:30:00'), tz).toEqual({
          kind: 'date',
          value: Date.UTC(2024, 2, 31, 2, 30),
        });
        expect(readInstant('2024-03-31 02:30'), tz).toEqual(readInstant('2024-03-31T02:30:00Z'));
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("takes ISO 8601's comma before a fraction of a second, and a lower-case z", () => {
    expect(readInstant('2024-03-31T02:30:00,5Z')).toEqual({
      kind: 'date',
      value: Date.UTC(2024, 2, 31, 2, 30, 0, 500),
    });
    expect(readInstant('2024-03-31T02:30:00z')).toEqual(readInstant('2024-03-31T02:30:00Z'));
    expect(readInstant('2024-03-31T02:30:00,5')).toEqual(readInstant('2024-03-31T02:30:00.5Z'));
  });

  it('reads a number with a decimal comma when the input declares no mark, as other number cells', () => {
    expect(readInstant('6,5')).toEqual({ kind: 'number', value: 6.5 });
    expect(readInstant('1.700.000.000', ',')).toEqual({ kind: 'number', value: 1_700_000_000 });
    expect(readInstant('6,5,1')).toBeUndefined();
  });

  it('refuses a day the month does not have, which Date.parse would roll over into the next', () => {
    expect(readInstant('2024-02-30T08:00:00Z')).toBeUndefined();
    expect(readInstant('2023-02-29T08:00:00Z')).toBeUndefined();
    expect(readInstant('2024-04-31')).toBeUndefined();
    expect(readInstant('2024-05-00T08:00:00Z')).toBeUndefined();
    expect(readInstant('2024-02-29T08:00:00Z')).toEqual({ kind: 'date', value: Date.UTC(2024, 1, 29, 8) });
    expect(readInstant('2024-12-31T23:59:59+01:00')).toEqual({
      kind: 'date',
      value: Date.UTC(2024, 11, 31, 22, 59, 59),
    });
  });
});
