/**
 * A job built only to plan rows, as `geobatch init` tries a draft and `validate` looks at the first
 * rows: its client refuses every call, so that planning can never send a request, and it reads no
 * side input (a matrix's destinations come as none).
 */
import type { StepConfig } from '../config/load.js';
import type { AnyJob } from '../engine/job.js';
import type { KindContext } from '../jobs/_kind.js';
import { createJob, type JobClient } from '../jobs/index.js';

/** A client that refuses every call: planning a row must never send a request. */
const REFUSING: JobClient = new Proxy(() => {}, {
  get: (_target, property) => (property === 'then' ? undefined : REFUSING),
  apply: () => {
    throw new Error('planning sends no request');
  },
}) as unknown as JobClient;

/**
 * `sides`: how the job reads its side inputs (run/assemble.ts, sideInputReader), for `validate`,
 * which plans a matrix's rows against its destinations as the run does; none without.
 */
export function planningJob(
  step: Pick<StepConfig, 'kind' | 'mapping' | 'options'>,
  sides?: Pick<KindContext<unknown>, 'readRows' | 'resolvePath'>,
): Promise<AnyJob> {
  return createJob(step.kind, {
    client: REFUSING,
    mapping: step.mapping,
    options: step.options,
    endpoints: {},
    readRows: sides?.readRows ?? async function* () {},
    resolvePath: sides?.resolvePath ?? ((path) => path),
  });
}
