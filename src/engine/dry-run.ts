/**
 * A dry run's stand-in for a job: plans, keys, batches and answers locally like the job, but
 * sends nothing. Run through the engine it counts exactly the batches a real run would send
 * (less any that `resolveLocally` would answer from real answers); `free` counts those among
 * them that the job says cost no request (Job.requestsFor) or fails whole without one
 * (Job.refusedBatch: its rows fail here too), for the estimate, `beyond` the requests past one a
 * batch the job says it costs (Job.requestsFor: one GET a level for each boundaries point), and
 * `more` the requests further pages could add (Job.requestsAtMost), Infinity when nothing bounds
 * them.
 */
import type { AnyJob } from './job.js';

export interface DryRunTally {
  /** Batches the job answers without a request. */
  free: number;
  /** Requests beyond one a batch that the answers could ask for (further pages). */
  more: number;
  /** Requests beyond one a batch that the job says a batch costs before any answer. */
  beyond: number;
  /** Batches that went to `execute`, refused ones left out. */
  batches: number;
}

export function dryRunJob(
  job: AnyJob,
  tally: DryRunTally = { free: 0, more: 0, beyond: 0, batches: 0 },
): AnyJob {
  return {
    kind: job.kind,
    columns: job.columns,
    ...(job.batching === undefined ? {} : { batching: job.batching }),
    plan: (row) => job.plan(row),
    key: (item) => job.key(item),
    // The end of the input ends the last group, as in a run: a trip is whole only then.
    ...(job.inputEnded === undefined ? {} : { inputEnded: () => job.inputEnded?.() }),
    ...(job.resolveLocally === undefined
      ? {}
      : { resolveLocally: (item: unknown) => job.resolveLocally?.(item) }),
    execute: (items) => {
      const refused = job.refusedBatch?.(items);
      if (refused !== undefined) {
        tally.free++;
        return Promise.resolve(
          new Map(items.map((item) => [job.key(item), { ok: false, failure: refused }])),
        );
      }
      const counted = job.requestsFor?.(items, tally.batches) ?? 1;
      tally.batches++;
      if (counted === 0) tally.free++;
      else tally.beyond += counted - 1;
      if (job.requestsAtMost !== undefined) tally.more += job.requestsAtMost(items) - counted;
      return Promise.resolve(new Map(items.map((item) => [job.key(item), { ok: true, value: undefined }])));
    },
    // A row fails here only by a batch the job refuses whole (refusedBatch above).
    render: (_row, results) => {
      const refused = results.find((result) => !result.ok);
      return refused === undefined || refused.ok
        ? { ok: true, records: [{ columns: {} }] }
        : { ok: false, failure: refused.failure };
    },
  };
}
