/**
 * GeoJSON FeatureCollection, streamed feature by feature with stream-json (`pick` on `features`,
 * then `streamArray`), so memory holds one feature at a time whatever the file size.
 *
 * Text is fed to the parser one line piece at a time, so the line on which a feature's `{` was
 * parsed is its `line`. A syntax error cannot be skipped in a JSON stream: it becomes one RowIssue
 * and the reader ends, marked truncated.
 */
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import { UsageError } from '../errors.js';
import type { ReadItem } from '../types.js';
import { featureToItem } from './_feature.js';
import type { ByteSource } from './_source.js';
import { decodeText, effectiveEncoding, type InputEncoding, linePieces, withFirst } from './_text.js';
import { clipRaw } from './reader.js';

/** stream-chain's "no value" marker; a registered symbol, so no import of stream-chain is needed. */
const NONE = Symbol.for('object-stream.none');

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
type TokenStream = (chunk: string | symbol) => AsyncIterable<Token>;

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
  const tokens = pick.withParser({ filter: 'features', streamValues: false }) as unknown as TokenStream;
  const assemble = streamArray() as (token: Token) => { key: number; value: unknown } | symbol;
  const starts: number[] = [];
  let depth = 0;
  let line = 1;
  let index = 0;
  let sawFeatures = false;

  function* accept(token: Token): Generator<ReadItem> {
    if (depth === 1 && VALUE_STARTS.has(token.name)) starts.push(line);
    if (depth === 0 && token.name === 'startArray') sawFeatures = true;
    if (token.name === 'startObject' || token.name === 'startArray') depth++;
    else if (token.name === 'endObject' || token.name === 'endArray') depth--;
    const out = assemble(token);
    if (out === NONE || typeof out === 'symbol') return;
    const item = featureToItem(out.value, { index: index++, line: starts.shift() ?? line });
    if (item.kind === 'row' && state.columns.length === 0) state.columns = Object.keys(item.fields);
    yield item;
  }

  const pieces = linePieces(decodeText(withFirst(head, chunks), encoding));
  let piece: { text: string; line: number } | undefined;
  try {
    for await (piece of pieces) {
      line = piece.line;
      for await (const token of tokens(piece.text)) yield* accept(token);
    }
    for await (const token of tokens(NONE)) yield* accept(token);
  } catch (cause) {
    if (!sawFeatures) throw notACollection(source.path, cause);
    state.truncated = true;
    onWarning(`GeoJSON syntax error at line ${line}: reading stopped; later features cannot be read`);
    yield syntaxIssue(index, line, cause, piece?.text ?? '');
    return;
  }
  if (!sawFeatures) throw notACollection(source.path, undefined);
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
