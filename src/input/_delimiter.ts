/** Picks the CSV field delimiter from the header line, or from Excel's `sep=` line before it. */

export type CsvDelimiter = ',' | ';' | '\t' | '|';

const CANDIDATES: readonly CsvDelimiter[] = [',', ';', '\t', '|'];
const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Excel's separator line: a first line `sep=;` (any one character) that Excel writes, and reads,
 * before the header of a CSV meant for a locale whose list separator differs. Its character and
 * the bytes it takes (line end included); undefined when the file has none.
 */
export function separatorLine(head: Buffer): { delimiter: string; bytes: number } | undefined {
  const found = /^sep=([^\r\n])(\r\n|\n|\r|$)/i.exec(head.subarray(0, 16).toString('latin1'));
  if (found === null) return undefined;
  return { delimiter: found[1] as string, bytes: found[0].length };
}

/**
 * The candidate that occurs most often outside quotes in the first line of `head`; a comma when
 * none occurs (a one-column file) or on a tie, because a comma is what a CSV reader expects.
 */
export function detectDelimiter(head: Buffer): CsvDelimiter {
  const counts = new Map<number, number>(CANDIDATES.map((c) => [c.charCodeAt(0), 0]));
  let quoted = false;
  for (const byte of head) {
    if (byte === QUOTE) quoted = !quoted;
    else if (!quoted && byte === NEWLINE) break;
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
