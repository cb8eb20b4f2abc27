/**
 * "Did you mean": the known word nearest to a misspelt one. `inputt:` said "input: Invalid input,
 * got nothing" and "unknown key `inputt`", and a misspelt kind listed all fourteen kinds in zod's
 * words, without pointing at the one meant. Shared by the job file's checks and the client's
 * options, so both suggest alike.
 */

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, case ignored. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i++)
    for (let j = 1; j <= t.length; j++) {
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (d[s.length] as number[])[t.length] as number;
}

/** The nearest candidate within a few edits (fewer for short words), else undefined. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = word.length <= 4 ? 1 : word.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const d = distance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
