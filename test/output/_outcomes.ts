import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Geometry } from 'geojson';
import { streamSink } from '../../src/output/_sink.js';
import type { Fields, Outcome, OutputRecord, Row } from '../../src/types.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'geobatch-output-'));
}

export function row(index: number, fields: Fields, geometry?: Geometry | null): Row {
  return {
    kind: 'row',
    ref: { index, line: index + 2 },
    fields,
    ...(geometry === undefined ? {} : { geometry }),
  };
}

export function ok(r: Row, ...records: OutputRecord[]): Outcome {
  return { status: 'ok', ref: r.ref, row: r, records };
}

export function failed(
  r: Row | undefined,
  index: number,
  code: 'NO_MATCH' | 'INPUT_MALFORMED' = 'NO_MATCH',
): Outcome {
  const ref = r?.ref ?? { index, line: index + 2 };
  return {
    status: 'failed',
    ref,
    ...(r === undefined ? {} : { row: r }),
    issue: {
      kind: 'issue',
      ref,
      stage: r === undefined ? 'input' : 'response',
      code,
      message: 'no match found',
    },
  };
}

/** A sink over an in-memory stream, and a way to read what it got. */
export function memorySink() {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  const sink = streamSink(stream, 'memory');
  return {
    sink,
    text: async () => {
      await sink.sync();
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
