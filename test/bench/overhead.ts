/**
 * Scenario 1, overhead: geobatch geocoding N distinct addresses against a bare undici loop sending
 * the same N requests at the same concurrency, no added latency, runs alternated (A B, B A...).
 */
import path from 'node:path';
import { type BareRun, bareLoop } from './_bare.js';
import { type GeobatchRun, runGeobatch, slim } from './_geobatch.js';
import { writeGeocodeInput, writeJob } from './_inputs.js';
import { count, fixed, type Spread, showSpread, spread } from './_stats.js';
import type { BenchContext, ScenarioResult } from './_types.js';

/** Issue 17: geobatch's rows/s over the bare loop's, the run itself (its summary timing). */
const TARGET = 0.85;
const CONCURRENCY = 16;

export async function overhead(ctx: BenchContext): Promise<ScenarioResult> {
  const rows = ctx.quick ? 10_000 : 100_000;
  const reps = ctx.quick ? 1 : 3;
  const input = path.join(ctx.dir, `geocode-${rows}.csv`);
  await writeGeocodeInput(input, rows);
  const warmInput = path.join(ctx.dir, 'geocode-warm.csv');
  await writeGeocodeInput(warmInput, 5_000);
  const job = await writeJob(ctx.dir, 'overhead-geocode', {
    job: 'geocode',
    input,
    output: path.join(ctx.dir, 'overhead.csv'),
    mapping: { street: 'street', houseNo: 'housenumber', zip: 'plz', city: 'city', country: { value: 'DE' } },
  });
  await ctx.emulator.setFaults({});
  // Warms the emulator's JIT for both sides; not measured.
  await bareLoop(ctx, warmInput, CONCURRENCY);

  const bare: BareRun[] = [];
  const geobatch: GeobatchRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const runGb = () =>
      runGeobatch({
        job,
        output: path.join(ctx.dir, `overhead-${rep}.csv`),
        env: ctx.emulator.env,
        concurrency: CONCURRENCY,
      });
    // Alternate who goes first, so that drift on a shared machine does not favour one side.
    if (rep % 2 === 0) {
      bare.push(await bareLoop(ctx, input, CONCURRENCY));
      geobatch.push(await runGb());
    } else {
      geobatch.push(await runGb());
      bare.push(await bareLoop(ctx, input, CONCURRENCY));
    }
    const g = geobatch[rep] as GeobatchRun;
    const b = bare[rep] as BareRun;
    ctx.log(
      `  rep ${rep + 1}: bare ${fixed(b.loopMs / 1000)} s, geobatch ${fixed(g.wallMs / 1000)} s end to end (${fixed(g.runMs / 1000)} s run)`,
    );
  }
  return report(rows, reps, bare, geobatch);
}

function report(rows: number, reps: number, bare: BareRun[], geobatch: GeobatchRun[]): ScenarioResult {
  const pairs = bare.map((b, i) => ({ b, g: geobatch[i] as GeobatchRun }));
  const endToEnd = spread(pairs.map(({ b, g }) => b.loopMs / g.wallMs));
  const excludingStartup = spread(pairs.map(({ b, g }) => b.loopMs / g.runMs));
  const rate = (ms: number[]): Spread => spread(ms.map((m) => rows / (m / 1000)));
  const requests = geobatch.map((g) => g.summary.client.requests.total);
  const sameRequests = requests.every((r) => r === rows) && bare.every((b) => b.requests === rows);
  return {
    id: 'overhead',
    title: `1. Overhead: geocoding ${count(rows)} distinct addresses, no added latency, concurrency ${CONCURRENCY}`,
    tables: [
      {
        headers: ['', 'rows/s (median, range)', 'requests per run'],
        rows: [
          ['bare undici loop (same requests)', showSpread(rate(bare.map((b) => b.loopMs)), 0), count(rows)],
          [
            'geobatch, spawn to exit',
            showSpread(rate(geobatch.map((g) => g.wallMs)), 0),
            count(requests[0] ?? 0),
          ],
          ['geobatch, run only (summary timing)', showSpread(rate(geobatch.map((g) => g.runMs)), 0), ''],
        ],
      },
      {
        headers: ['ratio geobatch / bare loop', 'median (range)', 'target', 'met'],
        rows: [
          ['end to end (spawn to exit; reference)', showSpread(endToEnd), '', ''],
          [
            'run only (excluding start-up): the target',
            showSpread(excludingStartup),
            `>= ${TARGET}`,
            excludingStartup.median >= TARGET ? 'yes' : 'no',
          ],
        ],
      },
    ],
    targets: [
      {
        name: 'rows/s ratio (run only)',
        target: `>= ${TARGET}`,
        measured: showSpread(excludingStartup),
        met: excludingStartup.median >= TARGET && sameRequests,
      },
    ],
    notes: [
      `${reps} pairs of runs, alternating which side goes first; medians of the per-pair ratios.`,
      'Both sides send the same requests: one POST /geocode per row with the same headers and body bytes (checked once against a capture), every address distinct so dedup saves nothing; ' +
        `requests counted per run: geobatch ${requests.join(', ')}, bare loop ${bare.map((b) => b.requests).join(', ')}.`,
      'The bare loop builds its bodies before its clock starts and is timed from its first request to its last answer (its start-up is not charged to it); geobatch is timed from spawn to exit (end to end) and by its summary (reading, requests, writing).',
      'Emulator, geobatch and the bare loop share the two cores; the emulator process is the same for both sides.',
    ],
    raw: { rows, concurrency: CONCURRENCY, bare, geobatch: geobatch.map(slim), endToEnd, excludingStartup },
  };
}
