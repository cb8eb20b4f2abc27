/**
 * A matrix job drafted from lon/lat columns. Matrix reads `lon`/`lat` only in cross mode, against
 * a file of destinations (`options.destinations`) that init has no way to guess; without one the
 * loader refuses them ("used only with options.destinations"), and renaming them as that message
 * says only led to the next refusal. So init drafts them as the origin of one pair per row
 * (originLon/originLat): with destination columns the file runs, and without them the loader's
 * own message for the missing destinations becomes the file's TODO, naming both ways to give them.
 */
import type { Candidate, InputHead } from './_candidates.js';
import type { ColumnGuess } from './_columns.js';
import { loadProblem } from './_init-load.js';
import { noteLine } from './_init-todo.js';

const AS_ORIGIN: Readonly<Record<string, string>> = { lon: 'originLon', lat: 'originLat' };

/** The candidate with its lon/lat as the origin, and its problems as the loader now sees them. */
export function asPairs(candidate: Candidate, head: InputHead, jobPath: string): Candidate {
  const { kind, mapping } = candidate;
  if (kind.name !== 'matrix' || (!mapping.has('lon') && !mapping.has('lat'))) return candidate;
  const moved = new Map<string, ColumnGuess>();
  for (const [field, guess] of mapping) {
    const origin = AS_ORIGIN[field];
    if (origin === undefined) moved.set(field, guess);
    // An origin mapped by its own name (from_lon) keeps it; lon is then left out, not refused.
    else if (!mapping.has(origin)) moved.set(origin, { ...guess, reason: `${guess.reason}, as the origin` });
  }
  const ordered = new Map(kind.mappingFields.flatMap((f) => (moved.has(f) ? [[f, moved.get(f)]] : [])));
  const pairs = ordered as Map<string, ColumnGuess>;
  const problem = loadProblem({
    kind,
    head,
    jobPath,
    mapping: pairs,
    undecided: [],
    options: candidate.options,
    problems: [],
    alternatives: [],
  });
  return { ...candidate, mapping: pairs, problems: problem === undefined ? [] : [problem] };
}

/** The matrix lines that say how to give destinations instead, beside the fields that lack them. */
export function matrixNotes(candidate: Candidate): Map<string, string> {
  const notes = new Map<string, string>();
  if (candidate.kind.name !== 'matrix') return notes;
  for (const [cross, origin] of Object.entries(AS_ORIGIN))
    notes.set(cross, noteLine(cross, `with options.destinations: the origin, instead of ${origin}`));
  for (const field of ['destinationLon', 'destinationLat']) {
    if (!candidate.mapping.has(field))
      notes.set(field, noteLine(field, 'TODO: no column found; or give options.destinations'));
  }
  return notes;
}
