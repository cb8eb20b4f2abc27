/**
 * Coordinate formats (service-notes.md). GEODECIMAL_POINT is the vendor-documented one; the others
 * are the legacy PTV formats with the check values the notes give (see the tests).
 */
import type { CoordFormat } from '../../contract/index.js';

const RAD = Math.PI / 180;
const MERCATOR_R = 6371000;

// SUPERKONFORM: Lambert conformal conic on a sphere, then a fixed shift.
const SK_R = 6365000;
const SK_PHI1 = 45 * RAD;
const SK_PHI2 = 55 * RAD;
const SK_PHI0 = 30 * RAD;
const SK_LAMBDA0 = 10 * RAD;
const SK_EAST = 1800000 + 3400000;
const SK_NORTH = -500000 + 1700000;
const tanHalf = (phi: number): number => Math.tan(Math.PI / 4 + phi / 2);
const SK_N = Math.log(Math.cos(SK_PHI1) / Math.cos(SK_PHI2)) / Math.log(tanHalf(SK_PHI2) / tanHalf(SK_PHI1));
const SK_F = (Math.cos(SK_PHI1) * tanHalf(SK_PHI1) ** SK_N) / SK_N;
const SK_RHO0 = (SK_R * SK_F) / tanHalf(SK_PHI0) ** SK_N;

/** [lon, lat] in WGS84 degrees to [x, y] in `format`. */
export function toFormat(format: CoordFormat, lon: number, lat: number): [number, number] {
  switch (format) {
    case 'GEODECIMAL_POINT':
      return [round(lon, 6), round(lat, 6)];
    case 'GEODECIMAL':
      return [Math.round(lon * 100000), Math.round(lat * 100000)];
    case 'MERCATOR':
      return [
        round(MERCATOR_R * lon * RAD, 2),
        round(MERCATOR_R * Math.log(Math.tan(Math.PI / 4 + (lat * RAD) / 2)), 2),
      ];
    case 'SUPERKONFORM': {
      const rho = (SK_R * SK_F) / tanHalf(lat * RAD) ** SK_N;
      const theta = SK_N * (lon * RAD - SK_LAMBDA0);
      return [
        round(rho * Math.sin(theta) + SK_EAST, 2),
        round(SK_RHO0 - rho * Math.cos(theta) + SK_NORTH, 2),
      ];
    }
  }
}

/** [x, y] in `format` back to [lon, lat] in WGS84 degrees. */
export function fromFormat(format: CoordFormat, x: number, y: number): [number, number] {
  switch (format) {
    case 'GEODECIMAL_POINT':
      return [x, y];
    case 'GEODECIMAL':
      return [x / 100000, y / 100000];
    case 'MERCATOR':
      return [x / MERCATOR_R / RAD, (2 * Math.atan(Math.exp(y / MERCATOR_R)) - Math.PI / 2) / RAD];
    case 'SUPERKONFORM': {
      const dx = x - SK_EAST;
      const dy = SK_RHO0 - (y - SK_NORTH);
      const rho = Math.sign(SK_N) * Math.hypot(dx, dy);
      const theta = Math.atan2(dx, dy);
      const phi = 2 * Math.atan(((SK_R * SK_F) / rho) ** (1 / SK_N)) - Math.PI / 2;
      return [(theta / SK_N + SK_LAMBDA0) / RAD, phi / RAD];
    }
  }
}

export function isCoordFormat(value: unknown): value is CoordFormat {
  return (
    value === 'GEODECIMAL_POINT' || value === 'GEODECIMAL' || value === 'MERCATOR' || value === 'SUPERKONFORM'
  );
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
