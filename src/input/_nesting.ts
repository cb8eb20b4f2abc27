/**
 * How deep a record's arrays and objects may nest. JSON.parse reads any depth, but every walk of a
 * value after it (the exact-number check, the byte estimate, a JSON output's stringify) recurses,
 * and a line nested 5,000 deep (10 KB) stopped the run with INTERNAL "Maximum call stack size
 * exceeded", again on every --resume. A record nested deeper fails alone, as INPUT_MALFORMED.
 * GeoJSON's deepest geometry, a MultiPolygon, nests 4 arrays in 3 objects.
 */
export const MAX_NESTING = 100;

/** The message of a record nested deeper than MAX_NESTING. */
export const TOO_DEEP = `nested more than ${MAX_NESTING} levels deep (arrays and objects within each other)`;

/** Whether JSON text nests arrays and objects deeper than MAX_NESTING; strings are skipped. */
export function nestsTooDeep(text: string): boolean {
  // Each level takes two characters: shorter text cannot be too deep, and most lines are.
  if (text.length <= 2 * MAX_NESTING) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_NESTING) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
