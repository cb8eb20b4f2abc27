/**
 * What the GeoJSON reader needs from the token stream besides the features themselves: the line
 * each element of the features array starts on, and its size, so that an oversized feature is
 * skipped instead of assembled (with its first characters kept for the report). Strings and
 * numbers arrive from the parser in chunks and are packed here, where a skipped feature's chunks
 * are dropped rather than joined. A property's number that a double cannot repeat as written is
 * handed on as raw JSON of its text (see _json-numbers.ts); geometry numbers stay numbers.
 */

import { rawNumber } from '../number-texts.js';
import { ElementHead } from './_geojson-head.js';
import { textToKeep } from './_json-numbers.js';
import { MAX_NESTING } from './_nesting.js';

export type Token = { readonly name: string; readonly value?: unknown };

const VALUE_STARTS = new Set([
  'startObject',
  'startArray',
  'startString',
  'startNumber',
  'nullValue',
  'trueValue',
  'falseValue',
]);

/** An element of the features array that was too large to read (a class: no JSON value is one). */
export class Skipped {
  /**
   * `size`: characters of input the element spans, give or take one piece of text. `head`: its
   * first characters (up to CUT_HEAD_CHARS), `whole` when that is all of it.
   */
  constructor(
    readonly size: number,
    readonly head: string,
    readonly whole: boolean,
    /** Dropped for nesting deeper than MAX_NESTING, not for its size. */
    readonly tooDeep = false,
  ) {}
}

export class FeatureTracker {
  /** Line of the piece of text being parsed. */
  line = 1;
  found = false;
  /** True while the current element is over the limit: its tokens are dropped. */
  oversized = false;
  /** The current element nests deeper than MAX_NESTING: dropped as an oversized one is. */
  private tooDeep = false;
  private depth = 0;
  private readonly starts: number[] = [];
  /** The features array has been read to its end: what follows is the collection's other members. */
  get closed(): boolean {
    return this.found && this.depth === 0;
  }
  /** Characters fed before the current piece, and up to its end. */
  private fed = 0;
  private fedEnd = 0;
  private elementStart = 0;
  private parts: string[] = [];
  private endedOversized = false;
  /** Characters fed up to the piece that gave the last token. */
  private lastToken = 0;
  /** Inside a string or key: where a piece of text may begin. */
  private inString = false;
  /** The member of the current feature being read (`properties`, `geometry`...). */
  private member: unknown;
  private readonly head = new ElementHead();

  /**
   * Text is fed in slices of at most `slice` characters, so an element's size is known to within
   * two slices: it is skipped only when even the smallest size it can have is over the limit.
   */
  readonly slice: number;
  private readonly threshold: number;

  constructor(maxChars: number) {
    this.slice = Math.min(16384, Math.max(256, Math.floor(maxChars / 8)));
    this.threshold = maxChars + 2 * this.slice;
  }

  /** Called before each piece of text is parsed. */
  piece(line: number, text: string): void {
    this.line = line;
    this.fed = this.fedEnd;
    this.fedEnd += text.length;
    this.head.piece(text, this.depth, this.inString);
  }

  /**
   * Follows one token: returns the token the assembler should see (packed), or undefined while a
   * string or number is still arriving. Call `skipped` after the assembler has seen it.
   */
  see(token: Token): Token | undefined {
    const { name } = token;
    this.lastToken = this.fedEnd;
    if (this.depth === 1 && VALUE_STARTS.has(name)) {
      this.starts.push(this.line);
      this.elementStart = this.fed;
      this.head.begin();
      this.member = undefined;
    }
    if (name === 'startString' || name === 'startKey') this.inString = true;
    else if (name === 'endString' || name === 'endKey') this.inString = false;
    else if (name === 'keyValue' && this.depth === 2) this.member = token.value;
    if (this.depth === 0 && name === 'startArray') this.found = true;
    if (this.depth >= 1 && !this.oversized && this.fedEnd - this.elementStart > this.threshold)
      this.oversized = true;
    if (name === 'startObject' || name === 'startArray') {
      // Depth 1 is the features array: an element's own levels are the ones above it.
      if (++this.depth > MAX_NESTING + 1 && !this.oversized) this.oversized = this.tooDeep = true;
    } else if (name === 'endObject' || name === 'endArray') this.depth--;
    const packed = this.pack(token);
    const ended = this.depth === 1 && (name === 'endObject' || name === 'endArray' || packed !== undefined);
    this.endedOversized = ended && this.oversized;
    if (ended) this.head.end();
    return packed;
  }

  /** The element the last token ended, when it was too large and so was dropped. */
  skipped(): Skipped | undefined {
    if (!this.endedOversized) return undefined;
    this.endedOversized = false;
    this.oversized = false;
    const tooDeep = this.tooDeep;
    this.tooDeep = false;
    const { text, whole } = this.head.head();
    return new Skipped(this.fedEnd - this.elementStart, text, whole, tooDeep);
  }

  /**
   * True when the features array has given no token for more than the limit: the parser is then
   * joining one huge number or key, which cannot be dropped as it streams.
   */
  runaway(): boolean {
    return this.depth >= 1 && this.fedEnd - this.lastToken > this.threshold;
  }

  /** The line the element being read began on, when one is open (a syntax error cut it off). */
  open(): number | undefined {
    return this.depth >= 2 ? this.starts[this.starts.length - 1] : undefined;
  }

  /** The start line of the next element handed out, in array order. */
  next(): number {
    return this.starts.shift() ?? this.line;
  }

  private pack(token: Token): Token | undefined {
    switch (token.name) {
      case 'startString':
      case 'startNumber':
        this.parts = [];
        return undefined;
      case 'stringChunk':
      case 'numberChunk':
        if (!this.oversized) this.parts.push(token.value as string);
        return undefined;
      case 'endString':
        return { name: 'stringValue', value: this.joined() };
      case 'endNumber':
        return this.number(this.joined());
      case 'numberValue':
        return this.number(token.value as string);
      default:
        return token;
    }
  }

  /**
   * A number token; in `properties`, one whose text a double cannot repeat is handed to the
   * assembler as a `stringValue`, which it stores as given (its stringValue is its _saveValue).
   */
  private number(text: string): Token {
    if (this.depth >= 3 && this.member === 'properties' && !this.oversized) {
      const kept = textToKeep(text);
      if (kept !== undefined) return { name: 'stringValue', value: rawNumber(kept) };
    }
    return { name: 'numberValue', value: text };
  }

  private joined(): string {
    const value = this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join('');
    this.parts = [];
    return value;
  }
}
