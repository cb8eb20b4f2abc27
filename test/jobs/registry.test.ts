import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { jobFileSchema } from '../../src/config/schema.js';
import { jobKindTable, withJobTable } from '../../src/jobs/_docs.js';
import { JOB_KIND_NAMES, JOB_KINDS, jobKind } from '../../src/jobs/index.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the job kind registry', () => {
  it('names each kind once', () => {
    expect(new Set(JOB_KIND_NAMES).size).toBe(JOB_KINDS.length);
  });

  it('documents every option of every kind, and no option the schema does not have', () => {
    for (const kind of JOB_KINDS) {
      expect(Object.keys(kind.docs.options).sort(), kind.name).toEqual(
        Object.keys(kind.options.shape).sort(),
      );
    }
  });

  it('admits a job file of each kind through the schema the registry assembles', () => {
    for (const kind of JOB_KINDS) {
      const options = kind.name === 'address-search' ? { branches: '100' } : undefined;
      const mapping = kind.mappingRequired ? { [kind.mappingFields[0]]: 'a' } : undefined;
      const parsed = jobFileSchema.safeParse({
        job: kind.name,
        input: 'in.csv',
        output: 'out.csv',
        mapping,
        options,
      });
      expect(parsed.success, `${kind.name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it('says what each required option is, for the message a file without it gets', () => {
    for (const kind of JOB_KINDS) {
      const shape = kind.options.shape as Record<string, z.ZodType>;
      for (const [key, schema] of Object.entries(shape)) {
        if (!schema.safeParse(undefined).success)
          expect(schema.description, `${kind.name}.${key}`).toBeTruthy();
      }
    }
  });

  it('refuses a kind no record has, naming the kinds there are', () => {
    const parsed = jobFileSchema.safeParse({ job: 'teleport', input: 'in.csv', output: 'out.csv' });
    expect(parsed.success).toBe(false);
    expect(jobKind('teleport')).toBeUndefined();
  });

  it('is what the README’s job table says (regenerate with npm run docs)', () => {
    expect(withJobTable(README)).toBe(README);
    expect(README).toContain(jobKindTable());
  });

  it('lists every kind in the README’s job-file example', () => {
    const line = README.slice(README.indexOf('job: geocode'), README.indexOf('description:'));
    for (const name of JOB_KIND_NAMES) expect(line, name).toContain(name);
  });
});
