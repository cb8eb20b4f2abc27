/**
 * The mapping keys `geobatch init` could not fill, written so that the job file does not load
 * until they are set. A TODO that was only a comment stopped nothing: the point kinds
 * (reverse-geocode, elevation, boundaries, ...) fall back to columns named lon/lat, so the file
 * validated and every row failed as FIELD_MISSING at run time (exit 3).
 *
 * - A CSV input: the key reads a column named for the TODO (`lon: "TODO: one of a, b?"`). The
 *   header has no such column, so `validate` and `run` both stop (exit 2) with the header check's
 *   message, which names the key: `mapping.lon reads the column "TODO: one of a, b?", which the
 *   input's header does not have`.
 * - NDJSON and GeoJSON have no header to check (each record may have keys of its own): the key
 *   gets no column at all (`lon: { column: null }`), which the loader refuses in both commands:
 *   `mapping.lon.column: expected string, got null`.
 */
import { stringify } from 'yaml';
import type { Candidate, InputHead } from './_candidates.js';
import { pointsInGeometry } from './_job-yaml.js';

export interface Todo {
  /** The mapping key left to set. */
  readonly field: string;
  /** What is known of it: the comment beside the key, and init's TODO line on standard error. */
  readonly why: string;
  /** The column a CSV draft's key reads: a name no header has, which says what to do. */
  readonly placeholder: string;
}

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
  if (pointsInGeometry(head)) return [];
  if (candidate.undecided.length > 0) {
    const choice = `one of ${candidate.undecided.join(', ')}?`;
    return point.map((field) => ({
      field,
      why: `${choice} (lon and lat not told apart)`,
      placeholder: `TODO: ${choice}`,
    }));
  }
  if (!loads || candidate.problems.length === 0) return [];
  return point.map((field) => ({
    field,
    why: 'no column found, and the first rows fail without one',
    placeholder: 'TODO: which column?',
  }));
}

/** Where comments start in init's job file (COMMENT_AT in _job-yaml.ts), so that they line up. */
const COMMENT_AT = 30;

function commented(text: string, comment: string): string {
  return `${text.padEnd(Math.max(COMMENT_AT, text.length + 2))}# ${comment}`;
}

/** The value a TODO key is written with (see the module comment). */
function todoValue(todo: Todo, format: InputHead['format']): string {
  return format === 'csv' ? stringify(todo.placeholder).trimEnd() : '{ column: null }';
}

/**
 * The drafted file with a mapping line replaced: `lines` maps a field to its new line. The field's
 * line is the one _job-yaml.ts writes for a field it has no column for (`  # lon:   # ...`); the
 * section is uncommented (`mapping:`) when a key in it now has a value.
 */
export function replaceMappingLines(text: string, lines: ReadonlyMap<string, string>): string {
  if (lines.size === 0) return text;
  const out = text.split('\n');
  const start = out.findIndex((line) => line === 'mapping:' || line === '# mapping:');
  if (start < 0) return text;
  for (let i = start + 1; i < out.length && (out[i] as string).startsWith('  '); i++) {
    const field = /^ {2}# ([A-Za-z]+):/.exec(out[i] as string)?.[1];
    const line = field === undefined ? undefined : lines.get(field);
    if (line === undefined) continue;
    out[i] = line;
    if (!line.startsWith('  #')) out[start] = 'mapping:';
  }
  return out.join('\n');
}

/** The TODO keys as lines of the mapping. */
export function todoLines(todos: readonly Todo[], format: InputHead['format']): Map<string, string> {
  return new Map(
    todos.map((todo) => [
      todo.field,
      commented(`  ${todo.field}: ${todoValue(todo, format)}`, `TODO: ${todo.why}`),
    ]),
  );
}

/** A field left commented, with a word on why (a column init saw and did not take). */
export function noteLine(field: string, note: string): string {
  return commented(`  # ${field}:`, note);
}
