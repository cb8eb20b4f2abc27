/** Opens the run's sinks and writers by target and format: the one entry point the run uses. */

import { openFileSink, type Sink, streamSink } from './_sink.js';
import { createCsvWriter } from './csv.js';
import { createGeojsonWriter } from './geojson.js';
import { createNdjsonWriter } from './ndjson.js';
import type { OutputFormat, RecordWriter, WriterOptions } from './writer.js';

export function createWriter(format: OutputFormat, sink: Sink, options: WriterOptions): RecordWriter {
  switch (format) {
    case 'csv':
      return createCsvWriter(sink, options);
    case 'ndjson':
      return createNdjsonWriter(sink, options);
    case 'geojson':
      return createGeojsonWriter(sink, options);
  }
}

/** `-` is standard output; a path is written through its temporary file (cut back to `resumeAt` when resuming). */
export function openSink(target: string, resumeAt?: number): Promise<Sink> {
  if (target === '-') return Promise.resolve(streamSink(process.stdout));
  return openFileSink(target, resumeAt);
}
