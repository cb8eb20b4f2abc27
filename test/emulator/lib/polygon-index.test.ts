import { describe, expect, it } from 'vitest';
import { PolygonIndex } from '../../../src/emulator/lib/_polygon-index.js';

const square = [
  [0, 0],
  [10, 0],
  [10, 10],
  [0, 10],
  [0, 0],
];
const hole = [
  [4, 4],
  [6, 4],
  [6, 6],
  [4, 6],
  [4, 4],
];

describe('PolygonIndex', () => {
  const index = new PolygonIndex([square, hole]);

  it('finds points inside and outside, honouring holes', () => {
    expect(index.contains(2, 2)).toBe(true);
    expect(index.contains(5, 5)).toBe(false);
    expect(index.contains(11, 5)).toBe(false);
    expect(index.contains(-1, 5)).toBe(false);
  });

  it('counts the boundary as inside, vertices included', () => {
    expect(index.contains(0, 5)).toBe(true);
    expect(index.contains(10, 10)).toBe(true);
    expect(index.contains(5, 0)).toBe(true);
    expect(index.contains(4, 5)).toBe(true);
  });
});
