/**
 * GeoJSON FeatureCollection, streamed feature by feature with stream-json (`pick` on `features`,
 * then `streamArray`), so memory holds one feature at a time whatever the file size.
 *
 * The stages run as one synchronous stream-chain `fun` pipeline: chained as async generators they
 * cost an await per token, which made reading three times slower. Text is fed one line piece at a
 * time, so the line on which a feature's `{` was parsed is its `line`. A syntax error cannot be
 * skipped in a JSON stream: it becomes one RowIssue and the reader ends, marked truncated.
 */
import { none } from 'stream-chain/defs.js';
import fun from 'stream-chain/fun.js';
import pick from 'stream-json/filters/pick.js';
import parser from 'stream-json/parser.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import { UsageError } from '../errors.js';
import type { ReadItem } from '../types.js';
import { featureToItem } from './_feature.js';
import type { ByteSource } from './_source.js';
import { decodeText, effectiveEncoding, type InputEncoding, linePieces, withFirst } from './_text.js';
import { clipRaw } from './reader.js';

const VALUE_STARTS = new Set([
  'startObject',
  'startArray',
  'stringValue',
  'numberValue',
  'nullValue',
  'trueValue',
  'falseValue',
]);

export interface GeojsonState {
  columns: readonly string[];
  truncated: boolean;
}

type Token = { readonly name: string; readonly value?: unknown };

/** Notes the line each element of the features array starts on, and whether the array was found. */
class FeatureLines {
  line = 1;
  found = false;
  private depth = 0;
  private readonly starts: number[] = [];

  see(token: Token): Token {
    if (this.depth === 1 && VALUE_STARTS.has(token.name)) this.starts.push(this.line);
    if (this.depth === 0 && token.name === 'startArray') this.found = true;
    if (token.name === 'startObject' || token.name === 'startArray') this.depth++;
    else if (token.name === 'endObject' || token.name === 'endArray') this.depth--;
    return token;
  }

  next(): number {
    return this.starts.shift() ?? this.line;
  }
}

export async function* readGeojson(
  source: ByteSource,
  declared: InputEncoding,
  onWarning: (message: string) => void,
  state: GeojsonState,
): AsyncGenerator<ReadItem> {
  const chunks = source.chunks[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head = first.done ? undefined : first.value;
  const encoding = effectiveEncoding(head, declared, onWarning);
  const lines = new FeatureLines();
  // Features are collected here rather than returned, so that those completed before a syntax
  // error in the same piece of text are not lost with it.
  const done: unknown[] = [];
  const assemble = streamArray() as (token: Token) => { key: number; value: unknown } | typeof none;
  const parse = fun(parser({ streamValues: false }), pick({ filter: 'features' }), (token: Token) => {
    const out = assemble(lines.see(token));
    if (out !== none) done.push(out.value);
    return none;
  }) as unknown as (text: string | typeof none) => unknown;
  let index = 0;
  function* take(): Generator<ReadItem> {
    for (const value of done.splice(0)) {
      const item = featureToItem(value, { index: index++, line: lines.next() });
      if (item.kind === 'row' && state.columns.length === 0) state.columns = Object.keys(item.fields);
      yield item;
    }
  }
  let text = '';
  try {
    for await (const piece of linePieces(decodeText(withFirst(head, chunks), encoding))) {
      lines.line = piece.line;
      text = piece.text;
      parse(piece.text);
      if (done.length > 0) yield* take();
    }
    parse(none);
    yield* take();
  } catch (cause) {
    if (!lines.found) throw notACollection(source.path, cause);
    yield* take();
    state.truncated = true;
    onWarning(`GeoJSON syntax error at line ${lines.line}: reading stopped; later features cannot be read`);
    yield syntaxIssue(index, lines.line, cause, text);
    return;
  }
  if (!lines.found) throw notACollection(source.path, undefined);
}

function syntaxIssue(index: number, line: number, cause: unknown, text: string): ReadItem {
  return {
    kind: 'issue',
    ref: { index, line },
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `GeoJSON syntax error (${(cause as Error).message}); the rest of the input cannot be read`,
    raw: clipRaw(text.trimEnd()),
  };
}

function notACollection(path: string, cause: unknown): UsageError {
  const why = cause === undefined ? 'no features array found' : (cause as Error).message;
  return new UsageError(`Expected a GeoJSON FeatureCollection in ${path}: ${why}`, {
    file: path,
    hint: 'The input must be a FeatureCollection object with a `features` array.',
    cause,
  });
}
