import { describe, expect, it } from 'vitest';
import type { GeobatchError } from '../../src/errors.js';
import { openReader } from '../../src/input/open.js';
import {
  checkSelection,
  seededRandom,
  selectionCap,
  selectionFlags,
  selectionKey,
  selectRows,
} from '../../src/input/sample.js';
import type { ReadItem, Row } from '../../src/types.js';
import { collect, tempFile } from './_read.js';

/** A CSV of `count` rows whose `id` is the row's 0-based position in the file. */
function csv(count: number, pad = 0): string {
  const filler = 'x'.repeat(pad);
  return `id,name\n${Array.from({ length: count }, (_, i) => `${i},${filler}`).join('\n')}\n`;
}

async function select(count: number, selection: Parameters<typeof selectRows>[1], pad = 0) {
  const reader = await openReader({ path: tempFile(csv(count, pad)), format: 'csv' });
  const selected = selectRows(reader, selection);
  const items = await collect(selected);
  return { reader: selected, items };
}

const ids = (items: readonly ReadItem[]) =>
  items.map((item) => (item.kind === 'row' ? Number(item.fields.id) : Number.NaN));

describe('--limit', () => {
  it('hands on the first N records and stops reading the file there', async () => {
    // 40,000 rows of ~100 bytes: 4 MB, far beyond what the first 10 rows need.
    const { reader, items } = await select(40_000, { limit: 10 }, 96);
    expect(ids(items)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(items.map((item) => item.ref.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(reader.bytesRead()).toBeLessThan((reader.sizeBytes ?? 0) / 2);
  });

  it('hands on every record of an input shorter than the limit', async () => {
    const { items } = await select(3, { limit: 50 });
    expect(ids(items)).toEqual([0, 1, 2]);
  });
});

describe('--sample', () => {
  it('draws N records in input order, numbered from 0, each keeping its line in the file', async () => {
    const { items } = await select(1000, { sample: 20, seed: '1' });
    expect(items).toHaveLength(20);
    const drawn = ids(items);
    expect(drawn).toEqual([...drawn].sort((a, b) => a - b));
    expect(new Set(drawn).size).toBe(20);
    expect(items.map((item) => item.ref.index)).toEqual([...Array(20).keys()]);
    // Line 1 is the header: row i is on line i + 2.
    expect(items.map((item) => item.ref.line)).toEqual(drawn.map((id) => id + 2));
    // Drawn from the whole file, not its start.
    expect(Math.max(...drawn)).toBeGreaterThan(500);
  });

  it('draws the same records for the same seed, and others for another seed', async () => {
    const a = ids((await select(500, { sample: 10, seed: 'apple' })).items);
    const b = ids((await select(500, { sample: 10, seed: 'apple' })).items);
    const c = ids((await select(500, { sample: 10, seed: 'pear' })).items);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('draws each record with the same chance (every record of 20, over 2000 seeds)', async () => {
    const items: ReadItem[] = Array.from({ length: 20 }, (_, index) => ({
      kind: 'row',
      ref: { index, line: index + 2 },
      fields: { id: String(index) },
    }));
    const counts = new Array(20).fill(0) as number[];
    for (let seed = 0; seed < 2000; seed++) {
      const reader = fakeReader(items);
      for await (const item of selectRows(reader, { sample: 5, seed: String(seed) }))
        if (item.kind === 'row') counts[Number(item.fields.id)] = (counts[Number(item.fields.id)] ?? 0) + 1;
    }
    // Expected 2000 * 5 / 20 = 500 each; the binomial's standard deviation is about 19.
    for (const count of counts) expect(count).toBeGreaterThan(420);
    for (const count of counts) expect(count).toBeLessThan(580);
  });

  it('draws from the first `limit` records when both are given', async () => {
    const { items } = await select(1000, { limit: 100, sample: 10, seed: '3' });
    expect(items).toHaveLength(10);
    expect(Math.max(...ids(items))).toBeLessThan(100);
  });

  it('hands on every record, renumbered, when the input has fewer than N', async () => {
    const { items } = await select(4, { sample: 10 });
    expect(ids(items)).toEqual([0, 1, 2, 3]);
  });
});

describe('a selection of rows that form groups (a trip, a track)', () => {
  /** Trips of 1 to 4 stops, one after the other: trip t has (t % 4) + 1 stops. */
  function trips(count: number): { text: string; sizes: number[] } {
    const lines = ['trip,stop'];
    const sizes: number[] = [];
    for (let t = 0; t < count; t++) {
      sizes.push((t % 4) + 1);
      for (let s = 0; s < (t % 4) + 1; s++) lines.push(`T${t},${s}`);
    }
    return { text: `${lines.join('\n')}\n`, sizes };
  }
  const tripOf = (row: Row) => [String(row.fields.trip)];
  const cells = (items: readonly ReadItem[]) =>
    items.map((item) => (item.kind === 'row' ? `${item.fields.trip}/${item.fields.stop}` : '?'));

  async function selectTrips(selection: Parameters<typeof selectRows>[1]) {
    const reader = await openReader({ path: tempFile(trips(200).text), format: 'csv' });
    return collect(selectRows(reader, selection, tripOf));
  }

  it('--limit ends with the whole group its last row is in', async () => {
    // T0 has 1 stop, T1 2, T2 3: the 5th row is T2's second stop, and T2's third comes too.
    const items = await selectTrips({ limit: 5 });
    expect(cells(items)).toEqual(['T0/0', 'T1/0', 'T1/1', 'T2/0', 'T2/1', 'T2/2']);
    expect(items.map((item) => item.ref.index)).toEqual([0, 1, 2, 3, 4, 5]);
    // A limit at a group's end takes nothing of the next.
    expect(cells(await selectTrips({ limit: 3 }))).toEqual(['T0/0', 'T1/0', 'T1/1']);
  });

  it('--sample draws N whole groups, in input order, renumbered', async () => {
    const items = await selectTrips({ sample: 10, seed: '3' });
    const drawn = [...new Set(items.map((item) => (item.kind === 'row' ? String(item.fields.trip) : '')))];
    expect(drawn).toHaveLength(10);
    const { sizes } = trips(200);
    // Every drawn trip with all its stops, in order.
    const expected = drawn.flatMap((trip) =>
      Array.from({ length: sizes[Number(trip.slice(1))] ?? 0 }, (_, s) => `${trip}/${s}`),
    );
    expect(cells(items)).toEqual(expected);
    expect(drawn.map((trip) => Number(trip.slice(1)))).toEqual(
      [...drawn.map((trip) => Number(trip.slice(1)))].sort((a, b) => a - b),
    );
    expect(items.map((item) => item.ref.index)).toEqual([...Array(items.length).keys()]);
    // The same seed draws the same trips.
    expect(cells(await selectTrips({ sample: 10, seed: '3' }))).toEqual(cells(items));
  });

  it('--sample never draws a group that comes again alone, and keeps a row naming none in its group', async () => {
    // T1 comes again after T2 (its job refuses those rows); T2's middle row names no trip.
    const text = 'trip,stop\nT0,0\nT1,0\nT1,1\nT2,0\n,x\nT2,1\nT1,2\nT3,0\n';
    const named = (row: Row) => [row.fields.trip === '' ? undefined : String(row.fields.trip)];
    const reader = await openReader({ path: tempFile(text), format: 'csv' });
    const items = await collect(selectRows(reader, { sample: 10 }, named));
    expect(
      items.map((item) => (item.kind === 'row' ? `${item.fields.trip}/${item.fields.stop}` : '?')),
    ).toEqual(['T0/0', 'T1/0', 'T1/1', 'T2/0', '/x', 'T2/1', 'T3/0']);
  });

  it('goes on past a row of a group that already ended: it fails alone and ends no group', async () => {
    // A ends with row 4; row 7 is A again ("already ended" in the job), and B goes on at row 8.
    const text = 'trip,stop\nA,1\nA,3\nA,2\nA,4\nB,1\nB,2\nA,5\nB,x\nC,1\n';
    const named = (row: Row) => [row.fields.trip === '' ? undefined : String(row.fields.trip)];
    const pick = async (selection: Parameters<typeof selectRows>[1]) =>
      cells(
        await collect(
          selectRows(await openReader({ path: tempFile(text), format: 'csv' }), selection, named),
        ),
      );
    // A limit inside B, or on the stray row itself, takes B whole, the stray row with it.
    for (const limit of [5, 6, 7])
      expect(await pick({ limit })).toEqual(['A/1', 'A/3', 'A/2', 'A/4', 'B/1', 'B/2', 'A/5', 'B/x']);
    // A sample draws B whole, and never the stray row, which alone would be a trip of its own.
    const drawn = new Set<string>();
    for (const seed of ['0', '1', '2', '3', '4', '5', '6', '7']) {
      const rows = await pick({ sample: 1, seed });
      drawn.add(rows.join(' '));
    }
    expect([...drawn].sort()).toEqual(['A/1 A/3 A/2 A/4', 'B/1 B/2 B/x', 'C/1']);
  });

  // A pipeline's steps may group by different columns: a track's fixes (trk), a tour's stops.
  const TWO = 'trk,tour,n\nk1,A,1\nk1,A,2\nk2,A,3\nk3,B,4\nk3,C,5\nk4,D,6\n';
  const both = (row: Row) => [String(row.fields.trk), String(row.fields.tour)];
  const ns = (items: readonly ReadItem[]) => items.map((item) => (item.kind === 'row' ? item.fields.n : '?'));

  it('--limit goes on past a record naming no group when its group goes on after it', async () => {
    // T1's second stop names no trip: it fails alone, and T1 goes on after it.
    const text = 'trip,stop\nT0,0\nT1,0\n,1\nT1,2\nT2,0\n';
    const named = (row: Row) => [row.fields.trip === '' ? undefined : String(row.fields.trip)];
    const reader = await openReader({ path: tempFile(text), format: 'csv' });
    const items = await collect(selectRows(reader, { limit: 2 }, named));
    expect(
      items.map((item) => (item.kind === 'row' ? `${item.fields.trip}/${item.fields.stop}` : '?')),
    ).toEqual(['T0/0', 'T1/0', '/1', 'T1/2']);
  });

  it('--limit goes on while a group of any step does', async () => {
    const reader = await openReader({ path: tempFile(TWO), format: 'csv' });
    // Row 2 ends k1 but not tour A, row 3 (k2, A) ends A; k3 then carries B into C.
    expect(ns(await collect(selectRows(reader, { limit: 2 }, both)))).toEqual(['1', '2', '3']);
    const again = await openReader({ path: tempFile(TWO), format: 'csv' });
    expect(ns(await collect(selectRows(again, { limit: 4 }, both)))).toEqual(['1', '2', '3', '4', '5']);
  });

  it('--sample draws units in which no group of any step is cut', async () => {
    for (const seed of ['0', '1', '2', '3']) {
      const reader = await openReader({ path: tempFile(TWO), format: 'csv' });
      const drawn = ns(await collect(selectRows(reader, { sample: 1, seed }, both))).join('');
      expect(['123', '45', '6']).toContain(drawn);
    }
  });

  it('gives no row total for progress: the groups decide it', () => {
    expect(selectionCap({ limit: 5 }, tripOf)).toBeUndefined();
    expect(selectionCap({ limit: 5 })).toBe(5);
  });
});

describe('selections', () => {
  it('refuse a count that is not a positive whole number, naming it', () => {
    for (const bad of [0, -1, 2.5, Number.NaN]) {
      let caught: GeobatchError | undefined;
      try {
        checkSelection({ limit: bad });
      } catch (error) {
        caught = error as GeobatchError;
      }
      expect(caught?.code).toBe('USAGE');
      expect(caught?.context).toMatchObject({ field: 'limit', received: String(bad) });
    }
  });

  it('take a number for a seed from a caller, typed so (strict TypeScript), as --seed takes its text', async () => {
    const text = ids((await select(500, { sample: 10, seed: '7' })).items);
    const number = ids((await select(500, { sample: 10, seed: 7 })).items);
    expect(number).toEqual(text);
    expect(() => checkSelection({ sample: 5, seed: {} as unknown as string })).toThrow(
      expect.objectContaining({ code: 'USAGE', context: expect.objectContaining({ field: 'seed' }) }),
    );
  });

  it('refuse a seed without a sample', () => {
    expect(() => checkSelection({ limit: 5, seed: '1' })).toThrow(
      expect.objectContaining({ code: 'USAGE', context: expect.objectContaining({ field: 'seed' }) }),
    );
  });

  it('tell selections apart for the checkpoint, and leave a run of every row as it was', () => {
    expect(selectionKey(undefined)).toBe('');
    expect(selectionKey({})).toBe('');
    expect(selectionKey({ sample: 5 })).toBe(selectionKey({ sample: 5, seed: '0' }));
    const keys = [{ limit: 5 }, { limit: 6 }, { sample: 5 }, { sample: 5, seed: '1' }].map(selectionKey);
    expect(new Set(keys).size).toBe(4);
  });

  it('cap the row total at the smaller count', () => {
    expect(selectionCap(undefined)).toBeUndefined();
    expect(selectionCap({ limit: 50, sample: 10 })).toBe(10);
    expect(selectionCap({ limit: 50 })).toBe(50);
  });

  it('draw numbers in [0, 1) that the seed fixes', () => {
    const a = seededRandom('x');
    const b = seededRandom('x');
    const drawn = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(drawn);
    expect(drawn.every((n) => n >= 0 && n < 1)).toBe(true);
  });
});

function fakeReader(items: readonly ReadItem[]) {
  return {
    path: 'fake',
    format: 'csv' as const,
    sizeBytes: undefined,
    mtimeMs: undefined,
    bytesRead: () => 0,
    columns: () => ['id'],
    truncated: () => false,
    lineCounts: () => ({ lines: 0, blank: 0, header: 0 }),
    async *[Symbol.asyncIterator]() {
      yield* items;
    },
  };
}

describe('selectionFlags', () => {
  it("gives back the flags a checkpoint's selection key was made from", () => {
    expect(selectionFlags(selectionKey({ limit: 700 }))).toEqual(['--limit', '700']);
    expect(selectionFlags(selectionKey({ sample: 50, seed: '7' }))).toEqual([
      '--sample',
      '50',
      '--seed',
      '7',
    ]);
    expect(selectionFlags(selectionKey({ limit: 20, sample: 5 }))).toEqual(
      expect.arrayContaining(['--limit', '20', '--sample', '5', '--seed']),
    );
    expect(selectionFlags(selectionKey(undefined))).toEqual([]);
    expect(selectionFlags(undefined)).toEqual([]);
  });
});
