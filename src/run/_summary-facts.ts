/**
 * The run's summary, seen from the composition root: the facts every run has, what an input
 * without rows and a stop without checkpoint mean for it, and where it is written.
 */
import type { EngineCounters } from '../engine/counters.js';
import { type GeobatchError, InputError, isGeobatchError, withContext } from '../errors.js';
import type { InputReader } from '../input/reader.js';
import { selectionSummary } from '../input/sample.js';
import {
  type RunSummary,
  type RunWarning,
  type SummaryFacts,
  summaryPath,
  writeSummary,
} from '../output/summary.js';
import { swappedWarnings } from './_swapped-points.js';
import type { RunSpec } from './spec.js';

/** The summary facts every run has, dry or not. */
export function common(
  spec: RunSpec,
  reader: InputReader,
  error: unknown,
  counts: EngineCounters,
  peakRss: number,
) {
  const selection = selectionSummary(spec.rows);
  return {
    job: spec.job.kind,
    dryRun: spec.dryRun === true,
    error,
    input: {
      path: spec.input.path,
      format: spec.input.format,
      bytes: reader.sizeBytes ?? null,
      truncated: reader.truncated(),
      blankLines: reader.lineCounts().blank,
      ...(selection === undefined ? {} : { selection }),
    },
    counts,
    client: spec.metrics?.() ?? null,
    cache: spec.cache?.summary() ?? null,
    peakRssBytes: peakRss,
    warnings: [...crsWarnings(reader), ...swappedWarnings(spec.points)],
    estimate: null,
  } satisfies Partial<SummaryFacts>;
}

/** The input's `crs` member, read after its features, that names a system geobatch does not read. */
function crsWarnings(reader: InputReader): RunWarning[] {
  const declared = reader.declaredCrs?.();
  return declared === undefined ? [] : [{ kind: 'input-crs', message: declared.message, crs: declared.crs }];
}

/** What an input read to its end without a record is: `is empty (0 bytes)` or `has no data rows`. */
export function emptiness(reader: InputReader): string {
  return reader.sizeBytes === 0 || reader.bytesRead() === 0 ? 'is empty (0 bytes)' : 'has no data rows';
}

/** An input without a data row: usually an upstream failure, so the run says so (exit 4). */
export function noRows(spec: RunSpec, reader: InputReader): GeobatchError {
  const shown = spec.input.path === '-' ? 'standard input' : spec.input.path;
  return new InputError('INPUT_EMPTY', `The input ${shown} ${emptiness(reader)}`, {
    file: spec.input.path,
    hint: 'An empty input is usually a failure of whatever produced it; check that step.',
  });
}

/**
 * With no checkpoint kept, "rerun with --resume" would send the user after nothing: the parts of
 * the hint that say so go, the rest stays ("check the URL and the password, then run the
 * coordinator again with --resume" keeps "check the URL and the password").
 */
export function withoutResumeHint(error: unknown): unknown {
  if (!isGeobatchError(error) || error.context.hint?.includes('--resume') !== true) return error;
  const { hint, ...context } = error.context;
  const kept = withoutResume(hint);
  return withContext(error, kept === '' ? context : { ...context, hint: kept });
}

/** The sentences or clauses of `hint` that do not send the user to --resume. */
export function withoutResume(hint: string): string {
  const parts: string[] = [];
  const sentences = hint.split(/(?<=[.;])\s+/);
  for (const [i, sentence] of sentences.entries()) {
    if (!sentence.includes('--resume')) parts.push(sentence);
    else {
      const before = sentence.split(/,\s*then\s/)[0] ?? '';
      // Followed by more, the clause keeps its sentence's end: "A, then --resume; B" is "A; B".
      const end = i < sentences.length - 1 ? (/[.;]$/.exec(sentence)?.[0] ?? '') : '';
      if (before !== sentence && !before.includes('--resume')) parts.push(`${before}${end}`);
    }
  }
  return parts
    .join(' ')
    .replace(/[;,:]\s*$/, '')
    .trim();
}

export function clientRequests(spec: RunSpec): number | undefined {
  const total = (spec.metrics?.() as { requests?: { total?: unknown } } | undefined)?.requests?.total;
  return typeof total === 'number' ? total : undefined;
}

export function summaryFileOf(spec: RunSpec): string | null {
  if (spec.summaryPath !== undefined) return spec.summaryPath;
  return spec.output.path === '-' ? null : summaryPath(spec.output.path);
}

/** Writes the summary file; the summary returned names it only when it was written. */
export async function writeSummaryFile(spec: RunSpec, summary: RunSummary): Promise<RunSummary> {
  if (summary.summaryFile === null) return summary;
  try {
    await writeSummary(summary.summaryFile, summary);
    return summary;
  } catch (error) {
    spec.logger.error({ err: error }, 'The run summary could not be written');
    return { ...summary, summaryFile: null };
  }
}
