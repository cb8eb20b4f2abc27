/**
 * Paths in the commands geobatch suggests (`geobatch init`'s notes and job-file header, a run's
 * "try it on the emulator" hint), quoted so that they can be pasted into a POSIX shell as they
 * stand: an input named `#1 Kunden: 2024.csv` would otherwise be cut at the space and, after `#`,
 * read as a comment.
 */

/**
 * What a shell reads as one plain word: letters and digits (any script: `Straße.csv`), and the
 * punctuation that means nothing to sh, bash or zsh (the set Python's shlex.quote leaves alone).
 */
const PLAIN = /^[\p{L}\p{N}_@%+=:,./-]+$/u;

/** A word as it must be typed: unchanged when plain, else in single quotes (`'` as `'\''`). */
export function shellWord(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
