/** NDJSON output: one object per record, input fields then the job's columns then the status pair. */
import type { Sink } from './_sink.js';
import { outputObjects, type RecordWriter, type WriterOptions } from './writer.js';

export function createNdjsonWriter(sink: Sink, options: WriterOptions): RecordWriter {
  let records = (options.resume?.records as number | undefined) ?? 0;
  return {
    write(outcome) {
      let ok = true;
      for (const object of outputObjects(outcome, options.jobColumns)) {
        records++;
        ok = sink.write(`${JSON.stringify(object)}\n`) && ok;
      }
      return ok;
    },
    flush: () => true,
    state: () => ({ records }),
    stats: () => ({ records, unknownKeyRows: 0 }),
    end() {},
  };
}
