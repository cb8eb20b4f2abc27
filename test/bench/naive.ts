/**
 * Scenario 4, the naive way side by side: the same inputs through geobatch and through a
 * straightforward p-map script (naive-script.mjs), same concurrency, same emulator, alternating.
 * Requests and time as ratios naive / geobatch: at loopback speed, and with 20 ms per answer.
 */
import path from 'node:path';
import { type GeobatchRun, runGeobatch, slim } from './_geobatch.js';
import { supplierKeys } from './_inputs.js';
import { type Case, generatedCases, sampleCases } from './_naive-cases.js';
import { expectExit, runNode } from './_process.js';
import { count, fixed, showSpread, spread } from './_stats.js';
import type { BenchContext, ScenarioResult, Table } from './_types.js';

const CONCURRENCY = 16;
const LATENCY_MS = 20;
interface NaiveRun {
  readonly wallMs: number;
  readonly elapsedMs: number;
  readonly rows: number;
  readonly requests: number;
  readonly byStatus: Record<string, number>;
}

interface Pair {
  readonly naive: NaiveRun;
  readonly geobatch: GeobatchRun;
}

async function naiveRun(ctx: BenchContext, c: Case, output: string): Promise<NaiveRun> {
  const args = ['test/bench/naive-script.mjs', c.kind, ctx.emulator.origin, c.input, output];
  const run = await runNode({ args: [...args, String(CONCURRENCY)] });
  expectExit(run, [0], `naive ${c.kind}`);
  return { ...(JSON.parse(run.stdout) as Omit<NaiveRun, 'wallMs'>), wallMs: run.wallMs };
}

async function runCases(ctx: BenchContext, cases: readonly Case[], reps: number, tag: string) {
  const pairs = new Map<Case, Pair[]>(cases.map((c) => [c, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, c] of cases.entries()) {
      const out = path.join(ctx.dir, `naive-${tag}-${i}-${rep}`);
      const gb = () =>
        runGeobatch({
          job: c.job,
          input: c.input,
          output: `${out}.geobatch.csv`,
          env: ctx.emulator.env,
          concurrency: CONCURRENCY,
          allowedExit: [0, 3],
        });
      // Alternate who goes first, so that drift on a shared machine favours neither.
      const early = rep % 2 === 1 ? await gb() : undefined;
      const naiveResult = await naiveRun(ctx, c, `${out}.naive.csv`);
      const pair = { naive: naiveResult, geobatch: early ?? (await gb()) };
      pairs.get(c)?.push(pair);
      ctx.log(
        `  ${tag} ${c.kind} ${c.label}: naive ${pair.naive.requests} req ${fixed(pair.naive.wallMs / 1000)} s, geobatch ${pair.geobatch.summary.client.requests.total} req ${fixed(pair.geobatch.wallMs / 1000)} s`,
      );
    }
  }
  return pairs;
}

export async function naive(ctx: BenchContext): Promise<ScenarioResult> {
  const rows = ctx.quick ? 2_000 : 20_000;
  const slowRows = ctx.quick ? 500 : 5_000;
  const reps = ctx.quick ? 1 : 2;
  await ctx.emulator.setFaults({});
  const keys = await supplierKeys(ctx.emulator.origin, `Basic ${btoa('demo-partner:demo-partner-key')}`);
  const fast = await runCases(
    ctx,
    [...sampleCases(), ...(await generatedCases(ctx, rows, keys))],
    reps,
    'fast',
  );
  await ctx.emulator.setFaults({ latency: { fixedMs: LATENCY_MS, jitterMs: 0 } });
  let slow: Map<Case, Pair[]>;
  try {
    slow = await runCases(ctx, await generatedCases(ctx, slowRows, keys), 1, 'slow');
  } finally {
    await ctx.emulator.setFaults({});
  }
  return {
    id: 'naive',
    title: `4. The naive way side by side: one request per row with p-map, concurrency ${CONCURRENCY}`,
    tables: [
      table(fast, `No added latency, ${reps} pair(s) of runs:`),
      table(slow, `Every answer ${LATENCY_MS} ms late, one pair:`),
    ],
    targets: [],
    notes: [
      `First table: no added latency, ${reps} pair(s) of runs per input, alternating which goes first. Second table: every answer ${LATENCY_MS} ms late (closer to a real service), one pair per input. Times are spawn to exit for both sides (both plain \`node\`), medians with ranges.`,
      'The naive script (test/bench/naive-script.mjs) reads the file with csv-parse, maps the rows with p-map at the same concurrency, sends one fetch per row (elevation: GET one point; boundaries: GET /Boundaries/point per row for level 4 and for level 6; customer lookup: ByCustomerId per key), and writes a CSV. geobatch runs the repository job files on the samples, and the same settings on the generated inputs: elevation 500 points a request, boundaries 100 points a POST plus its spatial index, customer lookup 50 keys a request plus dedup.',
      `Generated inputs: points jittered by up to ~2 km around GeoNames places (practically all distinct), and supplier keys drawn with replacement from the ${count(keys.length)} keys the emulator knows (so keys repeat, as in real customer lists; dedup answers the repeats). geobatch's customer-lookup request count varies a little between runs: a partial batch leaves when its linger time runs out, which depends on timing.`,
      'Without latency the naive script is bounded by how fast the emulator answers on the shared two cores, and geobatch pays its ~0.4 s start-up on inputs that take it under a second; with latency, the naive time grows with its request count and the time ratio moves toward the request ratio.',
    ],
    raw: {
      fast: rawOf(fast),
      slow: rawOf(slow),
    },
  };
}

function table(pairs: Map<Case, Pair[]>, caption: string): Table {
  const ratio = (runs: Pair[], f: (p: Pair) => number) => showSpread(spread(runs.map(f)), 1, 'x');
  return {
    caption,
    headers: [
      'job',
      'input',
      'rows',
      'requests naive',
      'requests geobatch',
      'requests naive / geobatch',
      'seconds naive',
      'seconds geobatch',
      'time naive / geobatch',
    ],
    rows: [...pairs.entries()].map(([c, runs]) => [
      c.kind,
      c.label,
      count(runs[0]?.geobatch.summary.rows.read ?? 0),
      showSpread(spread(runs.map((p) => p.naive.requests)), 0),
      showSpread(spread(runs.map((p) => p.geobatch.summary.client.requests.total)), 0),
      ratio(runs, (p) => p.naive.requests / p.geobatch.summary.client.requests.total),
      showSpread(spread(runs.map((p) => p.naive.wallMs / 1000))),
      showSpread(spread(runs.map((p) => p.geobatch.wallMs / 1000))),
      ratio(runs, (p) => p.naive.wallMs / p.geobatch.wallMs),
    ]),
  };
}

function rawOf(pairs: Map<Case, Pair[]>) {
  return [...pairs.entries()].map(([c, runs]) => ({
    kind: c.kind,
    input: c.label,
    runs: runs.map((p) => ({ naive: p.naive, geobatch: slim(p.geobatch) })),
  }));
}
