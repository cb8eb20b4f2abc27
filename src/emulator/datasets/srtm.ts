/** The one SRTM3 tile shipped with the data (50-51°N, 10-11°E, Thuringian Forest). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SIZE = 1201;
const NO_DATA = -32768;
const TILE = { south: 50, north: 51, west: 10, east: 11 } as const;

export interface SrtmTile {
  /** Elevation in metres of the nearest cell, or null outside the tile or on a no-data cell. */
  elevation(lon: number, lat: number): number | null;
}

export function loadSrtm(dir: string): SrtmTile {
  const buffer = readFileSync(join(dir, 'N50E010.hgt'));
  if (buffer.length !== SIZE * SIZE * 2) throw new Error(`N50E010.hgt has ${buffer.length} bytes`);
  return {
    elevation(lon, lat) {
      if (lat < TILE.south || lat > TILE.north || lon < TILE.west || lon > TILE.east) return null;
      // ATTRIBUTION.md: nearest cell, row 0 at the north edge, west to east.
      const row = Math.round((TILE.north - lat) * (SIZE - 1));
      const col = Math.round((lon - TILE.west) * (SIZE - 1));
      const value = buffer.readInt16BE((row * SIZE + col) * 2);
      return value === NO_DATA ? null : value;
    },
  };
}
