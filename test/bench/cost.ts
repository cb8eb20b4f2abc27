/**
 * Scenario 6, cost: HTTP requests per 1,000 rows for every job kind, running the repository's own
 * job files on the samples exactly as a user would (`geobatch run jobs/<kind>.yaml`).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { type GeobatchRun, runGeobatch, slim } from './_geobatch.js';
import { ROOT } from './_process.js';
import { count, fixed } from './_stats.js';
import type { BenchContext, ScenarioResult } from './_types.js';

export async function cost(ctx: BenchContext): Promise<ScenarioResult> {
  await ctx.emulator.setFaults({});
  const files = (await readdir(path.join(ROOT, 'jobs'))).filter((f) => f.endsWith('.yaml')).sort();
  const runs: { file: string; run: GeobatchRun }[] = [];
  for (const file of files) {
    const run = await runGeobatch({
      job: path.join(ROOT, 'jobs', file),
      output: path.join(ctx.dir, `cost-${file.replace(/\.yaml$/, '')}.csv`),
      env: ctx.emulator.env,
      allowedExit: [0, 3],
    });
    runs.push({ file, run });
    const s = run.summary;
    ctx.log(`  ${file}: ${s.rows.read} rows, ${s.client.requests.total} requests`);
  }
  const retries = runs.reduce((sum, { run }) => sum + run.summary.client.retries.total, 0);
  return {
    id: 'cost',
    title: '6. Cost: HTTP requests per 1,000 rows, every job kind on the samples',
    tables: [
      {
        headers: [
          'job file',
          'rows',
          'output records',
          'HTTP requests',
          'requests per 1,000 rows',
          'requests per 1,000 output records',
          'items saved: dedup / batching / local answers',
          'naive: one request per row and step',
          'geobatch / naive',
        ],
        rows: runs.map(({ file, run }) => {
          const s = run.summary;
          const requests = s.client.requests.total;
          // The obvious script: one request per input row (per step of a pipeline, per matrix
          // pair), however the service could have batched or deduplicated them.
          const naive = naiveRequests(s);
          return [
            `jobs/${file}`,
            count(s.rows.read),
            count(s.output.records),
            count(requests),
            fixed((1000 * requests) / s.rows.read, 1),
            fixed((1000 * requests) / s.output.records, 1),
            `${count(s.requests.savedByDedup)} / ${count(s.requests.savedByBatching)} / ${count(s.requests.savedByLocalAnswers)}`,
            count(naive),
            fixed(requests / naive, 3),
          ];
        }),
      },
    ],
    targets: [],
    notes: [
      `HTTP requests = the client's own count (summary \`client.requests.total\`: every attempt, retries and token fetches included); no faults were set, and ${retries} attempt(s) were retried. Rows include the planted bad rows of the samples (they cost no request).`,
      'Matrix: a row is an origin (a depot), and each origin gives one output record per store (250), hence the per-record column. Address search writes one record per hit (mode explode).',
      'Naive = one request per row, per step of a pipeline, and per origin/destination pair of a matrix (its output records); the planted bad rows counted too, as a script that does not check its input would send them.',
      'Where the ratio is near 1,000 (geocode, reverse geocode, address search) the service takes one item per request and only duplicates are saved; elevation, boundaries and customer lookup batch, and boundaries also answers points inside areas it already holds.',
    ],
    raw: runs.map(({ file, run }) => ({ file, run: slim(run) })),
  };
}

function naiveRequests(s: GeobatchRun['summary']): number {
  const steps = s.steps?.length ?? 1;
  return s.job === 'matrix' ? s.output.records : s.rows.read * steps;
}
