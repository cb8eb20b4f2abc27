/**
 * GeoPackage output (OGC GeoPackage 1.4): one feature table in EPSG:4326 holding the records the
 * GeoJSON output would hold, with the same attributes and the same geometry (the record's, else the
 * input row's, else NULL), plus an R-tree spatial index. What QGIS and ArcGIS users open first.
 *
 * A GeoPackage is an SQLite database, not a byte stream, so it brings its own file instead of a
 * text sink: rows go in through node:sqlite in transactions of bounded size (memory stays flat),
 * into `<target>.partial`, renamed over the target at the end like every output. A checkpoint
 * stores the record count; a resumed run deletes the rows past it and goes on. Column types and
 * the geometry type are declared once the last row is in (see _gpkg-columns.ts for the rule).
 */
import { unlink } from 'node:fs/promises';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { UsageError } from '../errors.js';
import type { Outcome } from '../types.js';
import { inputColumnsOnly, isOwnColumn } from './_columns.js';
import {
  bindValue,
  type ColumnKind,
  type GpkgLayout,
  gpkgLayout,
  joinKinds,
  valueKind,
} from './_gpkg-columns.js';
import { type GpkgFile, openGpkgFile } from './_gpkg-file.js';
import { encodeGeometry } from './_gpkg-geometry.js';
import { checkGpkgColumns } from './_gpkg-limit.js';
import { quoteId, rtreeName, tableName } from './_gpkg-schema.js';
import {
  convertToText,
  createTable,
  cutBack,
  finishTable,
  type GeometryFacts,
  noteGeometry,
  registerFunctions,
  startFile,
} from './_gpkg-table.js';
import type { Sink } from './_sink.js';
import { csvLayout } from './csv.js';
import { geometryOf } from './geojson.js';
import {
  ERROR_COLUMN,
  inputFields,
  outputObjects,
  type RecordWriter,
  STATUS_COLUMN,
  type WriterOptions,
} from './writer.js';

/**
 * The file side of an output, as the run uses it: synced, committed, closed. A GeoPackage takes no
 * text, and its byte length says nothing of where its rows end (its writer's `mark` does).
 */
export type OutputFile = Omit<Sink, 'write' | 'length'> & { length?(): number };

export interface GpkgOutput {
  readonly file: OutputFile;
  readonly writer: RecordWriter;
}

export interface GpkgOptions extends WriterOptions {
  /** The feature table (the layer name GIS programs show). @default the file name without `.gpkg` */
  readonly table?: string;
  /** Rows per transaction: bounds the memory and the work a crash can lose. @default 5000 */
  readonly transactionRows?: number;
}

/** What a checkpoint stores to continue the file. */
interface GpkgState {
  readonly table: string;
  readonly layout: GpkgLayout | undefined;
  readonly kinds: ColumnKind[];
  readonly geometry: GeometryFacts;
  readonly records: number;
  readonly unknownKeyRows: number;
}

export async function openGpkgOutput(target: string, options: GpkgOptions): Promise<GpkgOutput> {
  if (target === '-')
    throw new UsageError('A GeoPackage cannot be written to standard output', {
      hint: 'Give an output file, e.g. -o out.gpkg.',
    });
  const resumed = options.resume as GpkgState | undefined;
  const file = await openGpkgFile(target, resumed !== undefined);
  try {
    registerFunctions(file);
    if (resumed === undefined) startFile(file);
    else cutBack(file, resumed.table, resumed.layout, resumed.records);
  } catch (error) {
    await file.close();
    throw error;
  }
  const state: GpkgState = structuredClone(resumed) ?? {
    table: options.table ?? tableName(target),
    layout: undefined,
    kinds: [],
    geometry: { types: [], withZ: false, withoutZ: false, extent: null },
    records: 0,
    unknownKeyRows: 0,
  };
  return {
    file: {
      target,
      path: file.path,
      broken: false,
      drain: () => Promise.resolve(),
      sync: () => file.sync(),
      seal: () => file.seal(),
      commit: () => file.commit(),
      close: () => file.close(),
      // A run that stopped before its first committed row leaves nothing behind.
      async discard() {
        await file.close();
        await Promise.all(
          ['', '-wal', '-shm', '-journal'].map((suffix) => unlink(`${file.path}${suffix}`).catch(() => {})),
        );
      },
    },
    writer: createGpkgWriter(target, file, state, options),
  };
}

