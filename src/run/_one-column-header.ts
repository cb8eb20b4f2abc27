/**
 * A CSV header read as one column that holds another delimiter (`id,lon,lat` read with `;`): the
 * delimiter is what is wrong, not the mapping, and the hint says so.
 */
import { shownColumn } from '../jobs/_fields.js';

/** The hint for a header of one column holding another delimiter; undefined for any other header. */
export function oneColumnHeader(header: readonly string[]): string | undefined {
  const [only] = header;
  if (header.length !== 1 || only === undefined) return undefined;
  const other = [',', ';', '\t', '|'].find((d) => only.includes(d));
  return other === undefined
    ? undefined
    : `the header reads as one column, ${shownColumn(only)}, which holds ${JSON.stringify(other)}: set input.delimiter to it (or to auto)`;
}
