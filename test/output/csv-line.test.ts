import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { toCell } from '../../src/output/_cells.js';
import { csvCell, csvField, csvLine } from '../../src/output/_csv-line.js';

/** What the CSV writer wrote before it built lines itself: csv-stringify with its options. */
function reference(cells: string[], delimiter: string): string {
  return stringify([cells], { delimiter, eof: true });
}

describe('csvLine', () => {
  const tricky = [
    '',
    'plain',
    'a,b',
    'a;b',
    'a\tb',
    'a|b',
    'say "hi"',
    '"',
    '""',
    'line\nbreak',
    'carriage\rreturn',
    'crlf\r\n',
    ' lead and trail ',
    "'=SUM(A1)",
    'München ßü€',
    '😀,"\n',
    '-12.5',
  ];

  for (const delimiter of [',', ';', '\t', '|']) {
    it(`writes the bytes csv-stringify writes, delimiter ${JSON.stringify(delimiter)}`, () => {
      for (const a of tricky)
        for (const b of tricky) expect(csvLine([a, b, a], delimiter)).toBe(reference([a, b, a], delimiter));
    });
  }

  it('writes the same as csv-stringify on random text of quotes, separators and line breaks', () => {
    const alphabet = ['a', ',', ';', '"', '\n', '\r', ' ', '\t', '|', 'é'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let n = 0; n < 2000; n++) {
      const cells = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
        Array.from(
          { length: Math.floor(next() * 6) },
          () => alphabet[Math.floor(next() * alphabet.length)],
        ).join(''),
      );
      const delimiter = [',', ';', '\t', '|'][n % 4] as string;
      expect(csvLine(cells, delimiter)).toBe(reference(cells, delimiter));
    }
  });
});

describe('csvField', () => {
  const values = [
    null,
    undefined,
    '',
    'plain',
    'a,b',
    'a;b',
    'a||b',
    'say "hi"',
    'line\nbreak',
    'cr\r',
    '=SUM(A1)',
    '@cmd',
    '\tTAB',
    '\rCR',
    '+49 30 1234567',
    '-12.5',
    '-2+cmd("x")',
    '+HYPERLINK("http://x","y")',
    '-A1!B2,"',
    'München ßü€',
    0,
    -12.5,
    1e21,
    true,
    false,
  ];

  it('writes what csvCell(toCell()) writes: quoting and the formula guard read in one pass', () => {
    for (const delimiter of [',', ';', '\t', '|', '||'])
      for (const guard of [true, false])
        for (const value of values)
          expect(csvField(value, guard, delimiter), `${JSON.stringify(value)} ${delimiter} ${guard}`).toBe(
            csvCell(toCell(value, guard), delimiter),
          );
  });
});
