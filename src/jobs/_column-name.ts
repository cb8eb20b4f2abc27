/**
 * How messages show a column's name. A row's message names its columns (`plz: empty`); a name
 * with a space or another sign in it reads as part of the sentence there (`Post Code: empty`),
 * so it is quoted, as a job file's checks quote every column (src/run/mapped-columns.ts).
 */

/** Characters that look like nothing or like a space in a message: shown as their escapes. */
const UNSEEN = /[\u00a0\u00ad\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/gu;

/**
 * A column name quoted for a message so that what differs can be seen: a no-break space, a byte
 * order mark or a decomposed accent is written as its \u escape (`"\u00a0lon"`, `"La\u0308nge"`).
 */
export function shownColumn(name: string): string {
  const escapeOf = (c: string) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`;
  const text = JSON.stringify(name).replace(UNSEEN, escapeOf);
  // Combining marks only when the name is not composed: in composed text they are letters' own.
  return name === name.normalize('NFC') ? text : text.replace(/\p{M}/gu, escapeOf);
}

/** A name a message may show as it is: letters, digits and underscores, not starting with a digit. */
const PLAIN = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/**
 * A column's name as a row's message shows it: as it is when it is a plain identifier (`plz`,
 * `geo_lon`, `Straße`), else quoted as shownColumn quotes it (`"Post Code"`, `"\u00a0lon"`). The
 * one way row messages name a column.
 */
export function columnName(name: string): string {
  return PLAIN.test(name) ? name : shownColumn(name);
}
