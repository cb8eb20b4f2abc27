import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../../src/emulator/lib/_csv.js';

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF and empty fields', () => {
    const text = '\uFEFFa,b,c\r\n1,"x, ""y""",\r\n"multi\nline",2,3\n\n';
    expect(parseCsv(text)).toEqual([
      { a: '1', b: 'x, "y"', c: '' },
      { a: 'multi\nline', b: '2', c: '3' },
    ]);
  });

  it('fills missing trailing fields with empty strings', () => {
    expect(parseCsv('a,b\n1')).toEqual([{ a: '1', b: '' }]);
  });
});
