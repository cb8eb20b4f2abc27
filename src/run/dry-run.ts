/** `--dry-run`: the whole input read, planned, deduplicated and batched; nothing sent or written. */

import { keptAroundClient } from '../cache/run-cache.js';
import { createCounters } from '../engine/counters.js';
import { dryRunJob } from '../engine/dry-run.js';
import { processRows } from '../engine/engine.js';
import { openReader } from '../input/open.js';
import { groupsOf, selectRows } from '../input/sample.js';
import { buildSummary, type RunSummary } from '../output/summary.js';
import { common, noRows } from './_summary-facts.js';
import { logWarnings } from './_swapped-points.js';
import { checkInput } from './mapped-columns.js';
import { sampleMemory } from './memory.js';
import type { RunSpec } from './spec.js';

/** Reads, plans, dedups and batches with a job that sends nothing; writes nothing, takes no lock. */
export async function dryRun(spec: RunSpec): Promise<RunSummary> {
  const started = Date.now();
  const opened = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: (message) => spec.logger.warn(message),
  });
  const checked = checkInput(spec.mapped, opened, (message) => spec.logger.warn(message));
  const reader = selectRows(checked, spec.rows, groupsOf(spec.job));
  const counters = createCounters();
  const tally = { free: 0, more: 0, beyond: 0, batches: 0 };
  const memory = sampleMemory();
  let error: unknown;
  // A later step's items come from the answers to the steps before it, which a dry run does not
  // have: it plans the first step exactly and says so.
  const first = spec.steps?.[0];
  if (first !== undefined) {
    spec.logger.warn(
      `Dry run of ${spec.steps?.length} steps: only the first (${first.name}) is planned; the later steps' requests depend on its answers`,
    );
  }
  // The first step's own cache: a pipeline's engine options carry none (each step has its own).
  const answers = first === undefined ? spec.engine?.answers : first.answers;
  const job = first?.job ?? spec.job;
  const kind = job.kind;
  const kept = keptAroundClient(kind);
  if (spec.cache !== undefined && kept !== undefined) {
    spec.logger.warn(
      `Dry run of ${kind}: the request cache is not read for it (it keeps ${kept}); a run sends none of the requests it holds`,
    );
  }
  try {
    const outcomes = processRows(reader, dryRunJob(job, tally), {
      ...spec.engine,
      ...(answers === undefined ? {} : { answers }),
      signal: spec.signal,
      counters,
    });
    for await (const _ of outcomes); // Only the counts matter.
  } catch (caught) {
    error = caught;
  }
  memory.stop();
  const rate = spec.requestsPerSecond;
  const requests = counters.requestsSent - tally.free + tally.beyond;
  // A job whose requests depend on its answers gives the fewest and its rule: the count is "at least".
  const rule = tally.batches === 0 ? undefined : job.requestsRule?.(tally.batches);
  if (error === undefined && counters.rowsRead === 0) error = noRows(spec, reader);
  const summary = buildSummary({
    ...common(spec, reader, error, counters, memory.peakRss()),
    outputs: [],
    report: null,
    summaryFile: null,
    runReport: null,
    httpRequests: 0,
    rowsWritten: 0,
    unknownKeyRows: 0,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    session: { ms: Date.now() - started, rows: counters.rowsEmitted, requests: 0 },
    resume: { resumed: false, fromRow: 0, checkpoint: null, next: null },
    estimate: {
      requests,
      requestsAtMost: Number.isFinite(tally.more) && rule === undefined ? requests + tally.more : null,
      ...(rule === undefined ? {} : { requestsRule: rule }),
      requestsPerSecond: rate ?? null,
      seconds: rate === undefined ? null : Math.ceil(requests / rate),
      ...(first === undefined ? {} : { firstStepOf: { step: first.name, steps: spec.steps?.length ?? 1 } }),
    },
  });
  return logWarnings(summary, spec.logger);
}
