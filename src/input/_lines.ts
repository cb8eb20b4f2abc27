/**
 * Bytes to numbered lines, bounded: a line never holds more than `maxLineBytes` in memory. A
 * longer one is skipped to its line break and comes out `cut`, with its first bytes and its size,
 * so that a 1 GiB NDJSON line costs a row error, not the process. Lines are split on bytes
 * (LF, CR or CRLF never occur inside a UTF-8 or windows-1252 character) and decoded in blocks.
 */

import type { InputEncoding } from './_encoding.js';
import { Decoder, encodingError, firstInvalid, type Invalid, locate } from './_encoding.js';
import type { ByteReach } from './reader.js';

const LF = 0x0a;
const CR = 0x0d;
/** DOS's end-of-file mark. */
const CTRL_Z = 0x1a;

/** How much of an oversized line is kept for the report: bytes, or characters once decoded. */
export const CUT_HEAD_BYTES = 4096;

export type Line =
  | {
      readonly kind: 'text';
      /** 1-based physical line. */
      readonly line: number;
      /** Without its line break. */
      readonly text: string;
      /** The line break as it was: `\n`, `\r\n`, `\r`, or `` for a last line without one. */
      readonly eol: string;
    }
  | {
      readonly kind: 'cut';
      readonly line: number;
      /** The line's first bytes (up to CUT_HEAD_BYTES), decoded. */
      readonly head: string;
      /** True when `head` is the whole line: it was over the limit but not over CUT_HEAD_BYTES. */
      readonly whole: boolean;
      /** The line's full length in bytes, without its line break. */
      readonly bytes: number;
    };

export interface LineOptions {
  readonly encoding: InputEncoding;
  /** Bytes of byte order mark at the start of the first chunk. */
  readonly bom: number;
  readonly maxLineBytes: number;
  /** Read a lone CR as a line break when it is the input's first line break (CSV from old Macs). */
  readonly crLines: boolean;
}

/** The byte that ends lines: a lone CR only when the first line break is one. */
export function lineBreakByte(head: Buffer, crLines: boolean): number {
  if (!crLines) return LF;
  const lf = head.indexOf(LF);
  const cr = head.indexOf(CR);
  if (cr === -1 || (lf !== -1 && lf < cr) || head[cr + 1] === LF) return LF;
  return cr === head.length - 1 ? LF : CR;
}

/** Where the line being read stands between chunks. */
class Pending {
  parts: Buffer[] = [];
  bytes = 0;
  /** Set once the line outgrew the limit: its first bytes only, the rest is counted and dropped. */
  cutHead: Buffer | undefined;
  /** The line's last byte so far: a CR there belongs to a CRLF line break, not to the line. */
  lastByte = -1;

  add(part: Buffer, max: number): void {
    this.bytes += part.length;
    if (part.length > 0) this.lastByte = part[part.length - 1] as number;
    if (this.cutHead !== undefined) {
      // The head fills up to CUT_HEAD_BYTES whatever the limit, so that a line under that size
      // is kept whole however its bytes were split into chunks.
      const room = CUT_HEAD_BYTES - this.cutHead.length;
      if (room > 0 && part.length > 0) this.cutHead = Buffer.concat([this.cutHead, part.subarray(0, room)]);
      return;
    }
    if (this.bytes <= max) {
      if (part.length > 0) this.parts.push(Buffer.from(part));
      return;
    }
    const all = Buffer.concat([...this.parts, part]);
    this.cutHead = Buffer.from(all.subarray(0, CUT_HEAD_BYTES));
    this.parts = [];
  }

  /** Drops the last byte added (not of a cut line, whose bytes are not all kept). */
  dropLastByte(): void {
    const last = this.parts[this.parts.length - 1];
    if (last === undefined) return;
    if (last.length === 1) this.parts.pop();
    else this.parts[this.parts.length - 1] = last.subarray(0, -1);
    this.bytes--;
    this.lastByte = -1;
  }

  reset(): void {
    this.parts = [];
    this.bytes = 0;
    this.cutHead = undefined;
    this.lastByte = -1;
  }
}

export class LineSplitter {
  private line = 1;
  private readonly decoder: Decoder;
  private readonly pending = new Pending();
  private newline = LF;
  private started = false;
  private pushed = 0;

  constructor(private readonly options: LineOptions) {
    this.decoder = new Decoder(options.encoding);
  }

  /** The lines that `chunk` completes. */
  push(chunk: Buffer): Line[] {
    const out: Line[] = [];
    this.pushed += chunk.length;
    let bytes = chunk;
    if (!this.started) {
      this.started = true;
      bytes = chunk.subarray(this.options.bom);
      this.newline = lineBreakByte(bytes, this.options.crLines);
    }
    let start = 0;
    const first = bytes.indexOf(this.newline);
    if (first === -1) {
      this.pending.add(bytes, this.options.maxLineBytes);
      return out;
    }
    if (this.pending.bytes > 0 || this.pending.cutHead !== undefined) {
      this.pending.add(bytes.subarray(0, first), this.options.maxLineBytes);
      out.push(this.finishPending(this.newline === CR ? '\r' : '\n'));
      start = first + 1;
    }
    const last = bytes.lastIndexOf(this.newline);
    if (last >= start) this.block(bytes.subarray(start, last + 1), out);
    this.pending.add(bytes.subarray(last + 1), this.options.maxLineBytes);
    return out;
  }

