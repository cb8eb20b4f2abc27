/**
 * The first characters of a GeoJSON feature that turns out too large to read, for its row's
 * `raw`, as the line readers keep an oversized line's start. The parser's tokens carry no offsets,
 * so the text is kept by pieces: the piece the element began in and those after it, until
 * CUT_HEAD_CHARS characters past it are held (never the whole feature). Only when the element is
 * dropped is that text scanned for where the element begins and, if it is shorter, where it ends.
 */

/** As many characters as the line readers keep of an oversized record. */
export const CUT_HEAD_CHARS = 4096;

/** Where the parser stood at a piece's start, as the token stream tells it. */
interface ScanState {
  /** Depth inside the features array: 0 before it, 1 between its elements. */
  depth: number;
  inString: boolean;
  /** The piece starts just after a backslash inside a string. */
  escaped: boolean;
}

const FEATURES_ARRAY = /"features"\s*:\s*\[/;

export class ElementHead {
  private text = '';
  private state: ScanState = { depth: 0, inString: false, escaped: false };
  private start: { text: string; state: ScanState } | undefined;
  private following: string[] = [];
  private followingChars = 0;
  private open = false;

  /** Called before each piece is parsed, with the tracker's depth and string state then. */
  piece(text: string, depth: number, inString: boolean): void {
    const escaped = inString && endsInEscape(this.text);
    if (this.open && this.followingChars < CUT_HEAD_CHARS) {
      this.following.push(text);
      this.followingChars += text.length;
    }
    this.text = text;
    this.state = { depth, inString, escaped };
  }

  /** An element of the features array begins in the current piece. */
  begin(): void {
    this.start = { text: this.text, state: this.state };
    this.following = [];
    this.followingChars = 0;
    this.open = true;
  }

  /** The element ended: nothing more to keep. */
  end(): void {
    this.open = false;
  }

  /** The current element's first CUT_HEAD_CHARS characters, and whether that is all of it. */
  head(): { text: string; whole: boolean } {
    if (this.start === undefined) return { text: '', whole: false };
    const { text, state } = this.start;
    const from = lastElementStart(text, { ...state });
    const kept = text.slice(from) + this.following.join('');
    const end = elementEnd(kept);
    if (end !== undefined && end <= CUT_HEAD_CHARS) return { text: kept.slice(0, end), whole: true };
    let cut = Math.min(kept.length, CUT_HEAD_CHARS);
    const last = kept.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut--;
    return { text: kept.slice(0, cut), whole: false };
  }
}

function endsInEscape(text: string): boolean {
  let n = 0;
  while (n < text.length && text.charCodeAt(text.length - 1 - n) === 0x5c) n++;
  return n % 2 === 1;
}

/**
 * Offset of the last element of the features array that begins in `text` (the dropped one: it
 * is longer than a piece, so none begins after it there).
 */
function lastElementStart(text: string, state: ScanState): number {
  let from = 0;
  if (state.depth === 0) {
    const array = FEATURES_ARRAY.exec(text);
    if (array === null) return 0;
    from = array.index + array[0].length;
    state.depth = 1;
  }
  let expect = state.depth === 1;
  let last = 0;
  walk(text, from, state, (c, i, depth) => {
    if (depth !== 1) return false;
    if (c === 0x2c)
      expect = true; // ,
    else if (expect) {
      last = i;
      expect = false;
    }
    return false;
  });
  return last;
}

/** Where the element at the start of `text` ends (the offset after its last character), if it does. */
function elementEnd(text: string): number | undefined {
  const state = { depth: 1, inString: false, escaped: false };
  let end: number | undefined;
  let first = true;
  walk(text, 0, state, (c, i, depth) => {
    if (first) {
      first = false;
      return false;
    }
    // After a scalar element, the `,` or `]` that follows it; after a container, its closing bracket.
    if (depth === 1) {
      if (c === 0x2c || c === 0x5d) end = i;
      return end !== undefined;
    }
    if (state.depth === 1) end = i + 1;
    return end !== undefined;
  });
  return end === undefined ? undefined : text.slice(0, end).trimEnd().length;
}

/**
 * Calls `visit` with each character outside strings (and each opening quote) and the depth before
 * it, until `visit` returns true. Updates `state` as it goes.
 */
function walk(
  text: string,
  from: number,
  state: ScanState,
  visit: (c: number, i: number, depth: number) => boolean,
): void {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (c === 0x5c) state.escaped = true;
      else if (c === 0x22) state.inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    const depth = state.depth;
    if (c === 0x22) state.inString = true;
    else if (c === 0x7b || c === 0x5b) state.depth++;
    else if (c === 0x7d || c === 0x5d) state.depth--;
    if (visit(c, i, depth)) return;
  }
}
