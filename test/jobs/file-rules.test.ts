import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadJobFile } from '../../src/config/load.js';
import { ConfigError, isGeobatchError } from '../../src/errors.js';
import { resolveMapping } from '../../src/jobs/_fields.js';
import { defineJobKind } from '../../src/jobs/_kind.js';
import type { JobClient } from '../../src/jobs/index.js';
import { createJob, jobColumns } from '../../src/jobs/index.js';
import { createMatrixJob } from '../../src/jobs/matrix.js';
import { BROKEN_RULES, HEAD, jobDir, KEPT_RULES } from './_file-rules-cases.js';

const dir = jobDir();
afterAll(() => dir.remove());

async function refusal(load: () => Promise<unknown>): Promise<ConfigError> {
  const error = await load().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof ConfigError) return error;
  throw new Error(`expected a ConfigError, got ${String(error)}`);
}

const calls: string[] = [];
/** A client that records any call: none of these tests may send a request. */
const client = new Proxy(() => {}, {
  get: (_target, property) => (property === 'then' ? undefined : client),
  apply: () => {
    calls.push('call');
  },
}) as unknown as JobClient;

describe('rules across a job file’s mapping and options, checked when it is loaded', () => {
  for (const [i, rule] of BROKEN_RULES.entries()) {
    it(`refuses ${rule.title}, naming the file, the path, what was expected and what came`, async () => {
      const file = dir.write(`broken-${i}.yaml`, `${HEAD}${rule.body}`);
      const error = await refusal(() => loadJobFile(file));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(`${file}: ${rule.path}: ${rule.message}`);
      expect(error.context).toMatchObject({ file, path: rule.path, received: rule.received });
    });
  }

  it('loads the same kinds when their mapping and options keep the rules', async () => {
    for (const [i, body] of KEPT_RULES.entries()) {
      const file = dir.write(`kept-${i}.yaml`, `${HEAD}${body}`);
      await expect(loadJobFile(file), body).resolves.toMatchObject({ file });
    }
  });
});

describe('the same rules for a job built in code', () => {
  const oneJob = BROKEN_RULES.filter((rule) => rule.body.startsWith('job:'));

  for (const rule of oneJob) {
    it(`refuses ${rule.title} in the words the job file gets, with the kind for the file`, async () => {
      const doc = parse(rule.body) as { job: string; mapping?: object; options?: object };
      const error = await refusal(async () =>
        createJob(doc.job, {
          client,
          mapping: resolveMapping(doc.mapping as Record<string, unknown>),
          options: doc.options ?? {},
          endpoints: {},
          readRows: async function* () {},
          resolvePath: (path) => path,
        }),
      );
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(`${doc.job}: ${rule.path}: ${rule.message}`);
      expect(error.context).toMatchObject({ path: rule.path, received: rule.received });
    });
  }

  it('names an item of a list option by its index in brackets, as the job file’s message does', async () => {
    const error = await refusal(async () =>
      createJob('boundaries', {
        client,
        mapping: resolveMapping({ lon: 'x', lat: 'y' }),
        options: { levels: [4, 'x'] },
        endpoints: {},
        readRows: async function* () {},
        resolvePath: (path) => path,
      }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('options.levels[1]');
    expect(error.message).toMatch(/^boundaries: options\.levels\[1\]: /);
  });
});

describe('a kind without default columns, whose own rules say nothing of an empty mapping', () => {
  const kind = (mappingRequired: boolean) =>
    defineJobKind({
      name: 'probe',
      summary: 'a kind for this test',
      mappingFields: ['a', 'b'],
      mappingRequired,
      options: z.strictObject({}),
      services: [],
      docs: { mapping: '`a` or `b`', options: {} },
      create: () => {
        throw new Error('not built here');
      },
    });

  it('is refused a missing mapping by its record, saying what the kind reads', () => {
    expect(kind(true).checkFile?.({ mapping: {}, options: {} })).toEqual({
      path: 'mapping',
      expected: 'expected the columns the probe job reads (`a` or `b`), got none',
      received: 'nothing',
      hint: 'add a mapping: block naming the columns (field: <column>)',
    });
  });

  it('is not refused once a field is mapped, nor when it has default columns', () => {
    expect(kind(true).checkFile?.({ mapping: { b: 'x' }, options: {} })).toBeUndefined();
    expect(kind(false).checkFile?.({ mapping: {}, options: {} })).toBeUndefined();
  });
});

describe('jobColumns', () => {
  it('learns a matrix job’s columns without reading its destinations, as the built job names them', async () => {
    const options = { prefix: 'm_', destinations: { path: 'no-such-file.csv' } };
    const cross = createMatrixJob(client, {
      mapping: {},
      prefix: 'm_',
      destinations: [{ id: 'S1', point: [8.4, 49] }],
    });
    await expect(jobColumns('matrix', { mapping: {}, options, endpoints: {} })).resolves.toEqual(
      cross.columns,
    );
    const pairs = { destinationLon: { column: 'a' }, destinationLat: { column: 'b' } };
    await expect(jobColumns('matrix', { mapping: pairs, options: {}, endpoints: {} })).resolves.toEqual(
      createMatrixJob(client, { mapping: pairs }).columns,
    );
  });

  it('learns the other kinds’ columns by building them on a client it never calls', async () => {
    const columns = await jobColumns('customer-lookup', {
      mapping: { key: { column: 'k' } },
      options: { fields: ['company', 'ymid'] },
      endpoints: {},
    });
    expect(columns).toEqual(['cust_company', 'cust_ymid', 'cust_matches']);
    expect(calls).toEqual([]);
  });

  it('throws a broken rule as building the job would', async () => {
    const error = await refusal(async () => jobColumns('match', { mapping: {}, options: {}, endpoints: {} }));
    expect(isGeobatchError(error) && error.context.path).toBe('mapping.track');
  });
});
