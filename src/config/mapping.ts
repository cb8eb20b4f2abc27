/**
 * A library caller's mapping, checked as a job file's is before it is resolved: the loader's own
 * schema pieces, constants rule and words (load.ts, _issues.ts), so that `{ colum: plz }` or
 * `lon: 5` is refused in code as in a file, not dropped.
 */
import { z } from 'zod';
import { type DecimalMark, type Mapping, resolveMapping as resolveChecked } from '../jobs/_fields.js';
import { decimalMark, mappingSchema } from '../jobs/_options.js';
import { JOB_KINDS, jobKind } from '../jobs/registry.js';
import { toConfigError } from './_issues.js';
import { keysAt, schemaKeys } from './_suggest.js';
import { refuseBadConstants } from './load.js';

/** Every field some kind's mapping may name: without a kind, a key none knows is a misspelt one. */
const ANY_FIELDS = [...new Set(JOB_KINDS.flatMap((kind) => kind.mappingFields))] as [string, ...string[]];

const argumentsSchema = z.strictObject({
  mapping: mappingSchema(ANY_FIELDS).optional(),
  decimal: decimalMark.optional(),
});

/** `document` parsed by `schema` or refused in the loader's words, `shown` naming who refuses. */
function check(schema: z.ZodType, document: Record<string, unknown>, shown: string): void {
  refuseBadConstants(document, shown);
  const parsed = schema.safeParse(document);
  if (parsed.success) return;
  const keysHere = (path: readonly PropertyKey[]) => keysAt(schema, document, path);
  throw toConfigError(shown, document, parsed.error.issues, schemaKeys(schema), keysHere);
}

/**
 * A mapping as the job file writes it (`zip: plz`, `{ column: plz }`, `{ value: DE }`), checked as
 * the job file's is and resolved; with `decimal`, the input's cells are read with that mark.
 */
export function resolveMapping(
  mapping: Readonly<Record<string, unknown>> | undefined,
  decimal?: DecimalMark,
): Mapping {
  check(argumentsSchema, { mapping, decimal }, 'resolveMapping');
  return resolveChecked(mapping, decimal);
}

/** A resolved mapping's fields checked against the kind's, as a job file of that kind checks them. */
export function refuseMappingKeys(kind: string, mapping: unknown): void {
  const fields = jobKind(kind)?.mappingFields;
  if (fields === undefined) return;
  const schema = z.strictObject({ mapping: mappingSchema(fields).optional() });
  check(
    schema,
    { mapping: typeof mapping === 'object' && mapping !== null ? { ...mapping } : mapping },
    kind,
  );
}
