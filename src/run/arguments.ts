/**
 * The library's entries checked at run time: a caller's arguments are not typed there, and what
 * is wrong is refused before anything is built, in the words a job file gets for the same.
 */
import { refuseMappingKeys } from '../config/mapping.js';
import type { AnyJob } from '../engine/job.js';
import { createJob as buildJob, type KindContext } from '../jobs/index.js';

/**
 * The job of kind `name` (createJob in src/jobs), its mapping's fields checked against the kind's
 * as a job file's are: `street` in an elevation job's mapping is refused, not ignored.
 */
export async function createJob(name: string, context: KindContext<unknown>): Promise<AnyJob> {
  refuseMappingKeys(name, context.mapping);
  return buildJob(name, context);
}