  /** Bytes of the input up to the end of the last line returned (its line break included). */
  get bytes(): number {
    return this.pushed - this.pending.bytes;
  }

  /**
   * The last line, when the input does not end with a line break. A Ctrl-Z (0x1A) as the input's
   * last byte is DOS's end-of-file mark, which old tools still write: the end, not text.
   */
  end(): Line[] {
    const { pending } = this;
    if (pending.cutHead === undefined && pending.lastByte === CTRL_Z) pending.dropLastByte();
    if (!this.started || (pending.bytes === 0 && pending.cutHead === undefined)) {
      pending.reset();
      return [];
    }
    return [this.finishPending('')];
  }

  /** The number of the last line returned; 0 before the first. */
  get lastLine(): number {
    return this.line - 1;
  }

  /** Whole lines, each ending with the line-break byte: decoded at once, then split. */
  private block(bytes: Buffer, out: Line[]): void {
    const text = this.decoder.decode(bytes, true);
    if (typeof text !== 'string') throw this.invalid(text, this.line);
    const breakChar = this.newline === CR ? '\r' : '\n';
    let from = 0;
    for (let end = text.indexOf(breakChar); end !== -1; end = text.indexOf(breakChar, from)) {
      out.push(this.lineOf(text.slice(from, end), breakChar));
      from = end + 1;
    }
  }

  private lineOf(raw: string, breakChar: string): Line {
    const crlf = breakChar === '\n' && raw.charCodeAt(raw.length - 1) === CR;
    const text = crlf ? raw.slice(0, -1) : raw;
    const line = this.line++;
    const max = this.options.maxLineBytes;
    // A character is one to three bytes per UTF-16 unit: count bytes only when it can matter.
    if (text.length * 3 > max) {
      const size = this.decoder.encoding === 'utf-8' ? Buffer.byteLength(text, 'utf8') : text.length;
      if (size > max) {
        const head = textHead(text);
        return { kind: 'cut', line, head, bytes: size, whole: head.length === text.length };
      }
    }
    return { kind: 'text', line, text, eol: crlf ? '\r\n' : breakChar };
  }

  private finishPending(breakChar: string): Line {
    const { pending } = this;
    const line = this.line;
    try {
      if (pending.cutHead !== undefined) {
        this.line++;
        const crlf = breakChar === '\n' && pending.lastByte === CR;
        const bytes = pending.bytes - (crlf ? 1 : 0);
        const whole = bytes <= CUT_HEAD_BYTES;
        // A whole line's head ends with the CR of its CRLF, which belongs to the line break.
        const kept = whole ? pending.cutHead.subarray(0, bytes) : pending.cutHead;
        return { kind: 'cut', line, head: headOf(kept, line, this.decoder.encoding), bytes, whole };
      }
      const bytes = Buffer.concat(pending.parts);
      const text = this.decoder.decode(bytes, true);
      if (typeof text !== 'string') throw this.invalid(text, line);
      return this.lineOf(text, breakChar);
    } finally {
      pending.reset();
    }
  }

  private invalid(invalid: Invalid, line: number) {
    return encodingError(locate(invalid.bytes, invalid.bad, line, 1 - invalid.shift, this.newline));
  }
}

/** The start of an oversized line already decoded, never ending in half a surrogate pair. */
function textHead(text: string): string {
  const head = text.slice(0, CUT_HEAD_BYTES);
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}

/** The start of an oversized line, cut at a character boundary. */
function headOf(bytes: Buffer, line: number, encoding: InputEncoding): string {
  const head = bytes.subarray(0, CUT_HEAD_BYTES);
  if (encoding !== 'utf-8') return new Decoder(encoding).decode(head, true) as string;
  const { bad, incomplete } = firstInvalid(head, false);
  if (bad !== -1) throw encodingError(locate(head, bad, line, 1));
  return head.toString('utf8', 0, incomplete === -1 ? head.length : incomplete);
}

/**
 * Splits a byte stream into batches of lines, one batch per chunk; `reach` is told, before each
 * batch, its last line and the bytes up to that line's end.
 */
export async function* readLines(
  chunks: AsyncIterable<Buffer>,
  options: LineOptions,
  reach?: ByteReach,
): AsyncGenerator<Line[]> {
  const splitter = new LineSplitter(options);
  for await (const chunk of chunks) {
    const lines = splitter.push(chunk);
    if (lines.length > 0) yield marked(lines, splitter, reach);
  }
  const last = splitter.end();
  if (last.length > 0) yield marked(last, splitter, reach);
  // Nothing after the last line but an end-of-file mark: the lines handed on reach the end.
  else if (reach !== undefined && reach.bytes !== splitter.bytes)
    reach.mark(splitter.lastLine, splitter.bytes);
}

function marked(lines: Line[], splitter: LineSplitter, reach: ByteReach | undefined): Line[] {
  reach?.mark((lines[lines.length - 1] as Line).line, splitter.bytes);
  return lines;
}
