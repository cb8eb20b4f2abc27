/**
 * Where a matrix job's destinations come from, checked before anything is sent: a destinations
 * file (cross mode) or destination columns (pairs mode). Without either, every origin was paired
 * with itself and written as 0 m, 0 s; an empty destinations file wrote rows with nothing in them.
 * Mapping keys of the other mode would be silently ignored, so they are refused too.
 */
import { ConfigError } from '../errors.js';
import type { Destination } from './_destinations.js';
import type { Mapping } from './_fields.js';
import type { FileIssue } from './_kind.js';

const PAIR_KEYS = ['originLon', 'originLat', 'destinationLon', 'destinationLat'] as const;
const CROSS_KEYS = ['lon', 'lat'] as const;

/** The job file's rule: destinations from a file or from two mapped columns, keys of one mode only. */
export function checkMatrixFile(
  mapping: Readonly<Record<string, unknown>>,
  crossMode: boolean,
): FileIssue | undefined {
  const mapped = new Set(
    Object.entries(mapping)
      .filter(([, source]) => source !== undefined)
      .map(([key]) => key),
  );
  if (crossMode) {
    const stray = PAIR_KEYS.find((key) => mapped.has(key));
    return stray === undefined
      ? undefined
      : {
          path: `mapping.${stray}`,
          expected: 'not used with options.destinations (cross mode reads the origin from `lon`/`lat`)',
          hint: 'map the origin as mapping.lon / mapping.lat, or drop options.destinations for one pair per row',
        };
  }
  const stray = CROSS_KEYS.find((key) => mapped.has(key));
  if (stray !== undefined) {
    return {
      path: `mapping.${stray}`,
      expected: 'used only with options.destinations; one pair per row reads originLon/originLat',
      hint: `rename it to mapping.${stray === 'lon' ? 'originLon' : 'originLat'}, or add options.destinations`,
    };
  }
  const missing = (['destinationLon', 'destinationLat'] as const).filter((key) => !mapped.has(key));
  if (missing.length === 2) {
    return {
      path: 'options.destinations',
      expected:
        'a matrix job needs destinations: options.destinations (a file of destinations) or mapping.destinationLon and mapping.destinationLat (one pair per row)',
      hint: 'add options.destinations: { path: stores.csv } (every origin row against a file of destinations), or map destinationLon and destinationLat (one pair per row)',
    };
  }
  const [one] = missing;
  return one === undefined
    ? undefined
    : {
        path: `mapping.${one}`,
        expected: `expected a column for ${one} (one pair per row needs both destination coordinates)`,
        hint: `map ${one} to the column that holds it`,
      };
}

/** The same rule for a job built in code, plus: a destinations list must hold a destination. */
export function checkMatrixOptions(
  mapping: Mapping,
  destinations: readonly Destination[] | undefined,
  destinationsFile: string | undefined,
): void {
  if (destinations !== undefined && destinations.length === 0) {
    const where = destinationsFile ?? 'options.destinations';
    throw new ConfigError(`${where}: holds no destination; a matrix needs at least one`, {
      file: destinationsFile,
      path: 'options.destinations',
      expected: 'at least one destination row with coordinates',
      hint: 'check the path, and that the file has a header and at least one data row',
    });
  }
  const issue = checkMatrixFile(mapping, destinations !== undefined);
  if (issue !== undefined) throw new ConfigError(`${issue.path}: ${issue.expected}`, { ...issue });
}
