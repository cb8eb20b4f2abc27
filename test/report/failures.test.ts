import { afterEach, describe, expect, it } from 'vitest';
import { createFailureExamples } from '../../src/report/failures.js';
import { clearSecrets, registerSecret } from '../../src/secrets.js';
import { issueOf } from './_sample.js';

afterEach(() => clearSecrets());

const record = (row: number, code: 'NO_MATCH' | 'TIMEOUT', message = 'no match') =>
  issueOf({
    row,
    line: row + 1,
    stage: 'response',
    code,
    status: null,
    message,
    fields: { id: String(row) },
  });

describe('createFailureExamples', () => {
  it('keeps the first rows of each code, as the error report numbers them', () => {
    const examples = createFailureExamples({ perCode: 2 });
    for (let row = 1; row <= 10; row++) examples.add(record(row, row % 2 ? 'NO_MATCH' : 'TIMEOUT'));
    expect(examples.examples().map((e) => [e.code, e.row, e.line, e.fields.id])).toEqual([
      ['NO_MATCH', 1, 2, '1'],
      ['NO_MATCH', 3, 4, '3'],
      ['TIMEOUT', 2, 3, '2'],
      ['TIMEOUT', 4, 5, '4'],
    ]);
  });

  it('scrubs secrets from messages and cuts long values and wide rows', () => {
    registerSecret('SECRET-KEY-42');
    const examples = createFailureExamples({ fields: 2, maxLength: 30 });
    examples.add(record(1, 'TIMEOUT', 'GET https://x.test/?apiKey=SECRET-KEY-42 timed out'), {
      a: 'x'.repeat(50),
      b: null,
      c: 'not shown',
    });
    const [example] = examples.examples();
    expect(example?.message).toBe('GET https://x.test/?apiKey=[redacted] timed out');
    expect(example?.fields).toEqual({ a: `${'x'.repeat(29)}…`, b: '' });
  });

  it('keeps the step a row failed at, in a run of several steps', () => {
    const examples = createFailureExamples();
    examples.add({ ...record(1, 'NO_MATCH'), step: 'geocode' });
    examples.add(record(2, 'TIMEOUT'));
    expect(examples.examples().map((e) => [e.row, e.step])).toEqual([
      [1, 'geocode'],
      [2, undefined],
    ]);
  });

  it('keeps a column named __proto__ as a column', () => {
    const examples = createFailureExamples();
    examples.add(record(1, 'NO_MATCH'), JSON.parse('{"__proto__":"p","x":"1"}'));
    const fields = examples.examples()[0]?.fields ?? {};
    expect(Object.keys(fields)).toEqual(['__proto__', 'x']);
    expect(JSON.stringify(fields)).toBe('{"__proto__":"p","x":"1"}');
  });
});
