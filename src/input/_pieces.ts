/**
 * Bytes to text pieces that never join lines: a piece lies on one line and keeps its line break,
 * so memory stays at one chunk even when the whole file is one line (minified GeoJSON). UTF-8 is
 * checked as it streams; a character cut by a chunk boundary comes out whole in the next piece.
 */

import type { InputEncoding } from './_encoding.js';
import { Decoder, encodingError, type Invalid, locate } from './_encoding.js';

export interface Piece {
  readonly text: string;
  /** 1-based line the piece lies on. */
  readonly line: number;
}

export async function* readPieces(
  chunks: AsyncIterable<Buffer>,
  encoding: InputEncoding,
  bom: number,
): AsyncGenerator<Piece[]> {
  const decoder = new Decoder(encoding);
  let line = 1;
  // Byte column of the next chunk's first byte, for the message about a bad byte.
  let column = 1;
  let first = true;
  const fail = (invalid: Invalid) =>
    encodingError(locate(invalid.bytes, invalid.bad, line, column - invalid.shift));
  for await (const chunk of chunks) {
    const bytes = first ? chunk.subarray(bom) : chunk;
    first = false;
    const text = decoder.decode(bytes);
    if (typeof text !== 'string') throw fail(text);
    const lastBreak = bytes.lastIndexOf(0x0a);
    column = lastBreak === -1 ? column + bytes.length : bytes.length - lastBreak;
    const pieces: Piece[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      pieces.push({ text: text.slice(start, end + 1), line });
      line++;
      start = end + 1;
    }
    if (start < text.length) pieces.push({ text: start === 0 ? text : text.slice(start), line });
    if (pieces.length > 0) yield pieces;
  }
  const cut = decoder.end();
  if (cut !== undefined) throw fail(cut);
}
