/**
 * Job files of several steps: `steps:` instead of `job:`, each step a kind with its mapping and
 * options, run in one pass (src/engine/pipeline.ts). A step is checked by its kind's own schema,
 * exactly as a one-job file is, so a key means the same in both forms.
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { keyPath } from '../jobs/_file-rules.js';
import { mappingSchema } from '../jobs/_options.js';
import { JOB_KINDS, type JobKind, jobKind } from '../jobs/index.js';
import { common } from './schema.js';

/** Step names appear in the error report and the summary: short, and safe as column text. */
const stepName = z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only');

function stepSchema(kind: JobKind) {
  return z.strictObject({
    job: z.literal(kind.name),
    /** @default the kind's name */
    name: stepName.optional(),
    // Both optional for every kind: a missing block is read as {}, and the kind's file rules
    // (src/jobs/_kind.ts: requireOptions, its own, requireMapping) name the key it lacks and what
    // it is, in a one-job file and a step alike, where the schema could say only "expected object".
    mapping: mappingSchema(kind.mappingFields).optional(),
    options: kind.options.optional(),
  });
}

const stepSchemas = JOB_KINDS.map(stepSchema);

export const stepsFileSchema = z.strictObject({
  ...common,
  steps: z
    .array(
      z.discriminatedUnion(
        'job',
        stepSchemas as unknown as [ReturnType<typeof stepSchema>, ...ReturnType<typeof stepSchema>[]],
      ),
    )
    .min(1, 'at least one step'),
});

export type StepsFile = z.infer<typeof stepsFileSchema>;
export type StepDocument = StepsFile['steps'][number];

/** A step as the file gives it, before its mapping and side inputs are resolved. */
export interface StepSource {
  readonly name: string;
  readonly record: JobKind;
  readonly mapping: Readonly<Record<string, unknown>>;
  readonly options: Readonly<Record<string, unknown>>;
  /** Where it is in the file, for messages: `steps[1]`, or '' for a one-job file. */
  readonly path: string;
}

/** The steps of a validated file, named, with the rules across steps checked. */
export function stepSources(doc: StepsFile, shown: string): StepSource[] {
  const steps = doc.steps.map((step, i) => ({
    name: step.name ?? step.job,
    record: jobKind(step.job) as JobKind,
    mapping: (step.mapping ?? {}) as Record<string, unknown>,
    options: (step.options ?? {}) as Record<string, unknown>,
    path: keyPath(['steps', i]),
  }));
  const seen = new Map<string, string>();
  for (const step of steps) {
    const before = seen.get(step.name);
    if (before !== undefined) {
      throw new ConfigError(`${shown}: ${step.path}.name: \`${step.name}\` names ${before} already`, {
        file: shown,
        path: `${step.path}.name`,
        expected: 'a name of its own for each step (two steps of one kind need a `name`)',
        received: step.name,
      });
    }
    seen.set(step.name, step.path);
  }
  for (const step of steps.slice(0, -1)) {
    if (step.record.multipleRecords?.(step.options, step.mapping) === true) {
      throw new ConfigError(
        `${shown}: ${step.path}: the ${step.record.name} step writes several rows per input row, so it must be the last step`,
        {
          file: shown,
          path: step.path,
          expected: 'the step last, or options that write one row per input row',
          hint: 'a later step reads one row per input row; move this step to the end',
        },
      );
    }
  }
  return steps;
}
