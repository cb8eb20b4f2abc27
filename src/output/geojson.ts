/**
 * GeoJSON output: one FeatureCollection (RFC 7946), streamed feature by feature.
 * Geometry: the record's when it gives one (null included), else the input row's, else null.
 */
import type { Geometry } from 'geojson';
import type { Outcome } from '../types.js';
import type { Sink } from './_sink.js';
import { outputObjects, type RecordWriter, type WriterOptions } from './writer.js';

const HEAD = '{"type":"FeatureCollection","features":[\n';
const SEPARATOR = ',\n';
const TAIL = '\n]}\n';

export function createGeojsonWriter(sink: Sink, options: WriterOptions): RecordWriter {
  const resumed = options.resume as { records?: number } | undefined;
  // The head is written once, when the file is started; a resumed file already has it.
  let records = resumed?.records ?? 0;
  if (resumed === undefined) sink.write(HEAD);
  return {
    write(outcome) {
      let ok = true;
      let i = 0;
      for (const properties of outputObjects(outcome, options.jobColumns)) {
        const geometry = geometryOf(outcome, i++);
        const feature = JSON.stringify({ type: 'Feature', geometry, properties });
        ok = sink.write(records++ === 0 ? feature : SEPARATOR + feature) && ok;
      }
      return ok;
    },
    flush: () => true,
    state: () => ({ records }),
    stats: () => ({ records, unknownKeyRows: 0 }),
    end() {
      sink.write(TAIL);
    },
  };
}

export function geometryOf(outcome: Outcome, recordIndex: number): Geometry | null {
  const input = outcome.row?.geometry ?? (outcome.status === 'failed' ? outcome.geometry : undefined) ?? null;
  const own = outcome.records?.[recordIndex]?.geometry;
  return own === undefined ? input : own;
}
