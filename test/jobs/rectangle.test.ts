import { describe, expect, it } from 'vitest';
import { resolveMapping } from '../../src/jobs/_fields.js';
import { readRectangle } from '../../src/jobs/_rectangle.js';
import { row } from './_rows.js';

const mapping = {
  west: { column: 'w' },
  south: { column: 's' },
  east: { column: 'e' },
  north: { column: 'n' },
};

describe('readRectangle', () => {
  it('reads four columns as a WGS84 rectangle', () => {
    expect(readRectangle(row({ w: '8.35', s: '48.98', e: '8.45', n: '49.05' }), mapping)).toEqual({
      west: 8.35,
      south: 48.98,
      east: 8.45,
      north: 49.05,
    });
  });

  it('reads the corners with the decimal mark the input declares, and compares what it read', () => {
    const comma = resolveMapping({ west: 'w', south: 's', east: 'e', north: 'n' }, ',');
    expect(readRectangle(row({ w: '8,35', s: '48,98', e: '8,45', n: '49,05' }), comma)).toEqual({
      west: 8.35,
      south: 48.98,
      east: 8.45,
      north: 49.05,
    });
    expect(readRectangle(row({ w: '8,45', s: '48,98', e: '8,35', n: '49,05' }), comma)).toEqual({
      code: 'FIELD_INVALID',
      field: 'w',
      message: 'w: expected west to be less than east, got w 8,45 and e 8,35 (swapped?)',
    });
    expect(readRectangle(row({ w: '8,35', s: '48.98', e: '8,45', n: '49,05' }), comma)).toMatchObject({
      code: 'FIELD_INVALID',
      field: 's',
      message: expect.stringContaining('written with input.decimal ","'),
    });
  });

  it('suspects a swapped pair when west lies east of east', () => {
    expect(readRectangle(row({ w: '8.45', s: '48.98', e: '8.35', n: '49.05' }), mapping)).toEqual({
      code: 'FIELD_INVALID',
      field: 'w',
      message: 'w: expected west to be less than east, got w 8.45 and e 8.35 (swapped?)',
    });
  });

  it('says a rectangle of equal west and east has no width, not that they are swapped', () => {
    expect(readRectangle(row({ w: '8.4', s: '48.98', e: '8.40', n: '49.05' }), mapping)).toEqual({
      code: 'FIELD_INVALID',
      field: 'w',
      message: 'w: expected west to be less than east, got w 8.4 and e 8.40 (the rectangle has no width)',
    });
  });

  it('says a rectangle of equal south and north has no height', () => {
    expect(readRectangle(row({ w: '8.35', s: '49', e: '8.45', n: '49,0' }), mapping)).toEqual({
      code: 'FIELD_INVALID',
      field: 's',
      message: 's: expected south to be less than north, got s 49 and n 49,0 (the rectangle has no height)',
    });
  });

  it('compares SUPERKONFORM columns as they are written, not as the corners convert', () => {
    // Near Karlsruhe the grid is turned against the meridians: one x is two longitudes at two ys.
    const sheet = (xw: string, xe: string) => row({ w: xw, s: '3346184.5', e: xe, n: '3350184.5' });
    expect(readRectangle(sheet('5085871', '5085871'), mapping, 'SUPERKONFORM')).toEqual({
      code: 'FIELD_INVALID',
      field: 'w',
      message:
        'w: expected west to be less than east, got w 5085871 and e 5085871 (the rectangle has no width)',
    });
    // 10 m wide: its north-east corner lies at a smaller longitude than its south-west one.
    expect(readRectangle(sheet('5085871', '5085881'), mapping, 'SUPERKONFORM')).toMatchObject({
      west: expect.any(Number),
      east: expect.any(Number),
    });
  });
});
