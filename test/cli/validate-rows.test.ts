/**
 * validate plans the input's rows as the run plans them, nothing sent: every row up to
 * ROWS_CHECKED, or every one with --all-rows, and says how many it checked. It planned only the
 * first 20, stopping at the first that planned: a bad row further on went unsaid, and so did how
 * little was checked.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ROWS_CHECKED } from '../../src/cli/_validate-rows.js';
import { jobDir } from '../jobs/_file-rules-cases.js';
import { validate } from './_validate.js';

const dir = jobDir();
afterAll(() => dir.remove());
afterEach(() => {
  vi.restoreAllMocks();
});

/** `count` rows of points, the 1-based rows in `bad` without a latitude. */
function points(name: string, count: number, bad: readonly number[]): string {
  const lines = ['id,lon,lat'];
  const missing = new Set(bad);
  for (let row = 1; row <= count; row++) lines.push(missing.has(row) ? `${row},8.4,` : `${row},8.4,49`);
  dir.write(name, `${lines.join('\n')}\n`);
  return dir.write(`${name}.yaml`, `job: elevation\ninput: ${name}\noutput: ${name}.out.csv\n`);
}

describe('geobatch validate: the rows it plans', () => {
  it('checks every row of an input within the limit, naming each reason a row fails with its first row', async () => {
    const job = points('deep.csv', 6000, [5000, 5500]);
    const { out, error } = await validate(job);
    expect(error).toBeUndefined();
    expect(out).toContain('valid elevation job');
    expect(out).toContain(
      '  rows         all 6,000 checked, nothing sent: 2 fail before a request (see the warning)\n',
    );
    expect(out).toContain(
      "  warning: 2 of the input's 6,000 rows would fail before any request: row 5,000 (line 5,001) and 1 more: lat: expected a latitude, got an empty value\n",
    );
  });

  it('says so when every row plans', async () => {
    const { out } = await validate(points('fine.csv', 3, []));
    expect(out).toContain('  rows         all 3 checked, nothing sent: none fails before a request\n');
    expect(out).not.toContain('warning: 0');
  });

  it('stops after the limit, saying how many it checked and that --all-rows checks every one', async () => {
    const count = ROWS_CHECKED + 5;
    const job = points('long.csv', count, [ROWS_CHECKED + 3]);
    const first = await validate(job);
    expect(first.error).toBeUndefined();
    expect(first.out).toContain(
      '  rows         the first 100,000 checked, nothing sent: none fails before a request; the input has more rows, not checked (--all-rows checks every one)\n',
    );
    expect(first.out).not.toContain('would fail before any request');
    const all = await validate(job, '--all-rows');
    expect(all.error).toBeUndefined();
    expect(all.out).toContain(
      '  rows         all 100,005 checked, nothing sent: 1 fails before a request (see the warning)\n',
    );
    expect(all.out).toContain(
      "  warning: 1 of the input's 100,005 rows would fail before any request: row 100,003 (line 100,004): lat: expected a latitude, got an empty value\n",
    );
  });

  it('says "as every row may" when every row of the first ROWS_CHECKED fails alike', async () => {
    const job = points(
      'all-bad.csv',
      ROWS_CHECKED + 1,
      Array.from({ length: ROWS_CHECKED + 1 }, (_, i) => i + 1),
    );
    const { out } = await validate(job);
    expect(out).toContain(
      "  warning: each of the input's first 100,000 rows would fail before any request, as every row may: lat: expected a latitude, got an empty value\n",
    );
  });
});

describe('geobatch validate: the rows of a matrix', () => {
  /** Origins (the second without a longitude) and a destinations file, `stores` when given. */
  function matrix(name: string, stores: string | undefined): string {
    dir.write(`${name}.csv`, 'id,lon,lat\n1,8.40,49.01\n2,,49.02\n3,8.42,49.03\n');
    if (stores !== undefined) dir.write(stores, 'store_id,lon,lat\ns1,8.45,49.00\ns2,8.46,49.05\n');
    return dir.write(
      `${name}.yaml`,
      `job: matrix\ninput: ${name}.csv\noutput: ${name}.out.csv\noptions:\n  destinations:\n    path: ${stores ?? 'no-stores.csv'}\n    mapping:\n      id: store_id\n`,
    );
  }

  it('plans them against the destinations, as the run does', async () => {
    const { out, error } = await validate(matrix('depots', 'stores.csv'));
    expect(error).toBeUndefined();
    expect(out).toContain(
      '  rows         all 3 checked, nothing sent: 1 fails before a request (see the warning)\n',
    );
    expect(out).toContain(
      "  warning: 1 of the input's 3 rows would fail before any request: row 2 (line 3): lon: expected a longitude, got an empty value\n",
    );
  });

  it('says the rows were not checked when the destinations are not there yet', async () => {
    const { out, error } = await validate(matrix('early', undefined));
    expect(error).toBeUndefined();
    expect(out).toMatch(
      /\n {2}rows {9}not checked: the rows are planned with \S+no-stores\.csv, which does not exist \(yet\)\n/,
    );
  });
});