function createGpkgWriter(
  target: string,
  file: GpkgFile,
  start: GpkgState,
  options: GpkgOptions,
): RecordWriter {
  const warn = options.onWarning ?? (() => {});
  const perTransaction = options.transactionRows ?? 5000;
  let { layout, records, unknownKeyRows } = start;
  const { table, kinds, geometry } = start;
  let keys = new Set(layout?.keys);
  let pending = 0;
  let insert: StatementSync | undefined;
  let index: StatementSync | undefined;

  function open(): GpkgLayout {
    if (layout === undefined) {
      // The run checked before any request; a caller that did not learns why here, not from SQLite.
      checkGpkgColumns(target, options.inputColumns(), options.jobColumns);
      // An earlier run's own columns (its output or report fed back) are not written again.
      const header = csvLayout(inputColumnsOnly(options.inputColumns()), options.jobColumns, [
        STATUS_COLUMN,
        ERROR_COLUMN,
      ]).header;
      layout = gpkgLayout(header, warn, new Set(options.jobColumns));
      kinds.push(...layout.keys.map((): ColumnKind => 'none'));
      createTable(file, table, layout);
    }
    keys = new Set(layout.keys);
    const names = [layout.fid, layout.geom, ...layout.names].map(quoteId);
    insert = file.db.prepare(
      `INSERT INTO ${quoteId(table)} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
    );
    index = file.db.prepare(`INSERT INTO ${quoteId(rtreeName(table, layout))} VALUES (?, ?, ?, ?, ?)`);
    return layout;
  }

  function add(l: GpkgLayout, object: Record<string, unknown>, outcome: Outcome, i: number) {
    const fid = records + 1;
    const values: SQLInputValue[] = [fid, null];
    const geometryValue = geometryOf(outcome, i);
    if (geometryValue !== null) {
      const encoded = encodeGeometry(geometryValue);
      values[1] = encoded.blob;
      noteGeometry(geometry, encoded);
      const e = encoded.envelope;
      if (e !== null) file.guard('Writing', () => index?.run(fid, e[0], e[2], e[1], e[3]));
    }
    for (let c = 0; c < l.keys.length; c++) {
      // Own values only (raw JSON numbers are objects here): not Object.prototype's `constructor`.
      const key = l.keys[c] as string;
      const value = Object.hasOwn(object, key) ? object[key] : undefined;
      const was = kinds[c] as ColumnKind;
      const kind = joinKinds(was, valueKind(value));
      if (kind !== was) {
        // Idempotent: if a crash comes after this but before the next checkpoint, the resumed run
        // reads the same rows again, meets the same value and converts what is left.
        if (kind === 'text' && was !== 'none') convertToText(file, table, l.names[c] as string, was);
        kinds[c] = kind;
      }
      values.push(bindValue(value, kind));
    }
    file.guard('Writing', () => insert?.run(...values));
    records++;
  }

  function countUnknownKeys(outcome: Outcome): void {
    for (const key in inputFields(outcome)) {
      if (keys.has(key) || isOwnColumn(key)) continue;
      if (unknownKeyRows++ === 0) {
        warn(
          `Row ${outcome.ref.index + 1} has key ${JSON.stringify(key)}, which is not among the GeoPackage columns ` +
            '(taken from the first row); such keys are left out of the GeoPackage and counted in the summary',
        );
      }
      return;
    }
  }

  return {
    write(outcome) {
      const l = insert === undefined ? open() : (layout as GpkgLayout);
      countUnknownKeys(outcome);
      file.begin();
      let i = 0;
      for (const object of outputObjects(outcome, options.jobColumns, 'text')) add(l, object, outcome, i++);
      pending += i;
      if (pending >= perTransaction) {
        file.commitPending();
        pending = 0;
      }
      return true;
    },
    flush() {
      file.commitPending();
      pending = 0;
      return true;
    },
    state() {
      file.commitPending();
      pending = 0;
      return structuredClone({ table, layout, kinds, geometry, records, unknownKeyRows });
    },
    // What a cut back needs: the feature count. The rest (column kinds, geometry facts) only grows
    // with rows, and is taken from the state when the mark is committed: the kinds then match the
    // file's columns, which rows past the mark may have converted to text.
    mark: () => ({ records, unknownKeyRows }),
    stats: () => ({ records, unknownKeyRows }),
    end() {
      const l = insert === undefined ? open() : (layout as GpkgLayout);
      finishTable(file, table, l, kinds, geometry);
    },
  };
}
