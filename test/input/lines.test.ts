import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { type Line, type LineOptions, LineSplitter } from '../../src/input/_lines.js';

const options: LineOptions = { encoding: 'utf-8', bom: 0, maxLineBytes: 64, crLines: false };

function split(chunks: (string | Buffer)[], extra: Partial<LineOptions> = {}): Line[] {
  const splitter = new LineSplitter({ ...options, ...extra });
  const lines = chunks.flatMap((chunk) =>
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
  );
  return [...lines, ...splitter.end()];
}

describe('LineSplitter', () => {
  it('numbers lines and keeps each line break as it was, across chunk boundaries', () => {
    expect(split(['a\r', '\nb', 'c\n\nd'])).toEqual([
      { kind: 'text', line: 1, text: 'a', eol: '\r\n' },
      { kind: 'text', line: 2, text: 'bc', eol: '\n' },
      { kind: 'text', line: 3, text: '', eol: '\n' },
      { kind: 'text', line: 4, text: 'd', eol: '' },
    ]);
  });

  it('cuts a line longer than the limit, in one chunk or spread over many, keeping its start and size', () => {
    const long = 'y'.repeat(100);
    const spread = [long.slice(0, 30), long.slice(30, 70), `${long.slice(70)}\r\nnext\n`];
    for (const chunks of [[`${long}\r\nnext\n`], spread]) {
      const lines = split(chunks);
      expect(lines[0]).toMatchObject({ kind: 'cut', line: 1, bytes: 100 });
      expect(lines[0]?.kind === 'cut' && long.startsWith(lines[0].head)).toBe(true);
      expect(lines[1]).toEqual({ kind: 'text', line: 2, text: 'next', eol: '\n' });
    }
  });

  it('cuts a long last line without a line break too', () => {
    expect(split(['ok\n', 'z'.repeat(50), 'z'.repeat(50)])).toEqual([
      { kind: 'text', line: 1, text: 'ok', eol: '\n' },
      { kind: 'cut', line: 2, head: 'z'.repeat(100), bytes: 100, whole: true },
    ]);
  });

  it('splits on a lone CR only when it is the first line break and CR lines are allowed', () => {
    expect(split(['a\rb\nc\r'], { crLines: true }).map((l) => l.kind === 'text' && l.text)).toEqual([
      'a',
      'b\nc',
    ]);
    expect(split(['a\rb\nc\r'], { crLines: false }).map((l) => l.kind === 'text' && l.text)).toEqual([
      'a\rb',
      'c\r',
    ]);
  });

  it('names the line and column of a bad byte in a line carried over from an earlier chunk', () => {
    let error: unknown;
    try {
      split(['ok\nab', Buffer.from([0x63, 0xe9, 0x0a])]);
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.context.detail).toEqual({ line: 2, column: 4, byte: '0xE9' });
  });
});
