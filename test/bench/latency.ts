/**
 * Scenario 2, latency-bound: every answer takes 20 ms, 32 requests in flight. No client can beat
 * rows x 20 ms / 32; the ratio says how much of that bound geobatch reaches. The bare loop of
 * scenario 1 runs at the same settings beside it, as the bound a client can reach in practice.
 */
import path from 'node:path';
import { type BareRun, bareLoop } from './_bare.js';
import { type GeobatchRun, runGeobatch, slim } from './_geobatch.js';
import { writeGeocodeInput, writeJob } from './_inputs.js';
import { count, fixed, type Spread, showSpread, spread } from './_stats.js';
import type { BenchContext, ScenarioResult } from './_types.js';

/** Issue 17: the bound over geobatch's own run time (its summary timing). */
const TARGET = 0.95;
const LATENCY_MS = 20;
const CONCURRENCY = 32;

/** Mean time the emulator held a request (arrival to answer, to the microsecond), latency included. */
async function heldMs(ctx: BenchContext): Promise<number> {
  const log = await ctx.emulator.requestLog();
  const total = log.reduce((sum, e) => sum + (e.heldMs ?? 0), 0);
  return total / Math.max(1, log.length);
}

export async function latency(ctx: BenchContext): Promise<ScenarioResult> {
  const rows = ctx.quick ? 4_000 : 20_000;
  const reps = ctx.quick ? 1 : 3;
  const input = path.join(ctx.dir, `latency-geocode-${rows}.csv`);
  await writeGeocodeInput(input, rows);
  const job = await writeJob(ctx.dir, 'latency-geocode', {
    job: 'geocode',
    input,
    output: path.join(ctx.dir, 'latency.csv'),
    mapping: { street: 'street', houseNo: 'housenumber', zip: 'plz', city: 'city', country: { value: 'DE' } },
  });
  await ctx.emulator.setFaults({ latency: { fixedMs: LATENCY_MS, jitterMs: 0 } });
  const runs: GeobatchRun[] = [];
  const bare: BareRun[] = [];
  const held: number[] = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const gb = async () => {
        await ctx.emulator.resetStats();
        const output = path.join(ctx.dir, `latency-${rep}.csv`);
        runs.push(await runGeobatch({ job, output, env: ctx.emulator.env, concurrency: CONCURRENCY }));
        held.push(await heldMs(ctx));
      };
      if (rep % 2 === 1) await gb();
      bare.push(await bareLoop(ctx, input, CONCURRENCY));
      if (rep % 2 === 0) await gb();
      const run = runs[rep] as GeobatchRun;
      ctx.log(
        `  rep ${rep + 1}: geobatch ${fixed(run.wallMs / 1000)} s end to end, ${fixed(run.runMs / 1000)} s run; bare loop ${fixed((bare[rep]?.loopMs ?? 0) / 1000)} s`,
      );
    }
  } finally {
    await ctx.emulator.setFaults({});
  }
  return report(rows, reps, runs, bare, held);
}

function report(
  rows: number,
  reps: number,
  runs: GeobatchRun[],
  bare: BareRun[],
  held: number[],
): ScenarioResult {
  const boundMs = (rows * LATENCY_MS) / CONCURRENCY;
  const endToEnd = spread(runs.map((r) => boundMs / r.wallMs));
  const runOnly = spread(runs.map((r) => boundMs / r.runMs));
  const bareRatio = spread(bare.map((b) => boundMs / b.loopMs));
  const versusBare = spread(runs.map((r, i) => (bare[i]?.loopMs ?? 0) / r.wallMs));
  // The same clock on both sides: the bare loop's runs from its first request to its last answer,
  // geobatch's summary timing from opening the run to its summary. What the machine and the
  // emulator allow moves both alike; this is the share of it geobatch reaches.
  const runVersusBare = spread(runs.map((r, i) => (bare[i]?.loopMs ?? 0) / r.runMs));
  const heldMedian = spread(held);
  const seconds = (ms: number[]) => showSpread(spread(ms.map((m) => m / 1000)));
  const met = (s: Spread) => (s.median >= TARGET ? 'yes' : 'no');
  const requests = runs.map((r) => r.summary.client.requests.total);
  return {
    id: 'latency',
    title: `2. Latency-bound: ${LATENCY_MS} ms per answer, concurrency ${CONCURRENCY}, ${count(rows)} rows`,
    tables: [
      {
        headers: ['', 'seconds (median, range)', 'bound / elapsed', 'target', 'met'],
        rows: [
          [`bound: rows x ${LATENCY_MS} ms / ${CONCURRENCY}`, fixed(boundMs / 1000), '1', '', ''],
          [
            'geobatch, spawn to exit (reference)',
            seconds(runs.map((r) => r.wallMs)),
            showSpread(endToEnd, 3),
            '',
            '',
          ],
          [
            'geobatch, run only (summary timing): the target',
            seconds(runs.map((r) => r.runMs)),
            showSpread(runOnly, 3),
            `>= ${TARGET}`,
            met(runOnly),
          ],
          [
            'bare undici loop, same requests (reference)',
            seconds(bare.map((b) => b.loopMs)),
            showSpread(bareRatio, 3),
            '',
            '',
          ],
        ],
      },
      {
        headers: ['what limits the bound', 'measured'],
        rows: [
          [
            "emulator's mean time holding a request (arrival to answer)",
            `${fixed(heldMedian.median, 2)} ms (nominal ${LATENCY_MS})`,
          ],
          [
            `bound at that time: rows x ${fixed(heldMedian.median, 2)} ms / ${CONCURRENCY}`,
            `${fixed((rows * heldMedian.median) / CONCURRENCY / 1000)} s`,
          ],
          ['geobatch end to end / bare loop (same run)', showSpread(versusBare, 3)],
          ['geobatch run only / bare loop (same run)', showSpread(runVersusBare, 3)],
        ],
      },
    ],
    targets: [
      {
        name: 'bound / elapsed (run only)',
        target: `>= ${TARGET}`,
        // Three decimals: 0.9498 is not met, and two would show it as 0.95.
        measured: showSpread(runOnly, 3),
        met: runOnly.median >= TARGET,
      },
    ],
    notes: [
      `${reps} runs of geocoding ${count(rows)} distinct addresses (one request each: ${requests.join(', ')} requests), emulator latency fixed at ${LATENCY_MS} ms without jitter, \`--concurrency ${CONCURRENCY}\`, no rate limit; the bare loop alternates with geobatch.`,
      `The emulator answers ${LATENCY_MS} ms after a request arrives, its own work (the geocoding) done within them, and its timers make up for firing late or early, so it holds requests ${LATENCY_MS} ms on average (the row above; before stop 29 it added its work and its timers' lateness on top, about 1 ms a request). Loopback and the HTTP stack add their round trip on top. The bare loop shows what any client reaches here; geobatch's remaining gap to it is its own per-row work (building the request, parsing and checking the answer, rendering and writing CSV). Answers are processed a few a turn of the event loop after that turn's reads and writes (src/client/_turns.ts), so the next request does not wait for a burst of answers to be processed, but the work still takes CPU from the two cores geobatch shares with the emulator.`,
    ],
    raw: {
      rows,
      boundMs,
      heldMs: held,
      runs: runs.map(slim),
      bare,
      endToEnd,
      runOnly,
      bareRatio,
      versusBare,
      runVersusBare,
    },
  };
}
