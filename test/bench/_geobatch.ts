/** One `geobatch run` through the real entry point, as a user types it, with its summary read back. */
import { readFile, rm } from 'node:fs/promises';
import { CLI, expectExit, runNode } from './_process.js';

/** The parts of `<output>.summary.json` the bench reads. */
export interface Summary {
  job: string;
  ended: string;
  exitCode: number;
  rows: { read: number; written: number; ok: number; failed: number; failedByCode: Record<string, number> };
  output: { records: number };
  requests: { sent: number; savedByDedup: number; savedByBatching: number; savedByLocalAnswers: number };
  client: {
    requests: { total: number; byInterface: Record<string, Record<string, number>> };
    retries: { total: number; byCause: Record<string, number> };
    throttled429: number;
    /** Absent from summaries written before hedging existed. */
    hedges?: { sent: number; won: number };
  };
  timing: { durationMs: number; rowsPerSecond: number };
  memory: { peakRssBytes: number };
  /** A run of several steps. */
  steps?: readonly unknown[];
}

export interface GeobatchRun {
  /** Spawn to exit: what the user waits for, Node start-up and module loading included. */
  readonly wallMs: number;
  /** The run itself (summary.timing.durationMs): reading, requests, writing. */
  readonly runMs: number;
  readonly maxRssBytes: number;
  /** CPU time of the geobatch process, user plus system. */
  readonly cpuMs: number | undefined;
  readonly summary: Summary;
}

export interface GeobatchOptions {
  readonly job: string;
  readonly output: string;
  readonly env: Record<string, string>;
  readonly input?: string;
  readonly concurrency?: number;
  readonly rate?: number;
  /** Exit codes that count as a finished run (3: some rows failed, as planted in the samples). */
  readonly allowedExit?: readonly number[];
  /** Extra node flags (before the script), e.g. heap settings under investigation. */
  readonly nodeFlags?: readonly string[];
  /**
   * The request cache file; without it the run sends every request (`--no-cache`), so that a
   * scenario repeating a run measures the service path every time.
   */
  readonly cache?: string;
  /** Further `geobatch run` arguments (a distributed run's `--queue URL --no-work`). */
  readonly extraArgs?: readonly string[];
}

export async function runGeobatch(o: GeobatchOptions): Promise<GeobatchRun> {
  const args = [...(o.nodeFlags ?? []), CLI, 'run', o.job, '--output', o.output];
  args.push('--no-progress', '--log-level', 'warn');
  args.push(...(o.cache === undefined ? ['--no-cache'] : ['--cache', o.cache]));
  if (o.input !== undefined) args.push('--input', o.input);
  if (o.concurrency !== undefined) args.push('--concurrency', String(o.concurrency));
  if (o.rate !== undefined) args.push('--rate', String(o.rate));
  args.push(...(o.extraArgs ?? []));
  const run = await runNode({ args, env: o.env, timeoutMs: 300_000 });
  expectExit(run, o.allowedExit ?? [0], `geobatch run ${o.job}`);
  const summaryFile = `${o.output}.summary.json`;
  const summary = JSON.parse(await readFile(summaryFile, 'utf8')) as Summary;
  // Outputs of 1M rows add up; only the summary is needed from here on.
  await rm(o.output, { force: true });
  return {
    wallMs: run.wallMs,
    runMs: summary.timing.durationMs,
    maxRssBytes: run.maxRssBytes ?? summary.memory.peakRssBytes,
    cpuMs: run.cpuMs,
    summary,
  };
}

/** What results.json keeps of a run: timings, memory, rows, requests, the client's counts. */
export function slim(g: GeobatchRun) {
  const { summary } = g;
  return {
    wallMs: Math.round(g.wallMs),
    runMs: g.runMs,
    maxRssBytes: g.maxRssBytes,
    rows: summary.rows,
    requests: summary.requests,
    client: {
      requests: summary.client.requests,
      retries: summary.client.retries,
      throttled429: summary.client.throttled429,
    },
  };
}
