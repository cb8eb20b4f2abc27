/**
 * Builds the job a job file describes, through its kind's record. Knows no kind by name.
 */
import type { AnyJob } from '../engine/job.js';
import { ConfigError } from '../errors.js';
import { keyPath, refuse, requireOptions } from './_file-rules.js';
import { type KindContext, kindConstantIssue } from './_kind.js';
import type { JobClient } from './_ports.js';
import { JOB_KIND_NAMES, jobKind } from './registry.js';

export type { DecimalMark, FieldSource, Mapping } from './_fields.js';
// A library caller's mapping is written as a job file's and resolved here, the input's decimal mark with it.
export { resolveMapping } from './_fields.js';
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
  // Before the schema: a missing required option in the words a job file gets for it.
  refuse(name, requireOptions(kind.options, context.options));
  const parsed = kind.options.safeParse(context.options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = keyPath(['options', ...(issue?.path ?? [])]);
    throw new ConfigError(`${name}: ${path}: ${issue?.message ?? 'invalid'}`, { path });
  }
  // The one rule every kind has that its create does not hold itself (see defineJobKind).
  refuse(name, kindConstantIssue(kind, parsed.data, context.mapping));
  return kind.create({ ...context, options: parsed.data });
}

/** A client that refuses every call: building a job to learn its columns must send nothing. */
const NEVER_CALLED: JobClient = new Proxy(() => {}, {
  get: (_target, property) => (property === 'then' ? undefined : NEVER_CALLED),
  apply: () => {
    throw new Error('geobatch built this job only to learn its columns; it sends no request');
  },
}) as unknown as JobClient;

/**
 * The job of kind `name` built on a client that sends nothing, its side inputs read through
 * `context.readRows`: `geobatch validate`'s check of every row of a file the kind reads whole (a
 * matrix's destinations), in the run's own words.
 */
export function createOfflineJob(
  name: string,
  context: Omit<KindContext<unknown>, 'client'>,
): Promise<AnyJob> {
  return createJob(name, { ...context, client: NEVER_CALLED });
}

/**
 * The columns a job of kind `name` would add, learnt without reading anything or sending a
 * request: from the kind's `columns` when it has one (a kind whose job needs a side input read),
 * else by building the job on a client that is never called. A broken rule is thrown as `createJob`
 * throws it.
 */
export async function jobColumns(
  name: string,
  context: Pick<KindContext<unknown>, 'mapping' | 'options' | 'endpoints'>,
): Promise<readonly string[]> {
  const kind = jobKind(name);
  const parsed = kind?.options.safeParse(context.options ?? {});
  if (kind?.columns !== undefined && parsed?.success === true) return kind.columns(parsed.data);
  const job = await createJob(name, {
    ...context,
    client: NEVER_CALLED,
    readRows: () => {
      throw new Error(`geobatch learns the columns of a ${name} job without reading its side inputs`);
    },
    resolvePath: (path) => path,
  });
  return job.columns;
}
