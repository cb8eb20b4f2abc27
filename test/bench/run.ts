/**
 * `npm run bench`: builds (npm script), starts the emulator in its own process, runs the six
 * scenarios of issue 6, the faults scenario of issue 11, the nightly one of issue 13 and the
 * scale-out one of issue 15, and writes out/bench/results.json and out/bench/BENCHMARKS.tables.md.
 *
 *   npm run bench                       full run (the figures in BENCHMARKS.md)
 *   npm run bench -- --quick            smoke run: small inputs, one repetition
 *   npm run bench -- --only=overhead,memory
 *   npm run bench -- --only=faults
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startBenchEmulator } from './_emulator.js';
import { machine } from './_machine.js';
import { ROOT } from './_process.js';
import { renderMarkdown } from './_render.js';
import type { BenchContext, ScenarioResult } from './_types.js';
import { cost } from './cost.js';
import { faults } from './faults.js';
import { latency } from './latency.js';
import { memory } from './memory.js';
import { naive } from './naive.js';
import { nightly } from './nightly.js';
import { overhead } from './overhead.js';
import { rate } from './rate.js';
import { scaleOut } from './scale-out.js';

const SCENARIOS = {
  overhead,
  latency,
  rate,
  naive,
  memory,
  cost,
  faults,
  nightly,
  'scale-out': scaleOut,
} as const;
type ScenarioName = keyof typeof SCENARIOS;

function parseArgs(argv: readonly string[]) {
  const quick = argv.includes('--quick') || process.env.GEOBATCH_BENCH_QUICK === '1';
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const names = (only?.split(',') ?? Object.keys(SCENARIOS)) as ScenarioName[];
  const unknown = names.filter((n) => !(n in SCENARIOS));
  if (unknown.length > 0) {
    throw new Error(
      `Expected --only to name scenarios among ${Object.keys(SCENARIOS).join(', ')}, got \`${unknown.join(',')}\``,
    );
  }
  return { quick, names };
}

async function main() {
  const { quick, names } = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const about = await machine();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'geobatch-bench-'));
  const emulator = await startBenchEmulator();
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const ctx: BenchContext = { emulator, dir, quick, log };
  const results: ScenarioResult[] = [];
  try {
    for (const name of names) {
      log(`scenario ${name}...`);
      const t = performance.now();
      const result = await SCENARIOS[name](ctx);
      results.push({ ...result, seconds: Math.round((performance.now() - t) / 100) / 10 });
      log(`scenario ${name}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
  const totalSeconds = Math.round((performance.now() - started) / 100) / 10;
  const run = { ...about, quick, scenarios: names, totalSeconds };
  const outDir = path.join(ROOT, 'out/bench');
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify({ about: run, results }, null, 2)}\n`);
  const markdown = renderMarkdown(run, results);
  await writeFile(path.join(outDir, 'BENCHMARKS.tables.md'), markdown);
  process.stdout.write(markdown);
  log(`\nwrote out/bench/results.json and out/bench/BENCHMARKS.tables.md (${totalSeconds} s in all)`);
}

await main();
