/**
 * Scenario 7, nightly: the same 100,000 addresses geocoded night after night through the request
 * cache. What the second night sends (nothing), what a night with 1% changed rows sends (1%), how
 * fast a fully cached run is against a bare CSV pass over the same file (side by side, alternated),
 * and whether a cache of 1,000,000 entries costs memory (peak RSS against an empty cache).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fillCache } from './_cache-fill.js';
import { type GeobatchRun, runGeobatch, slim } from './_geobatch.js';
import { writeGeocodeInput, writeJob } from './_inputs.js';
import { expectExit, runNode } from './_process.js';
import { count, fixed, megabytes, showSpread, spread } from './_stats.js';
import type { BenchContext, ScenarioResult } from './_types.js';

const SPEED_TARGET = 0.5;
const MEMORY_TARGET = 1.2;
const CHANGED_SHARE = 0.01;

interface BareRun {
  readonly ms: number;
  readonly wallMs: number;
  readonly rows: number;
}

/** A yardstick script (bare-csv.mjs, pipeline-ceiling.mjs) over `input`, timed by itself. */
async function yardstick(script: string, input: string, output: string): Promise<BareRun> {
  const run = await runNode({ args: [`test/bench/${script}`, input, output] });
  expectExit(run, [0], script);
  const { ms, rows } = JSON.parse(run.stdout) as { ms: number; rows: number };
  await rm(output, { force: true });
  return { ms, rows, wallMs: run.wallMs };
}

/** The input with every 100th row's street changed: 1% new addresses. */
async function changeRows(input: string, output: string): Promise<number> {
  const lines = (await readFile(input, 'utf8')).trimEnd().split('\n');
  let changed = 0;
  const out = lines.map((line, i) => {
    if (i === 0 || i % Math.round(1 / CHANGED_SHARE) !== 0) return line;
    changed++;
    const cells = line.split(',');
    cells[1] = `Neue Straße ${i}`;
    return cells.join(',');
  });
  await writeFile(output, `${out.join('\n')}\n`);
  return changed;
}

/** The same addresses with other house numbers: a night on which every row is new. */
async function otherNight(input: string, output: string, night: number): Promise<void> {
  const lines = (await readFile(input, 'utf8')).trimEnd().split('\n');
  const out = lines.map((line, i) => {
    if (i === 0) return line;
    const cells = line.split(',');
    cells[2] = String(night * 1_000_000 + i);
    return cells.join(',');
  });
  await writeFile(output, `${out.join('\n')}\n`);
}

const requestsOf = (run: GeobatchRun) => run.summary.client.requests.total;
const cacheOf = (run: GeobatchRun) =>
  (
    run.summary as unknown as {
      cache: { hits: number; misses: number; writes: number; requestsSaved: number };
    }
  ).cache;

