import type { Geometry } from 'geojson';
import type { Fields, Row } from '../../src/types.js';

let next = 0;

/** A row as a reader would give it. */
export function row(fields: Fields, geometry?: Geometry | null): Row {
  const index = next++;
  return {
    kind: 'row',
    ref: { index, line: index + 2 },
    fields,
    ...(geometry === undefined ? {} : { geometry }),
  };
}

export const signal = new AbortController().signal;
