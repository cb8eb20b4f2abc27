/**
 * Scenario 3, rate-bound: the emulator allows 200 requests/s (token bucket, burst 200, 429 +
 * Retry-After beyond). With the client at 200/s it should use the whole allowance; set to 400/s
 * it should converge on the limit (AIMD) without losing a row and with few 429s.
 */
import path from 'node:path';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { type GeobatchRun, runGeobatch, slim } from './_geobatch.js';
import { writeGeocodeInput, writeJob } from './_inputs.js';
import { count, fixed, showSpread, spread } from './_stats.js';
import type { BenchContext, ScenarioResult, Table } from './_types.js';

const LIMIT = 200;
const RATE_TARGET = 0.95 * LIMIT;
const MAX_429_SHARE = 0.05;
/** The first second holds both buckets' initial burst; the steady part starts after it. */
const SKIP_MS = 1000;

interface RateRun {
  readonly clientRate: number;
  readonly run: GeobatchRun;
  readonly requests: number;
  readonly ok: number;
  readonly throttled: number;
  /** Answered 200 per second in the steady part. */
  readonly steadyRate: number;
  /** Answered 200 per second over the whole run (first to last request). */
  readonly wholeRate: number;
  readonly lostRows: number;
}

function measure(clientRate: number, run: GeobatchRun, log: readonly RequestLogEntry[]): RateRun {
  const first = log[0]?.receivedAt ?? 0;
  const last = log[log.length - 1]?.receivedAt ?? first;
  const from = first + SKIP_MS;
  const steadyOk = log.filter((e) => e.outcome === 200 && e.receivedAt >= from).length;
  const ok = log.filter((e) => e.outcome === 200).length;
  const { rows } = run.summary;
  return {
    clientRate,
    run,
    requests: log.length,
    ok,
    throttled: log.filter((e) => e.outcome === 429).length,
    steadyRate: steadyOk / ((last - from) / 1000),
    wholeRate: ok / ((last - first) / 1000),
    // Every address of the input geocodes, so any row not ok (or not written) is lost.
    lostRows: rows.read - rows.ok,
  };
}

async function once(ctx: BenchContext, job: string, clientRate: number, rep: number): Promise<RateRun> {
  await ctx.emulator.setFaults({ rateLimit: { rps: LIMIT } });
  await ctx.emulator.resetStats();
  const run = await runGeobatch({
    job,
    output: path.join(ctx.dir, `rate-${clientRate}-${rep}.csv`),
    env: ctx.emulator.env,
    rate: clientRate,
  });
  const result = measure(clientRate, run, await ctx.emulator.requestLog());
  ctx.log(
    `  client ${clientRate}/s: steady ${fixed(result.steadyRate, 1)}/s, ${result.throttled} x 429 of ${result.requests}, lost ${result.lostRows}`,
  );
  return result;
}

export async function rate(ctx: BenchContext): Promise<ScenarioResult> {
  const rows = ctx.quick ? 800 : 3_000;
  const reps = ctx.quick ? 1 : 2;
  const input = path.join(ctx.dir, `rate-geocode-${rows}.csv`);
  await writeGeocodeInput(input, rows);
  const job = await writeJob(ctx.dir, 'rate-geocode', {
    job: 'geocode',
    input,
    output: path.join(ctx.dir, 'rate.csv'),
    mapping: { street: 'street', houseNo: 'housenumber', zip: 'plz', city: 'city', country: { value: 'DE' } },
  });
  const at200: RateRun[] = [];
  const at400: RateRun[] = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      at200.push(await once(ctx, job, LIMIT, rep));
      at400.push(await once(ctx, job, 2 * LIMIT, rep));
    }
  } finally {
    await ctx.emulator.setFaults({});
  }
  return report(rows, reps, at200, at400);
}

function report(rows: number, reps: number, at200: RateRun[], at400: RateRun[]): ScenarioResult {
  const steady200 = spread(at200.map((r) => r.steadyRate));
  const steady400 = spread(at400.map((r) => r.steadyRate));
  const share400 = spread(at400.map((r) => r.throttled / r.requests));
  const lost = [...at200, ...at400].reduce((sum, r) => sum + r.lostRows, 0);
  const lost400 = at400.reduce((sum, r) => sum + r.lostRows, 0);
  const line = (label: string, runs: RateRun[], steady: ReturnType<typeof spread>) => [
    label,
    showSpread(steady, 1),
    showSpread(spread(runs.map((r) => r.wholeRate)), 1),
    showSpread(spread(runs.map((r) => r.throttled)), 0),
    showSpread(spread(runs.map((r) => 100 * (r.throttled / r.requests))), 1, '%'),
    String(runs.reduce((sum, r) => sum + r.lostRows, 0)),
  ];
  const table: Table = {
    headers: [
      'client rate',
      'achieved, steady part (req/s)',
      'whole run (req/s)',
      '429s',
      '429 share',
      'rows lost',
    ],
    rows: [line(`${LIMIT}/s`, at200, steady200), line(`${2 * LIMIT}/s`, at400, steady400)],
  };
  return {
    id: 'rate',
    title: `3. Rate-bound: emulator limit ${LIMIT} requests/s, ${count(rows)} rows`,
    tables: [table],
    targets: [
      {
        name: `achieved rate, client at ${LIMIT}/s`,
        target: `>= ${RATE_TARGET} req/s`,
        measured: `${showSpread(steady200, 1)} req/s`,
        met: steady200.median >= RATE_TARGET,
      },
      {
        name: `client at ${2 * LIMIT}/s: rows lost`,
        target: '0',
        measured: String(lost400),
        met: lost400 === 0,
      },
      {
        name: `client at ${2 * LIMIT}/s: 429 share`,
        target: `<= ${100 * MAX_429_SHARE}%`,
        measured: showSpread(
          { ...share400, median: 100 * share400.median, min: 100 * share400.min, max: 100 * share400.max },
          1,
          '%',
        ),
        met: share400.median <= MAX_429_SHARE && share400.max <= MAX_429_SHARE,
      },
    ],
    notes: [
      `${reps} run(s) at each client rate, alternating; geocoding ${count(rows)} distinct addresses (one request per row), \`--rate 200\` or \`--rate 400\` (the client's global limit; its burst defaults to a tenth of a second's worth), default concurrency and AIMD settings.`,
      `Achieved rate = answers with status 200 per second, from the emulator's request log, counted from ${SKIP_MS / 1000} s after the first request to the last request: the first second holds the initial burst both token buckets allow (the emulator's is a whole second's worth), which would flatter the figure. The whole-run column includes that burst.`,
      `Every address of the input geocodes, so a row counts as lost unless it is in the output with status ok; rows lost over all runs: ${lost}. The achieved rate is read from millisecond timestamps, so 200.1 is 200 within the log's resolution.`,
    ],
    raw: {
      rows,
      at200: at200.map((r) => ({ ...r, run: slim(r.run) })),
      at400: at400.map((r) => ({ ...r, run: slim(r.run) })),
    },
  };
}
