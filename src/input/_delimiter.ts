/** Picks the CSV field delimiter from the header line, or from Excel's `sep=` line before it. */

export type CsvDelimiter = ',' | ';' | '\t' | '|';

const CANDIDATES: readonly CsvDelimiter[] = [',', ';', '\t', '|'];
const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Excel's separator line: a first line `sep=;` (any one character) that Excel writes, and reads,
 * before the header of a CSV meant for a locale whose list separator differs. Also after empty
 * lines (or lines of spaces), which the reader skips above the header anyway, and quoted (`"sep=;"`), as writers that
 * quote a field holding the delimiter put it. Its character, the bytes up to the header (its line
 * end included) and its line number; undefined when the file has none.
 */
export function separatorLine(head: Buffer): { delimiter: string; bytes: number; line: number } | undefined {
  const text = head.subarray(0, 256).toString('latin1');
  const found = /^((?:[ \t]*(?:\r\n|\n|\r))*)(?:"sep=([^\r\n])"|sep=([^\r\n]))(\r\n|\n|\r|$)/i.exec(text);
  if (found === null) return undefined;
  const empty = found[1] as string;
  const line = 1 + (empty.match(/\r\n|\n|\r/g)?.length ?? 0);
  return { delimiter: (found[2] ?? found[3]) as string, bytes: found[0].length, line };
}

/**
 * The candidate that occurs most often outside quotes in the header line of `head` (headerLine); a
 * comma when none occurs (a one-column file) or on a tie, because a comma is what a CSV reader
 * expects.
 */
export function detectDelimiter(head: Buffer): CsvDelimiter {
  const counts = new Map<number, number>(CANDIDATES.map((c) => [c.charCodeAt(0), 0]));
  const { start, end } = headerLine(head);
  let quoted = false;
  for (const byte of head.subarray(start, end === -1 ? head.length : end)) {
    if (byte === QUOTE) quoted = !quoted;
    else if (!quoted && counts.has(byte)) counts.set(byte, (counts.get(byte) ?? 0) + 1);
  }
  let best: CsvDelimiter = ',';
  let bestCount = 0;
  for (const candidate of CANDIDATES) {
    const count = counts.get(candidate.charCodeAt(0)) ?? 0;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;

/**
 * The line of `head` the reader takes for the header: the first that holds data. Lines before it
 * that hold none (empty, white space, delimiters and empty quotes: Excel's `;;;;` above a table)
 * are skipped by the reader as blank lines (_csv-records.ts), so the delimiter is not read from
 * them. `end` is the offset after its line break, -1 when the line is not whole in `head` (a CR
 * last may be the first half of a CRLF); a head of blank lines alone gives its first line, with
 * `data` false.
 */
export function headerLine(head: Buffer): { start: number; end: number; data: boolean } {
  let first: { start: number; end: number; data: boolean } | undefined;
  let start = 0;
  for (;;) {
    let quoted = false;
    let data = false;
    let end = -1;
    for (let i = start; i < head.length; i++) {
      const byte = head[i] as number;
      if (byte === QUOTE) quoted = !quoted;
      else if (quoted) data = true;
      else if (byte === NEWLINE) {
        end = i + 1;
        break;
      } else if (byte === CR) {
        end = i + 1 >= head.length ? -1 : head[i + 1] === NEWLINE ? i + 2 : i + 1;
        break;
      } else if (byte !== SPACE && byte !== TAB && !CANDIDATE_BYTES.has(byte)) data = true;
    }
    first ??= { start, end, data };
    if (data || end === -1) return data ? { start, end, data } : first;
    start = end;
  }
}

const CANDIDATE_BYTES = new Set(CANDIDATES.map((c) => c.charCodeAt(0)));