export async function nightly(ctx: BenchContext): Promise<ScenarioResult> {
  const rows = ctx.quick ? 10_000 : 100_000;
  const entries = ctx.quick ? 100_000 : 1_000_000;
  const reps = ctx.quick ? 1 : 3;
  const input = path.join(ctx.dir, `nightly-${rows}.csv`);
  await writeGeocodeInput(input, rows);
  const changedInput = path.join(ctx.dir, 'nightly-changed.csv');
  const changedRows = await changeRows(input, changedInput);
  const job = await writeJob(ctx.dir, 'nightly-geocode', {
    job: 'geocode',
    input,
    output: path.join(ctx.dir, 'nightly.csv'),
    mapping: { street: 'street', houseNo: 'housenumber', zip: 'plz', city: 'city', country: { value: 'DE' } },
  });
  await ctx.emulator.setFaults({});
  const cache = path.join(ctx.dir, 'nightly-cache.sqlite');
  const run = (name: string, o: { input?: string; cache: string }) =>
    runGeobatch({
      job,
      output: path.join(ctx.dir, `${name}.csv`),
      env: ctx.emulator.env,
      allowedExit: [0, 3],
      ...o,
    });

  // Nights 1 to 3 on one cache: everything new, nothing new, 1% new.
  const first = await run('night1', { cache });
  const second = await run('night2', { cache });
  const third = await run('night3', { input: changedInput, cache });
  ctx.log(
    `  requests: first ${requestsOf(first)}, second ${requestsOf(second)}, 1% changed ${requestsOf(third)}`,
  );

  // Speed: a fully cached run against a bare CSV pass over the same file, and the pipeline with
  // its answers in memory for reference; the order rotates between repetitions.
  const bare: BareRun[] = [];
  const ceiling: BareRun[] = [];
  const cached: GeobatchRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const sides = [
      async () => bare.push(await yardstick('bare-csv.mjs', input, path.join(ctx.dir, `bare-${rep}.csv`))),
      async () => cached.push(await run(`warm-${rep}`, { cache })),
      async () =>
        ceiling.push(
          await yardstick('pipeline-ceiling.mjs', input, path.join(ctx.dir, `ceiling-${rep}.csv`)),
        ),
    ];
    for (let k = 0; k < sides.length; k++) await sides[(rep + k) % sides.length]?.();
    const b = bare[rep] as BareRun;
    const g = cached[rep] as GeobatchRun;
    const c = ceiling[rep] as BareRun;
    ctx.log(
      `  rep ${rep + 1}: bare CSV ${fixed(b.ms / 1000)} s, cached geobatch ${fixed(g.runMs / 1000)} s run, answers in memory ${fixed(c.ms / 1000)} s`,
    );
  }

  // Memory: a night on which every row is new, with an empty cache and with a cache of 1M entries.
  const big = path.join(ctx.dir, 'nightly-big.sqlite');
  const filled = performance.now();
  await fillCache(big, ctx.emulator.origin, entries);
  ctx.log(
    `  filled a cache with ${count(entries)} entries in ${fixed((performance.now() - filled) / 1000)} s`,
  );
  const empty: GeobatchRun[] = [];
  const full: GeobatchRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const nightInput = path.join(ctx.dir, `nightly-new-${rep}.csv`);
    await otherNight(input, nightInput, rep + 1);
    const emptyCache = path.join(ctx.dir, `nightly-empty-${rep}.sqlite`);
    const onEmpty = () => run(`empty-${rep}`, { input: nightInput, cache: emptyCache });
    const onFull = () => run(`full-${rep}`, { input: nightInput, cache: big });
    if (rep % 2 === 0) {
      empty.push(await onEmpty());
      full.push(await onFull());
    } else {
      full.push(await onFull());
      empty.push(await onEmpty());
    }
    for (const suffix of ['', '-wal', '-shm']) await rm(`${emptyCache}${suffix}`, { force: true });
    ctx.log(
      `  rep ${rep + 1}: peak RSS empty cache ${megabytes(empty[rep]?.maxRssBytes ?? 0)}, ${count(entries)}-entry cache ${megabytes(full[rep]?.maxRssBytes ?? 0)}`,
    );
  }
  // The last night again on the big cache: every row from a cache of more than 1M entries.
  const warmOnBig = await run('warm-big', {
    input: path.join(ctx.dir, `nightly-new-${reps - 1}.csv`),
    cache: big,
  });
  return report({
    rows,
    entries,
    reps,
    changedRows,
    first,
    second,
    third,
    ceiling,
    bare,
    cached,
    empty,
    full,
    warmOnBig,
  });
}

interface Measured {
  readonly rows: number;
  readonly entries: number;
  readonly reps: number;
  readonly changedRows: number;
  readonly first: GeobatchRun;
  readonly second: GeobatchRun;
  readonly third: GeobatchRun;
  readonly bare: readonly BareRun[];
  readonly ceiling: readonly BareRun[];
  readonly cached: readonly GeobatchRun[];
  readonly empty: readonly GeobatchRun[];
  readonly full: readonly GeobatchRun[];
  readonly warmOnBig: GeobatchRun;
}

