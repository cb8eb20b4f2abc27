import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ErrorCode, EXIT_BY_CODE, isFatalCode, isUsageCode } from '../../src/errors.js';
import { adviceFor, ERROR_ADVICE } from '../../src/report/advice.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The rows of the README's "Error codes: what to do" table: code -> [effect, advice]. */
function readmeTable(): Map<string, [string, string]> {
  const section = README.split('### Error codes: what to do')[1]?.split(/\n#{2,3} /)[0] ?? '';
  const rows = new Map<string, [string, string]>();
  for (const [, code, effect, advice] of section.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \| (.+) \|$/gm))
    rows.set(code as string, [(effect as string).trim(), (advice as string).trim()]);
  return rows;
}

describe('error advice', () => {
  it('the README lists every code with the advice the report shows, word for word', () => {
    const table = readmeTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(ERROR_ADVICE).sort());
    for (const [code, advice] of Object.entries(ERROR_ADVICE))
      expect(table.get(code)?.[1], code).toBe(advice);
  });

  it("the README's effect column agrees with the codes' classes", () => {
    for (const [code, [effect]] of readmeTable()) {
      const c = code as ErrorCode;
      const expected = isFatalCode(c)
        ? 'stops the run'
        : isUsageCode(c)
          ? 'usage (nothing sent)'
          : Object.hasOwn(EXIT_BY_CODE, c)
            ? `ends the run (exit ${EXIT_BY_CODE[c as keyof typeof EXIT_BY_CODE]})`
            : 'fails the row';
      expect(effect, code).toBe(expected);
    }
  });

  it('gives a code it does not know (from a newer version) a generic line', () => {
    expect(adviceFor('SOMETHING_NEW')).toBe('See the message and the error report.');
    expect(adviceFor('toString')).toBe('See the message and the error report.');
    expect(adviceFor('NO_MATCH')).toBe(ERROR_ADVICE.NO_MATCH);
  });
});
