/**
 * The run's watch on the points its steps read (src/jobs/_swapped.ts): a warning in the log once
 * the first rows look swapped, while a user can still stop the run, and the summary's warning at
 * the end, which the log, the run report and the closing lines repeat.
 */
import type { Logger } from 'pino';
import type { Mapping } from '../jobs/_fields.js';
import {
  mostlySwapped,
  readFromInput,
  type SwappedExample,
  SwappedPoints,
  swappedWarning,
} from '../jobs/_swapped.js';
import type { RunSummary, RunWarning } from '../output/summary.js';

/** One step's points, as its job reads them. */
export interface WatchedPoints {
  /** The step's name in a run of several; undefined for one job. */
  readonly step: string | undefined;
  readonly mapping: Mapping;
  readonly points: SwappedPoints;
}

/** A watch for a step's points that warns in `logger` when its first EARLY_ROWS rows look swapped. */
export function watchPoints(step: string | undefined, mapping: Mapping, logger: Logger): WatchedPoints {
  const named = step === undefined ? {} : { step };
  const points = new SwappedPoints(
    (count) => {
      if (mostlySwapped(count) && readFromInput(count.example as SwappedExample, mapping))
        logger.warn(
          { event: 'coordinates-swapped' },
          swappedWarning(count, mapping, { early: true, ...named }),
        );
    },
    // Read whole before the first row: told at once, and again with the run's final figures.
    (side) =>
      logger.warn(
        { event: 'coordinates-swapped', sideInput: side.key },
        swappedWarning(side.count, side.mapping, { early: true, ...named, sideInput: side }),
      ),
  );
  return { step, mapping, points };
}

/** The summary's warnings: a step whose rows were mostly read swapped. */
export function swappedWarnings(watched: readonly WatchedPoints[] | undefined): RunWarning[] {
  const warnings: RunWarning[] = [];
  for (const { step, mapping, points } of watched ?? []) {
    const count = points.count();
    if (!mostlySwapped(count) || !readFromInput(count.example as SwappedExample, mapping)) continue;
    const named = step === undefined ? {} : { step };
    warnings.push({
      kind: 'coordinates-swapped',
      message: swappedWarning(count, mapping, named),
      ...named,
      rows: count.swapped,
      rowsRead: count.rows,
      exampleRow: (count.example as SwappedExample).row.ref.index + 1,
    });
  }
  for (const { step, points } of watched ?? [])
    for (const side of points.sideInputs()) {
      const named = step === undefined ? {} : { step };
      warnings.push({
        kind: 'coordinates-swapped',
        message: swappedWarning(side.count, side.mapping, { ...named, sideInput: side }),
        ...named,
        sideInput: side.key,
        rows: side.count.swapped,
        rowsRead: side.count.rows,
        exampleRow: (side.count.example as SwappedExample).row.ref.index + 1,
      });
    }
  return warnings;
}

/** The summary's warnings in the log, as the run's final figures give them. */
export function logWarnings(summary: RunSummary, logger: Logger): RunSummary {
  for (const warning of summary.warnings ?? []) logger.warn({ event: warning.kind }, warning.message);
  return summary;
}
