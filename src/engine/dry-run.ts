/**
 * A dry run's stand-in for a job: plans, keys, batches and answers locally like the job, but
 * sends nothing. Run through the engine it counts exactly the requests a real run would send
 * (less any that `resolveLocally` would answer from real answers).
 */
import type { AnyJob } from './job.js';

export function dryRunJob(job: AnyJob): AnyJob {
  return {
    kind: job.kind,
    columns: job.columns,
    ...(job.batching === undefined ? {} : { batching: job.batching }),
    plan: (row) => job.plan(row),
    key: (item) => job.key(item),
    ...(job.resolveLocally === undefined
      ? {}
      : { resolveLocally: (item: unknown) => job.resolveLocally?.(item) }),
    execute: (items) =>
      Promise.resolve(new Map(items.map((item) => [job.key(item), { ok: true, value: undefined }]))),
    render: () => ({ ok: true, records: [{ columns: {} }] }),
  };
}
