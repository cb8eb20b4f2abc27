/** The count behind the run's warning of swapped coordinates (src/jobs/_swapped.ts). */
import { describe, expect, it } from 'vitest';
import { EARLY_ROWS, looksSwapped, mostlySwapped, SwappedPoints } from '../../src/jobs/_swapped.js';
import type { Row } from '../../src/types.js';

const row = (index: number): Row => ({ kind: 'row', ref: { index, line: index + 2 }, fields: {} }) as Row;

describe('looksSwapped', () => {
  it('is true of a European point given latitude first, and of nothing that lies in Europe as given', () => {
    expect(looksSwapped(52.52437, 13.41053)).toBe(true); // Berlin
    expect(looksSwapped(40.4168, -3.7038)).toBe(true); // Madrid
    expect(looksSwapped(13.41053, 52.52437)).toBe(false);
    expect(looksSwapped(-3.7038, 40.4168)).toBe(false);
    // Both readings in Europe (the east, lat and lon alike): as given wins.
    expect(looksSwapped(40, 44)).toBe(false);
  });

  it('is false around lon 0 / lat 0 and for points outside Europe either way', () => {
    for (const [lon, lat] of [
      [0, 0],
      [0.2, 0.5],
      [-0.1, -0.3],
      [-74, 40.71],
      [151.21, -33.87],
      [100, 10],
    ] as const)
      expect(looksSwapped(lon, lat), `${lon},${lat}`).toBe(false);
  });
});

describe('SwappedPoints', () => {
  it('counts a row of several points once, as swapped when any of them looks so', () => {
    const points = new SwappedPoints();
    points.note(row(0), 13.4, 52.5);
    points.note(row(0), 52.5, 13.4, { lon: 'destinationLon', lat: 'destinationLat' });
    points.note(row(1), 53.5, 9.9);
    points.note(row(1), 48.1, 11.5);
    points.note(row(2), 9.9, 53.5);
    const count = points.count();
    expect([count.rows, count.swapped]).toEqual([3, 2]);
    expect(count.example?.row.ref.index).toBe(0);
    expect(count.example?.point).toEqual([52.5, 13.4]);
    expect(count.example?.keys).toEqual({ lon: 'destinationLon', lat: 'destinationLat' });
    expect(mostlySwapped(count)).toBe(true);
  });

  it('is mostly swapped above half of the rows only', () => {
    const points = new SwappedPoints();
    for (let i = 0; i < 4; i++) points.note(row(i), i < 2 ? 52.5 : 13.4, i < 2 ? 13.4 : 52.5);
    expect(mostlySwapped(points.count())).toBe(false);
    points.note(row(4), 53.5, 9.9);
    expect(mostlySwapped(points.count())).toBe(true);
  });

  it('calls early once, with the first EARLY_ROWS rows', () => {
    const seen: number[] = [];
    const points = new SwappedPoints((count) => seen.push(count.rows));
    for (let i = 0; i < EARLY_ROWS * 3; i++) points.note(row(i), 52.5, 13.4);
    expect(seen).toEqual([EARLY_ROWS]);
  });
});
