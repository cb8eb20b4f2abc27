import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli, emulatorEnv } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;
let job: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = tempDir();
  const rows = Array.from({ length: 40 }, (_, i) => `${i},${(50 + i / 100).toFixed(4)},10.7442`);
  writeFileSync(join(dir, 'in.csv'), `id,lat,lon\n${rows.join('\n')}\n`);
  job = join(dir, 'job.yaml');
  writeFileSync(job, 'job: elevation\ninput: in.csv\noutput: out/result.csv\n');
});

afterAll(async () => {
  await emulator.close();
});

const ids = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => Number(line.split(',')[0]));

describe('geobatch run --limit, --sample, --seed', () => {
  it('runs the first N rows with --limit, and says so in the start record', async () => {
    const run = cli(['run', job, '--limit', '5', '--log-format', 'json'], emulatorEnv(emulator));
    expect(await run.exited).toBe(0);
    expect(ids(join(dir, 'out', 'result.csv'))).toEqual([0, 1, 2, 3, 4]);
    const start = run
      .err()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .find((record) => record.event === 'run.start');
    expect(start.options).toMatchObject({ limit: 5, sample: null });
  });

  it('says in the closing line, the summary and the report that --limit and --sample answered not the whole input', async () => {
    const output = join(dir, 'out', 'selected.csv');
    const summary = () => JSON.parse(readFileSync(`${output}.summary.json`, 'utf8'));
    const report = () => readFileSync(`${output}.report.html`, 'utf8');
    const limited = cli(['run', job, '--limit', '3', '-o', output, '--no-progress'], emulatorEnv(emulator));
    expect(await limited.exited).toBe(0);
    expect(limited.err()).toContain(': done in ');
    expect(limited.err()).toContain(': 3 rows selected by --limit 3, 3 ok, 0 failed;');
    expect(summary().input.selection).toEqual({ limit: 3, sample: null, seed: null });
    expect(report()).toContain(
      'Every row read is accounted for: read 3 = written 3 = ok 3 + failed 0; failed 0 = in the error report 0. Not the whole input: --limit 3 selected these rows; any others in the input were not answered.',
    );
    expect(report()).not.toContain('✓ Every row is accounted for');
    expect(report()).toContain('Complete: every row ok (of the rows --limit 3 selected)');

    const sampled = cli(['run', job, '--sample', '4', '-o', output, '--no-progress'], emulatorEnv(emulator));
    expect(await sampled.exited).toBe(0);
    expect(sampled.err()).toContain(': 4 rows selected by --sample 4 --seed 0, 4 ok, 0 failed;');
    expect(summary().input.selection).toEqual({ limit: null, sample: 4, seed: '0' });

    // A limit above the input's 40 rows reads it whole: nothing to say.
    const whole = cli(['run', job, '--limit', '50', '-o', output, '--no-progress'], emulatorEnv(emulator));
    expect(await whole.exited).toBe(0);
    expect(whole.err()).toContain(': 40 rows, 40 ok, 0 failed;');
    expect(summary().input.selection).toEqual({ limit: 50, sample: null, seed: null });
    expect(report()).toContain('✓ Every row is accounted for: read 40 = written 40');
  });

  it('draws the same rows for the same --seed, in input order', async () => {
    const first = cli(
      ['run', job, '--sample', '6', '--seed', 'x', '-o', join(dir, 'a.csv')],
      emulatorEnv(emulator),
    );
    const second = cli(
      ['run', job, '--sample', '6', '--seed', 'x', '-o', join(dir, 'b.csv')],
      emulatorEnv(emulator),
    );
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    const drawn = ids(join(dir, 'a.csv'));
    expect(drawn).toHaveLength(6);
    expect(drawn).toEqual([...drawn].sort((a, b) => a - b));
    expect(ids(join(dir, 'b.csv'))).toEqual(drawn);
  });

  it('exits 2 on a count that is not a whole number of rows, naming the flag', async () => {
    const run = cli(['run', job, '--limit', '1.5'], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('--limit: expected a positive whole number of rows, got `1.5`');
    expect(run.err()).toContain('hint: For example --limit 50.');
  });

  it('exits 2 on --restart-if-changed without --resume in one plain line, before any run is logged', async () => {
    const run = cli(['run', job, '--restart-if-changed', '--log-format', 'json'], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('geobatch: --restart-if-changed: only applies with --resume');
    expect(run.err()).not.toContain('run.start');
    expect(run.err()).not.toContain('run.end');
  });

  it('exits 2 on --seed without --sample, saying what to add', async () => {
    const run = cli(['run', job, '--seed', '3'], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('--seed: only applies with --sample');
    expect(run.err()).toContain('hint: Add --sample N');
  });

  it.each([
    [['--no-cache', '--cache', 'x.sqlite'], '--cache and --no-cache contradict each other'],
    [['--report', 'r.html', '--no-report'], '--report and --no-report contradict each other'],
    [['--no-cache', '--cache-mode', 'refresh'], '--cache-mode and --no-cache contradict each other'],
    [['--cache-mode', 'read-only', '--no-cache'], '--cache-mode and --no-cache contradict each other'],
    [
      ['--no-progress', '--progress-interval', '2'],
      '--progress-interval and --no-progress contradict each other',
    ],
  ])('exits 2 on opposite flags %j, whichever comes last, sending nothing', async (flags, message) => {
    const before = emulator.stats().total;
    const run = cli(['run', job, ...flags], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(message);
    expect(run.err()).toContain('hint: Give one of them');
    expect(emulator.stats().total).toBe(before);
  });

  it('says why a setting for what another flag turns off is refused', async () => {
    const cache = cli(['run', job, '--no-cache', '--cache-mode', 'refresh'], emulatorEnv(emulator));
    expect(await cache.exited).toBe(2);
    expect(cache.err()).toContain(
      'hint: Give one of them: --no-cache uses no cache, so --cache-mode would be ignored.',
    );
    const progress = cli(['run', job, '--no-progress', '--progress-interval', '2'], emulatorEnv(emulator));
    expect(await progress.exited).toBe(2);
    expect(progress.err()).toContain(
      'hint: Give one of them: --no-progress writes no progress records, so --progress-interval would be ignored.',
    );
  });

  it('writes JSON progress records off a terminal at --progress-interval', async () => {
    emulator.setFaults({ latency: { fixedMs: 150, jitterMs: 0 } });
    try {
      const run = cli(
        ['run', job, '--progress-interval', '0.05', '--concurrency', '1', '-o', join(dir, 'slow.csv')],
        emulatorEnv(emulator),
      );
      expect(await run.exited).toBe(0);
      const records = run
        .err()
        .split('\n')
        .filter((line) => line.includes('"event":"progress"'))
        .map((line) => JSON.parse(line));
      expect(records.length).toBeGreaterThan(0);
      expect(Object.keys(records[0]).sort()).toEqual(
        [
          'elapsedSeconds',
          'etaSeconds',
          'event',
          'hostname',
          'level',
          'msg',
          'name',
          'percent',
          'pid',
          'requests',
          'rowsDone',
          'rowsFailed',
          'rowsPerSecond',
          'rowsRead',
          'rowsTotal',
          'requestsPerSecond',
          'time',
        ].sort(),
      );
    } finally {
      emulator.setFaults({});
    }
  });
});

describe('geobatch run --queue', () => {
  it('takes the queue URL from GEOBATCH_QUEUE when --queue comes without one', async () => {
    const run = cli(['run', job, '--queue', '--no-work'], {
      ...emulatorEnv(emulator),
      GEOBATCH_QUEUE: 'mysql://db/q',
    });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('--queue: expected a postgres:// URL');
    const unset = cli(['run', job, '--queue'], { ...emulatorEnv(emulator), GEOBATCH_QUEUE: '' });
    expect(await unset.exited).toBe(2);
    expect(unset.err()).toContain('--queue: the queue database is needed');
    expect(unset.err()).toContain('export GEOBATCH_QUEUE');
  });
});

describe('geobatch run --input-format', () => {
  it('reads NDJSON from standard input when the job file reads CSV, and refuses an unknown format', async () => {
    const lines = [0, 1, 2].map((i) => JSON.stringify({ id: i, lat: 50 + i / 100, lon: 10.7442 }));
    const output = join(dir, 'piped.csv');
    const run = cli(['run', job, '-i', '-', '--input-format', 'ndjson', '-o', output], emulatorEnv(emulator));
    run.child.stdin?.end(`${lines.join('\n')}\n`);
    expect(await run.exited, run.err()).toBe(0);
    expect(ids(output)).toEqual([0, 1, 2]);
    const wrong = cli(['run', job, '--input-format', 'xlsx'], emulatorEnv(emulator));
    expect(await wrong.exited).toBe(2);
    expect(wrong.err()).toMatch(/--input-format.*xlsx/);
  });
});
