/**
 * Builds the job a job file describes, through its kind's record. Knows no kind by name.
 */
import type { AnyJob } from '../engine/job.js';
import { ConfigError } from '../errors.js';
import type { KindContext } from './_kind.js';
import { JOB_KIND_NAMES, jobKind } from './registry.js';

export type { JobKind, KindContext, ServiceName, SideInput } from './_kind.js';
export type { JobClient } from './_ports.js';
export { JOB_KIND_NAMES, JOB_KINDS, jobKind } from './registry.js';

/**
 * The job of kind `name`, its options checked against the kind's schema (a job file's are checked
 * when it is loaded; a library caller's here).
 */
export async function createJob(name: string, context: KindContext<unknown>): Promise<AnyJob> {
  const kind = jobKind(name);
  if (kind === undefined) {
    throw new ConfigError(`unknown job kind \`${name}\``, {
      path: 'job',
      expected: JOB_KIND_NAMES.join(', '),
      received: name,
    });
  }
  const parsed = kind.options.safeParse(context.options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ['options', ...(issue?.path ?? []).map(String)].join('.');
    throw new ConfigError(`${name}: ${path}: ${issue?.message ?? 'invalid'}`, { path });
  }
  return kind.create({ ...context, options: parsed.data });
}
