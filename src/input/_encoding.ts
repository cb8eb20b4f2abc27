/**
 * Bytes to text without ever inventing a character: UTF-8 input is validated as it streams, and
 * the first byte that is not UTF-8 stops the run (INPUT_ENCODING) with its line and the
 * `input.encoding` to set, instead of becoming U+FFFD in the user's data.
 */
import { isUtf8 } from 'node:buffer';
import { type GeobatchError, InputError } from '../errors.js';
import { binaryError, binaryKind } from './_binary.js';

/** Encodings an input may declare. `latin1` decodes as windows-1252 (the WHATWG reading of the label). */
export type InputEncoding = 'utf-8' | 'latin1' | 'windows-1252';

/** What the start of the input says about its encoding. */
export interface Sniffed {
  readonly encoding: InputEncoding;
  /** Bytes of byte order mark to drop. */
  readonly bom: number;
}

/**
 * A UTF-8 byte order mark wins over a declared single-byte encoding (a file that starts with one
 * is UTF-8 whatever its job file says); a UTF-16 one cannot be read and says how to convert, and
 * a file that is no text at all (a workbook, a compressed file) says what it is.
 */
export function sniff(head: Buffer, declared: InputEncoding, onWarning: (message: string) => void): Sniffed {
  const utf16Bom = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  const binary = utf16Bom ? undefined : binaryKind(head);
  if (binary !== undefined) throw binaryError(binary);
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
    if (declared !== 'utf-8')
      onWarning(`Input starts with a UTF-8 byte order mark; reading it as utf-8, not ${declared}`);
    return { encoding: 'utf-8', bom: 3 };
  }
  const utf16 =
    head[0] === 0xff && head[1] === 0xfe
      ? 'UTF-16LE'
      : head[0] === 0xfe && head[1] === 0xff
        ? 'UTF-16BE'
        : '';
  if (utf16 !== '') {
    throw new InputError(
      'INPUT_ENCODING',
      `The input starts with a ${utf16} byte order mark; geobatch reads UTF-8 and windows-1252 only`,
      {
        path: 'input.encoding',
        received: utf16,
        expected: 'utf-8, latin1 or windows-1252',
        hint: 'Convert the file to UTF-8 (Excel: Save As "CSV UTF-8"; or iconv -f UTF-16 -t UTF-8 in > out).',
      },
    );
  }
  return { encoding: declared, bom: 0 };
}

/** Bytes a valid UTF-8 sequence starting with `lead` has, 0 when `lead` cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The allowed range of the second byte, which rules out overlong forms, surrogates and > U+10FFFF. */
function secondOk(lead: number, byte: number): boolean {
  if (lead === 0xe0) return byte >= 0xa0 && byte <= 0xbf;
  if (lead === 0xed) return byte >= 0x80 && byte <= 0x9f;
  if (lead === 0xf0) return byte >= 0x90 && byte <= 0xbf;
  if (lead === 0xf4) return byte >= 0x80 && byte <= 0x8f;
  return byte >= 0x80 && byte <= 0xbf;
}

/**
 * Offset of the first byte that starts an invalid sequence, or -1. A sequence cut by the end of
 * `bytes` counts as invalid only when `final`; otherwise its offset is returned as `incomplete`.
 */
export function firstInvalid(bytes: Uint8Array, final: boolean): { bad: number; incomplete: number } {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const length = sequenceLength(lead);
    if (length === 0) return { bad: i, incomplete: -1 };
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return final ? { bad: i, incomplete: -1 } : { bad: -1, incomplete: i };
      const byte = bytes[i + k] as number;
      if (k === 1 ? !secondOk(lead, byte) : byte < 0x80 || byte > 0xbf) return { bad: i, incomplete: -1 };
    }
    i += length;
  }
  return { bad: -1, incomplete: -1 };
}

/** A failed decode: `bad` indexes `bytes`, which hold `shift` carried bytes before the piece given. */
export interface Invalid {
  readonly bad: number;
  readonly bytes: Buffer;
  readonly shift: number;
}

/** Where the first bad byte is, for the message. */
export interface BadByte {
  /** 1-based line of the byte. */
  readonly line: number;
  /** 1-based byte column in that line. */
  readonly column: number;
  readonly byte: number;
  /** The line around the byte read as windows-1252, to show what the file probably says. */
  readonly context: string;
  /**
   * The byte starts a UTF-16 surrogate written as UTF-8 (CESU-8: 0xED 0xA0-0xBF and one more),
   * the way MySQL's `utf8` and Java write a character beyond U+FFFF (an emoji) as two halves.
   */
  readonly surrogate: boolean;
}

const WINDOWS_1252 = new TextDecoder('windows-1252');

/** Each character windows-1252 reads (latin1 reads as it, see InputEncoding) to the byte it reads it from. */
const BYTE_OF = new Map<number, number>(
  Array.from({ length: 256 }, (_, byte) => [WINDOWS_1252.decode(Uint8Array.of(byte)).charCodeAt(0), byte]),
);

