/**
 * Bytes to text, and text to lines, as streams: a character or a line split across two chunks
 * comes out whole.
 */

/** Encodings an input may declare. `latin1` decodes as windows-1252 (the WHATWG reading of the label). */
export type InputEncoding = 'utf-8' | 'latin1' | 'windows-1252';

const UTF8_BOM = [0xef, 0xbb, 0xbf];

function startsWithUtf8Bom(chunk: Buffer): boolean {
  return (
    chunk.length >= 3 && chunk[0] === UTF8_BOM[0] && chunk[1] === UTF8_BOM[1] && chunk[2] === UTF8_BOM[2]
  );
}

/**
 * The encoding to decode with: a UTF-8 byte order mark wins over a declared single-byte encoding,
 * because a file that starts with one is UTF-8 whatever its job file says.
 */
export function effectiveEncoding(
  first: Buffer | undefined,
  declared: InputEncoding,
  onWarning: (message: string) => void,
): InputEncoding {
  if (declared !== 'utf-8' && first !== undefined && startsWithUtf8Bom(first)) {
    onWarning(`Input starts with a UTF-8 byte order mark; reading it as utf-8, not ${declared}`);
    return 'utf-8';
  }
  return declared;
}

/** Yields the first chunk again in front of the rest (after peeking at it). */
export async function* withFirst(
  first: Buffer | undefined,
  rest: AsyncIterator<Buffer>,
): AsyncGenerator<Buffer> {
  if (first !== undefined) yield first;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

/** Decodes a byte stream; the decoder keeps a multi-byte character split across chunks whole. */
export async function* decodeText(
  chunks: AsyncIterable<Buffer>,
  encoding: InputEncoding,
): AsyncGenerator<string> {
  // The UTF-8 decoder drops a leading byte order mark (ignoreBOM defaults to false).
  const decoder = new TextDecoder(encoding, { fatal: false });
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) yield text;
  }
  const tail = decoder.decode();
  if (tail.length > 0) yield tail;
}

/** One line of text, without its line break; `line` is 1-based. */
export interface TextLine {
  readonly text: string;
  readonly line: number;
}

/** Splits decoded text into lines on `\n`, dropping a `\r` before it. The last line may lack a break. */
export async function* splitLines(texts: AsyncIterable<string>): AsyncGenerator<TextLine> {
  let carry = '';
  let line = 1;
  for await (const text of texts) {
    let start = 0;
    let end = text.indexOf('\n');
    while (end !== -1) {
      let piece = carry.length > 0 ? carry + text.slice(start, end) : text.slice(start, end);
      carry = '';
      if (piece.endsWith('\r')) piece = piece.slice(0, -1);
      yield { text: piece, line };
      line++;
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    carry += text.slice(start);
  }
  if (carry.length > 0) yield { text: carry, line };
}

/**
 * Cuts text at line breaks without joining pieces: a piece carries the line it lies on and keeps
 * its break. Memory stays at one chunk even when the whole file is one line (minified GeoJSON).
 */
export async function* linePieces(texts: AsyncIterable<string>): AsyncGenerator<TextLine> {
  let line = 1;
  for await (const text of texts) {
    let start = 0;
    let end = text.indexOf('\n');
    while (end !== -1) {
      yield { text: text.slice(start, end + 1), line };
      line++;
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    if (start < text.length) yield { text: start === 0 ? text : text.slice(start), line };
  }
}
