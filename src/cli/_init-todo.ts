/**
 * The mapping keys `geobatch init` could not fill, written so that the job file does not load
 * until they are set. A TODO that was only a comment stopped nothing: the point kinds
 * (reverse-geocode, elevation, boundaries, ...) fall back to columns named lon/lat, so the file
 * validated and every row failed as FIELD_MISSING at run time (exit 3).
 *
 * - A CSV input: the key reads a column named for the TODO (`lon: "TODO: longitude, one of a, b?"`).
 *   The header has no such column, so `validate` and `run` both stop (exit 2) with the header
 *   check's message, which names the key: `mapping.lon reads the column "TODO: longitude, one of
 *   a, b?", which the input's header does not have`.
 * - NDJSON and GeoJSON have no header to check (each record may have keys of its own): the key
 *   gets no column at all (`lon: { column: null }`), which the loader refuses in both commands:
 *   `mapping.lon.column: expected string, got null`.
 *
 * This module decides which keys; _job-yaml.ts writes them, with the value for the input's format.
 */
import type { Candidate, InputHead } from './_candidates.js';
import { pointsInGeometry, type Todo } from './_job-yaml.js';

/** The point a kind reads by default: matrix's origin (see _init-matrix.ts), else lon/lat. */
function pointFields(kind: Candidate['kind']): readonly [string, string] | undefined {
  if (kind.name === 'matrix') return ['originLon', 'originLat'];
  const fields = new Set(kind.mappingFields);
  return fields.has('lon') && fields.has('lat') ? ['lon', 'lat'] : undefined;
}

/**
 * The keys to write as TODO: the point, when neither of its columns is mapped and the rows have no
 * Point geometry, and either the values could not tell lon from lat or the drafted file loads but
 * most of its first rows fail as mapped (a file that does not load says why already).
 */
export function todosOf(candidate: Candidate, head: InputHead, loads: boolean): Todo[] {
  const point = pointFields(candidate.kind);
  if (point === undefined || point.some((field) => candidate.mapping.has(field))) return [];
  // The form drafted reads no point (address-search by an address): none is to be set.
  if (candidate.form !== undefined && !candidate.form.reads(point)) return [];
  if (pointsInGeometry(head)) return [];
  // Each key its own placeholder: one column named for both would be refused as a point whose
  // longitude and latitude are the same column, not by the header check that names the TODO.
  const axis = (field: string) => (field === point[0] ? 'longitude' : 'latitude');
  if (candidate.undecided.length > 0) {
    const choice = `one of ${candidate.undecided.join(', ')}?`;
    return point.map((field) => ({
      field,
      why: `${choice} (lon and lat not told apart)`,
      placeholder: `TODO: ${axis(field)}, ${choice}`,
    }));
  }
  if (!loads || candidate.problems.length === 0) return [];
  return point.map((field) => ({
    field,
    why: 'no column found, and the first rows fail without one',
    placeholder: `TODO: which ${axis(field)} column?`,
  }));
}