/**
 * The text that `text` is when it is UTF-8 read as windows-1252 (or latin1): `StraÃŸe` for
 * `Straße`, `KÃ¶ln` for `Köln`. Undefined when it is not: its characters, taken back to the bytes
 * they were read from, hold no UTF-8 sequence of two bytes or more, or hold a byte no UTF-8 text
 * has (`Größe` read as windows-1252 is `Größe`, whose ö and ß are no sequence).
 */
export function utf8ReadAsSingleByte(text: string): string | undefined {
  const bytes = Buffer.alloc(text.length);
  let high = false;
  for (let i = 0; i < text.length; i++) {
    const byte = BYTE_OF.get(text.charCodeAt(i));
    if (byte === undefined) return undefined;
    bytes[i] = byte;
    high ||= byte >= 0x80;
  }
  return high && isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

/**
 * Locates byte `offset` of `bytes`, whose first byte is on line `line` at byte column `column`;
 * `newline` is the byte that ends a line (LF, or CR in a file with old Mac line ends).
 */
export function locate(
  bytes: Uint8Array,
  offset: number,
  line: number,
  column: number,
  newline = 0x0a,
): BadByte {
  let lineStart = -1;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === newline) {
      line++;
      lineStart = i;
    }
  }
  const from = Math.max(lineStart + 1, offset - 24);
  let to = offset + 1;
  while (to < bytes.length && to < offset + 24 && bytes[to] !== 0x0a && bytes[to] !== 0x0d) to++;
  return {
    line,
    column: lineStart === -1 ? column + offset : offset - lineStart,
    byte: bytes[offset] as number,
    context: WINDOWS_1252.decode(bytes.subarray(from, to)),
    surrogate: isEncodedSurrogate(bytes, offset),
  };
}

function isEncodedSurrogate(bytes: Uint8Array, at: number): boolean {
  const second = bytes[at + 1] ?? 0;
  const third = bytes[at + 2] ?? 0;
  return bytes[at] === 0xed && second >= 0xa0 && second <= 0xbf && third >= 0x80 && third <= 0xbf;
}

export function encodingError(bad: BadByte): GeobatchError {
  const hex = `0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const detail = { line: bad.line, column: bad.column, byte: hex };
  if (bad.surrogate)
    return new InputError(
      'INPUT_ENCODING',
      `The input is not valid UTF-8: line ${bad.line} has a UTF-16 surrogate written as UTF-8 at column ` +
        `${bad.column} (byte ${hex}): it is CESU-8, as MySQL's \`utf8\` and Java write a character beyond ` +
        'U+FFFF (an emoji) in two halves',
      {
        path: 'input.encoding',
        expected: 'utf-8',
        received: `byte ${hex} at line ${bad.line}`,
        detail,
        hint:
          "Export the file again as UTF-8 (MySQL's utf8mb4) or convert it; read as windows-1252 these " +
          'characters would come out garbled. Nothing was changed in the data.',
      },
    );
  return new InputError(
    'INPUT_ENCODING',
    `The input is not valid UTF-8: line ${bad.line} has byte ${hex} at column ${bad.column} ` +
      `(${JSON.stringify(bad.context)} as windows-1252); it is probably windows-1252 (Latin-1)`,
    {
      path: 'input.encoding',
      expected: 'utf-8',
      received: `byte ${hex} at line ${bad.line}`,
      detail,
      hint:
        'Set `input.encoding: windows-1252` in the job file (spreadsheets saved on Windows are often ' +
        'Latin-1), or convert the file to UTF-8. Nothing was changed in the data.',
    },
  );
}

/**
 * Decodes a stream of byte pieces (each a run of whole lines or part of one). UTF-8 is checked:
 * `decode` returns the offset of the first invalid byte in `bytes` instead of text, and a
 * character cut by the end of a piece waits for the next one.
 */
export class Decoder {
  private pending: Buffer | undefined;
  private readonly single: { decode(input: Uint8Array): string } | undefined;

  constructor(readonly encoding: InputEncoding) {
    // WHATWG windows-1252 maps every byte to a character: nothing to check.
    this.single = encoding === 'utf-8' ? undefined : new TextDecoder('windows-1252');
  }

  /**
   * The text of `bytes`, or where it is invalid. `final` when `bytes` end at a line break or at
   * the end of the input, so that no character can continue in the next piece.
   */
  decode(bytes: Buffer, final = false): string | Invalid {
    if (this.single !== undefined) return this.single.decode(bytes);
    let input = bytes;
    let shift = 0;
    if (this.pending !== undefined) {
      shift = this.pending.length;
      input = Buffer.concat([this.pending, bytes]);
      this.pending = undefined;
    }
    if (isUtf8(input)) return input.toString('utf8');
    const { bad, incomplete } = firstInvalid(input, final);
    if (bad !== -1) return { bad, bytes: input, shift };
    // Only a character cut at the end: keep its bytes for the next piece.
    this.pending = Buffer.from(input.subarray(incomplete));
    return input.toString('utf8', 0, incomplete);
  }

  /** The end of the input: a character still cut there is invalid. */
  end(): Invalid | undefined {
    if (this.pending === undefined) return undefined;
    return { bad: 0, bytes: this.pending, shift: this.pending.length };
  }
}
