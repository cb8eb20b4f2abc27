import { describe, expect, it } from 'vitest';
import { COORD_FORMATS } from '../../../src/contract/index.js';
import { fromFormat, toFormat } from '../../../src/emulator/lib/_coords.js';

describe('coordinate formats', () => {
  it.each([
    ['Karlsruhe', [8.4278, 49.01334], [5085871.0, 3348184.5]],
    ['Berlin', [13.4058, 52.5191], [5429479.1, 3740276.4]],
    ['Munich', [11.5768, 48.1368], [5316511.1, 3251174.8]],
  ])('projects %s to the SUPERKONFORM check values', (_, [lon, lat], [x, y]) => {
    const [px, py] = toFormat('SUPERKONFORM', lon as number, lat as number);
    expect(Math.abs(px - (x as number))).toBeLessThan(0.5);
    expect(Math.abs(py - (y as number))).toBeLessThan(0.5);
  });

  it('writes GEODECIMAL as degrees x 100000 and MERCATOR on the 6371000 m sphere', () => {
    expect(toFormat('GEODECIMAL', 8.4278, 49.01334)).toEqual([842780, 4901334]);
    const [x, y] = toFormat('MERCATOR', 8.4278, 49.01334);
    expect(x).toBeCloseTo((6371000 * 8.4278 * Math.PI) / 180, 1);
    expect(y).toBeCloseTo(6371000 * Math.log(Math.tan(Math.PI / 4 + (49.01334 * Math.PI) / 360)), 1);
  });

  it.each(COORD_FORMATS)('reads %s back to the same point', (format) => {
    const [x, y] = toFormat(format, 10.7442, 50.6583);
    const [lon, lat] = fromFormat(format, x, y);
    expect(lon).toBeCloseTo(10.7442, 4);
    expect(lat).toBeCloseTo(50.6583, 4);
  });
});
