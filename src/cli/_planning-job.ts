/**
 * A job built only to plan rows, as `geobatch init` tries a draft and `validate` looks at the first
 * rows: its client refuses every call, so that planning can never send a request, and it reads no
 * side input (a matrix's destinations come as none).
 */
import type { StepConfig } from '../config/load.js';
import type { AnyJob } from '../engine/job.js';
import { createJob, type JobClient } from '../jobs/index.js';

/** A client that refuses every call: planning a row must never send a request. */
const REFUSING: JobClient = new Proxy(() => {}, {
  get: (_target, property) => (property === 'then' ? undefined : REFUSING),
  apply: () => {
    throw new Error('planning sends no request');
  },
}) as unknown as JobClient;

export function planningJob(step: Pick<StepConfig, 'kind' | 'mapping' | 'options'>): Promise<AnyJob> {
  return createJob(step.kind, {
    client: REFUSING,
    mapping: step.mapping,
    options: step.options,
    endpoints: {},
    readRows: async function* () {},
    resolvePath: (path) => path,
  });
}
