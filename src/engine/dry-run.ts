/**
 * A dry run's stand-in for a job: plans, keys, batches and answers locally like the job, but
 * sends nothing. Run through the engine it counts exactly the batches a real run would send
 * (less any that `resolveLocally` would answer from real answers); `free` counts those among
 * them that the job says cost no request (Job.requestsFor), for the estimate, and `more` the
 * requests further pages could add (Job.requestsAtMost), Infinity when nothing bounds them.
 */
import type { AnyJob } from './job.js';

export interface DryRunTally {
  /** Batches the job answers without a request. */
  free: number;
  /** Requests beyond one a batch that the answers could ask for (further pages). */
  more: number;
}

export function dryRunJob(job: AnyJob, tally: DryRunTally = { free: 0, more: 0 }): AnyJob {
  return {
    kind: job.kind,
    columns: job.columns,
    ...(job.batching === undefined ? {} : { batching: job.batching }),
    plan: (row) => job.plan(row),
    key: (item) => job.key(item),
    ...(job.resolveLocally === undefined
      ? {}
      : { resolveLocally: (item: unknown) => job.resolveLocally?.(item) }),
    execute: (items) => {
      const counted = job.requestsFor?.(items) ?? 1;
      if (counted === 0) tally.free++;
      if (job.requestsAtMost !== undefined) tally.more += job.requestsAtMost(items) - counted;
      return Promise.resolve(new Map(items.map((item) => [job.key(item), { ok: true, value: undefined }])));
    },
    render: () => ({ ok: true, records: [{ columns: {} }] }),
  };
}
