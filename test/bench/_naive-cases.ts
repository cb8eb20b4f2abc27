/** Scenario 4's inputs and geobatch job files: the samples with their own jobs, and generated inputs. */
import path from 'node:path';
import { writeCustomerInput, writeJob, writePointInput } from './_inputs.js';
import { ROOT } from './_process.js';
import { count } from './_stats.js';
import type { BenchContext } from './_types.js';

export type Kind = 'elevation' | 'boundaries' | 'customer-lookup';

export interface Case {
  readonly kind: Kind;
  readonly label: string;
  readonly input: string;
  readonly job: string;
}

export function sampleCases(): Case[] {
  const at = (dir: string, file: string) => path.join(ROOT, dir, file);
  return [
    {
      kind: 'elevation',
      label: 'samples/places.csv',
      input: at('samples', 'places.csv'),
      job: at('jobs', 'elevation.yaml'),
    },
    {
      kind: 'boundaries',
      label: 'samples/places.geojson',
      input: at('samples', 'places.geojson'),
      job: at('jobs', 'boundaries.yaml'),
    },
    {
      kind: 'customer-lookup',
      label: 'samples/suppliers.csv',
      input: at('samples', 'suppliers.csv'),
      job: at('jobs', 'customer-lookup.yaml'),
    },
  ];
}

/** Generated inputs of `rows` rows with job files using the settings of the repository's jobs. */
export async function generatedCases(
  ctx: BenchContext,
  rows: number,
  keys: readonly string[],
): Promise<Case[]> {
  const points = path.join(ctx.dir, `naive-points-${rows}.csv`);
  await writePointInput(points, rows, 4);
  const customers = path.join(ctx.dir, `naive-customers-${rows}.csv`);
  await writeCustomerInput(customers, rows, keys);
  const job = (name: string, input: string, doc: Record<string, unknown>) =>
    writeJob(ctx.dir, `naive-${name}-${rows}`, {
      ...doc,
      input,
      output: path.join(ctx.dir, `naive-${name}.csv`),
    });
  const mapping = { lon: 'lon', lat: 'lat' };
  const label = `generated, ${count(rows)} rows`;
  return [
    {
      kind: 'elevation',
      label,
      input: points,
      job: await job('elevation', points, { job: 'elevation', mapping, options: { batchSize: 500 } }),
    },
    {
      kind: 'boundaries',
      label,
      input: points,
      job: await job('boundaries', points, {
        job: 'boundaries',
        mapping,
        options: { levels: [4, 6], batchSize: 100, spatialIndex: true },
      }),
    },
    {
      kind: 'customer-lookup',
      label,
      input: customers,
      job: await job('customers', customers, {
        job: 'customer-lookup',
        mapping: { key: 'supplier_key' },
        options: { batchSize: 50 },
      }),
    },
  ];
}
