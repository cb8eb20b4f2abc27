/**
 * A matrix job drafted from lon/lat columns. Matrix reads `lon`/`lat` only in cross mode, against
 * a file of destinations (`options.destinations`) that init has no way to guess; without one the
 * loader refuses them ("used only with options.destinations"), and renaming them as that message
 * says only led to the next refusal. So init guesses them as the origin of one pair per row
 * (originLon/originLat): with destination columns the file runs, and without them the loader's
 * own message for the missing destinations becomes the file's TODO, naming both ways to give them.
 *
 * Such a draft is written when matrix is asked for (`--kind matrix`), and not offered among the
 * guesses: a file of points is guessed as a point kind (reverse-geocode, elevation, ...), as it
 * was while matrix refused lon/lat.
 */
import type { ColumnGuess } from './_columns.js';

const AS_ORIGIN: Readonly<Record<string, string>> = { lon: 'originLon', lat: 'originLat' };

/**
 * Matrix's guess with its lon/lat columns as the origin; `moved` when it had any, by name or by
 * value. An origin guessed by its own name (from_lon) keeps it, and lon/lat are then left out.
 */
export function asOrigin(mapping: ReadonlyMap<string, ColumnGuess>): {
  mapping: Map<string, ColumnGuess>;
  moved: boolean;
} {
  const pairs = new Map<string, ColumnGuess>();
  for (const [field, guess] of mapping) {
    const origin = AS_ORIGIN[field];
    if (origin === undefined) pairs.set(field, guess);
    else if (!mapping.has(origin)) pairs.set(origin, { ...guess, reason: `${guess.reason}, as the origin` });
  }
  return { mapping: pairs, moved: mapping.has('lon') || mapping.has('lat') };
}

/** The words beside matrix's unmapped fields: how to give destinations instead. */
export function matrixNotes(mapping: ReadonlyMap<string, ColumnGuess>): Map<string, string> {
  const notes = new Map<string, string>();
  for (const [cross, origin] of Object.entries(AS_ORIGIN))
    notes.set(cross, `with options.destinations: the origin, instead of ${origin}`);
  for (const field of ['destinationLon', 'destinationLat']) {
    if (!mapping.has(field)) notes.set(field, 'TODO: no column found; or give options.destinations');
  }
  return notes;
}
