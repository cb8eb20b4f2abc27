/** A stream that says it is a terminal and keeps what is written to it, for the display tests. */
import { EventEmitter } from 'node:events';

export interface FakeTty {
  readonly stream: NodeJS.WriteStream;
  /** Every write, in order. */
  readonly writes: string[];
  /** Everything written, as one text. */
  text(): string;
  /** What a terminal would show: lines after carriage returns and erases are applied. */
  screen(): string[];
  resize(columns: number): void;
}

export function fakeTty(columns = 80): FakeTty {
  const writes: string[] = [];
  const emitter = new EventEmitter();
  const stream = Object.assign(emitter, {
    isTTY: true,
    columns,
    write(chunk: string | Buffer) {
      writes.push(String(chunk));
      return true;
    },
  });
  return {
    stream: stream as unknown as NodeJS.WriteStream,
    writes,
    text: () => writes.join(''),
    screen: () => render(writes.join('')),
    resize(next) {
      stream.columns = next;
      emitter.emit('resize');
    },
  };
}

/**
 * A tiny terminal: CR, LF, erase line (CSI 2K), erase to end (CSI K); cursor visibility and
 * colours are dropped. Enough to see whether a line was overwritten or left garbled.
 */
const ESC = '\x1b';
/** An escape sequence, CR, LF, or one visible character (the pattern spelt out: biome bans ESC in literals). */
const TOKENS = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]|\r|\n|[^${ESC}\r\n]`, 'gu');

export function render(text: string): string[] {
  const lines: string[] = [''];
  let column = 0;
  const tokens = text.match(TOKENS) ?? [];
  for (const token of tokens) {
    const row = lines.length - 1;
    const current = lines[row] as string;
    if (token === '\r') column = 0;
    else if (token === '\n') {
      lines.push('');
      column = 0;
    } else if (token === '\x1b[2K') lines[row] = '';
    else if (token === '\x1b[K') lines[row] = [...current].slice(0, column).join('');
    else if (token.startsWith('\x1b[')) continue;
    else {
      const chars = [...current];
      while (chars.length < column) chars.push(' ');
      chars[column] = token;
      lines[row] = chars.join('');
      column++;
    }
  }
  return lines;
}