function report(m: Measured): ScenarioResult {
  const perSecond = (rows: number, ms: number) => rows / (ms / 1000);
  const runRatios = m.bare.map(
    (b, i) => perSecond(m.rows, m.cached[i]?.runMs ?? Infinity) / perSecond(b.rows, b.ms),
  );
  const wallRatios = m.bare.map(
    (b, i) => perSecond(m.rows, m.cached[i]?.wallMs ?? Infinity) / perSecond(b.rows, b.wallMs),
  );
  const speed = spread(runRatios);
  const rss = (runs: readonly GeobatchRun[]) => spread(runs.map((r) => r.maxRssBytes / 1024 / 1024));
  const memory = spread(m.full.map((f, i) => f.maxRssBytes / (m.empty[i]?.maxRssBytes ?? Infinity)));
  const nights = [
    ['1. every row new (empty cache)', m.first],
    ['2. the same file again', m.second],
    [`3. ${count(m.changedRows)} rows (1%) changed`, m.third],
  ] as const;
  return {
    id: 'nightly',
    title: `7. Nightly: ${count(m.rows)} addresses geocoded night after night through the request cache`,
    tables: [
      {
        headers: [
          'night',
          'HTTP requests',
          'items from the cache',
          'requests saved',
          'answers written',
          'seconds (run)',
        ],
        rows: nights.map(([name, r]) => [
          name,
          count(requestsOf(r)),
          count(cacheOf(r).hits),
          count(cacheOf(r).requestsSaved),
          count(cacheOf(r).writes),
          fixed(r.runMs / 1000),
        ]),
      },
      {
        caption: 'A fully cached run against a bare CSV pass over the same file, in rotating rounds:',
        headers: ['', 'rows/s, run only (median, range)', 'rows/s, spawn to exit'],
        rows: [
          [
            'bare CSV pass (csv-parse -> csv-stringify)',
            showSpread(spread(m.bare.map((b) => perSecond(b.rows, b.ms))), 0),
            showSpread(spread(m.bare.map((b) => perSecond(b.rows, b.wallMs))), 0),
          ],
          [
            'geobatch, every row from the cache',
            showSpread(spread(m.cached.map((g) => perSecond(m.rows, g.runMs))), 0),
            showSpread(spread(m.cached.map((g) => perSecond(m.rows, g.wallMs))), 0),
          ],
          ['ratio geobatch / bare', showSpread(speed), showSpread(spread(wallRatios))],
          [
            'reference: geobatch with every answer in memory (no cache, no request)',
            showSpread(spread(m.ceiling.map((c) => perSecond(c.rows, c.ms))), 0),
            '',
          ],
          [
            'ratio answers in memory / bare',
            showSpread(
              spread(
                m.bare.map(
                  (b, i) => perSecond(m.rows, m.ceiling[i]?.ms ?? Infinity) / perSecond(b.rows, b.ms),
                ),
              ),
            ),
            '',
          ],
          [
            "ratio geobatch from the cache / answers in memory (the cache's own cost)",
            showSpread(spread(m.ceiling.map((c, i) => c.ms / (m.cached[i]?.runMs ?? Infinity)))),
            '',
          ],
        ],
      },
      {
        caption: `Peak RSS (kernel maxrss) of a night on which all ${count(m.rows)} rows are new:`,
        headers: ['cache before the run', 'peak RSS (median, range)', 'seconds (run)'],
        rows: [
          [
            'empty',
            showSpread(rss(m.empty), 0, ' MB'),
            showSpread(spread(m.empty.map((r) => r.runMs / 1000))),
          ],
          [
            `${count(m.entries)} entries`,
            showSpread(rss(m.full), 0, ' MB'),
            showSpread(spread(m.full.map((r) => r.runMs / 1000))),
          ],
          ['ratio', showSpread(memory), ''],
          [
            `${count(m.entries + m.reps * m.rows)} entries, the last night again: every row from the cache (reference)`,
            megabytes(m.warmOnBig.maxRssBytes),
            fixed(m.warmOnBig.runMs / 1000),
          ],
        ],
      },
    ],
    targets: [
      {
        name: 'second run: HTTP requests',
        target: '0',
        measured: count(requestsOf(m.second)),
        met: requestsOf(m.second) === 0,
      },
      {
        name: '1% of rows changed: requests / first run',
        target: 'about 1%',
        measured: `${fixed((requestsOf(m.third) / requestsOf(m.first)) * 100)}%`,
        met: Math.abs(requestsOf(m.third) / requestsOf(m.first) - CHANGED_SHARE) <= CHANGED_SHARE * 0.1,
      },
      {
        name: 'fully cached rows/s / bare CSV pass rows/s (run only)',
        target: `>= ${SPEED_TARGET}`,
        measured: showSpread(speed),
        met: speed.median >= SPEED_TARGET,
      },
      {
        name: `peak RSS, ${count(m.entries)}-entry cache / empty cache`,
        target: `<= ${MEMORY_TARGET}`,
        measured: showSpread(memory),
        met: memory.median <= MEMORY_TARGET,
      },
    ],
    notes: [
      `geocode job over ${count(m.rows)} distinct addresses (the overhead scenario's input), default settings, the cache an SQLite file in the bench's temp dir (\`--cache\`); HTTP requests are the client's own count. Night 3 changes the street of every 100th row.`,
      `Speed: ${m.reps} round(s) of three runs, rotating which goes first; the bare pass (test/bench/bare-csv.mjs) is timed from its first byte read to its last byte written, geobatch by its summary (reading, cache lookups, rendering, writing); both also spawn to exit. Ratios are medians of the per-round ratios. The reference (test/bench/pipeline-ceiling.mjs) runs the same geocode job through geobatch's runJob with one fixed answer given locally: what a cached run would reach if its lookups cost nothing.`,
      `Memory: ${m.reps} pair(s) of nights on which every row is new (the house numbers changed), so both sides send ${count(m.rows)} requests and write ${count(m.rows)} answers; one starts with an empty cache file, the other with ${count(m.entries)} (and more each pair) entries under the same service and operation, filled directly (test/bench/_cache-fill.ts).`,
    ],
    raw: {
      nights: nights.map(([name, r]) => ({ name, ...slim(r), cache: cacheOf(r) })),
      bare: m.bare,
      ceiling: m.ceiling,
      cached: m.cached.map(slim),
      empty: m.empty.map(slim),
      full: m.full.map(slim),
      warmOnBig: slim(m.warmOnBig),
    },
  };
}
