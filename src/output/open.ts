/** Opens the run's outputs by target and format: the one entry point the run's files use. */

import { openFileSink, type Sink, streamSink } from './_sink.js';
import { createCsvWriter } from './csv.js';
import { createGeojsonWriter } from './geojson.js';
import { type OutputFile, openGpkgOutput } from './gpkg.js';
import { createNdjsonWriter } from './ndjson.js';
import type { OutputFormat, RecordWriter, WriterOptions } from './writer.js';

export type { OutputFile } from './gpkg.js';

/** The formats written as text through a sink (a GeoPackage is a database of its own). */
export type TextFormat = Exclude<OutputFormat, 'gpkg'>;

/** One output, opened: where it goes, and the writer that turns outcomes into its records. */
export interface OpenedOutput {
  readonly file: OutputFile;
  readonly writer: RecordWriter;
}

export function createWriter(format: TextFormat, sink: Sink, options: WriterOptions): RecordWriter {
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

/**
 * Opens `target` for writing in `format`, fresh or continuing a checkpoint (`options.resume` with
 * the writer's state, `resumeAt` with the byte length). A GeoPackage continues from its record
 * count in the state: its byte length says nothing about where its rows end.
 */
export async function openOutput(
  target: string,
  format: OutputFormat,
  options: WriterOptions,
  resumeAt?: number,
): Promise<OpenedOutput> {
  if (format === 'gpkg') return openGpkgOutput(target, options);
  const sink = await openSink(target, resumeAt);
  return { file: sink, writer: createWriter(format, sink, options) };
}
