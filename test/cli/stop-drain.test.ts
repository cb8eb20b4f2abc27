/**
 * Ctrl-C or SIGTERM lets the requests in flight come back before the run stops: without the
 * request cache, the resumed run asked the service again for each of them, and paid for it twice.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { pointKey } from '../../src/jobs/_fields.js';
import { cli, committedRows, emulatorEnv, until } from './_cli.js';

const ROWS = 240;

let emulator: EmulatorHandle;
let dir: string;
const rowOf = new Map<string, number>();
/**
 * The row of every reverse-geocoding request the emulator received, once per request id: a
 * hedged second attempt or a retry carries its request's id (README, Logging), and on a loaded
 * machine a hedge at 150 ms of latency made a row look asked twice where no session had asked
 * it again.
 */
const asked: number[] = [];
const askedIds = new Set<string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-drain-'));
  const lines = ['id,lon,lat'];
  for (let i = 0; i < ROWS; i++) {
    const [lon, lat] = [(6 + (i % 20) * 0.3).toFixed(5), (47.5 + Math.floor(i / 20) * 0.3).toFixed(5)];
    lines.push(`${i},${lon},${lat}`);
    rowOf.set(pointKey([Number(lon), Number(lat)]), i);
  }
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'job.yaml'),
    'job: reverse-geocode\ninput: points.csv\noutput: out/points.csv\nrun:\n  checkpointSeconds: 0.05\n',
  );
  emulator = await startEmulator({
    preload: true,
    onRequest: (info) => {
      const coordinates = (info.body as { geometry?: { coordinates?: [number, number] } } | undefined)
        ?.geometry?.coordinates;
      if (info.interface !== 'geocoding' || coordinates === undefined) return;
      if (info.requestId !== undefined) {
        if (askedIds.has(info.requestId)) return;
        askedIds.add(info.requestId);
      }
      asked.push(rowOf.get(pointKey(coordinates)) ?? -1);
    },
  });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('geobatch run stopped by a signal', () => {
  it('lets the requests in flight come back, so that the resumed run pays for no row twice', async () => {
    const env = emulatorEnv(emulator);
    const args = ['run', join(dir, 'job.yaml'), '--no-progress', '--no-cache', '--concurrency', '8'];
    // Slow enough that 8 requests are always in flight when the signal comes.
    emulator.setFaults({ latency: { fixedMs: 150 } });
    const stopped = cli(args, env);
    await until(
      () => committedRows(join(dir, 'out', 'points.csv.checkpoint.json')) >= 16,
      20_000,
      'rows committed',
    );
    stopped.child.kill('SIGTERM');
    expect(await stopped.exited).toBe(1);
    expect(stopped.err()).toContain(
      'SIGTERM: stopping: no more rows read; any requests in flight get up to 5 s to come back',
    );
    expect(stopped.err()).toContain('checkpoint kept');
    const before = asked.length;
    expect(before).toBeLessThan(ROWS);

    emulator.setFaults({});
    const resumed = cli([...args, '--resume'], env);
    // 3: some points lie where the emulator has no address; they are failed rows, as in any run.
    expect([0, 3]).toContain(await resumed.exited);
    const output = readFileSync(join(dir, 'out', 'points.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(output).toHaveLength(ROWS + 1);
    // Every row asked exactly once over both sessions: none in flight at the stop was asked again.
    const times = new Map<number, number>();
    for (const row of asked) times.set(row, (times.get(row) ?? 0) + 1);
    expect([...times.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(times.size).toBe(ROWS);
    expect(asked).toHaveLength(ROWS);
  });
});

describe('geobatch run of steps stopped by a signal', () => {
  it('carries the rows its first step paid for through the later step, so that the resumed run pays for none twice', async () => {
    asked.length = 0;
    // Reverse geocoding, then elevation, whose batches of many points wait to fill: at the stop
    // the rows the first step answered were waiting in a part-full batch, and were dropped.
    writeFileSync(
      join(dir, 'steps.yaml'),
      [
        'input: points.csv',
        'output: out/steps.csv',
        'run:',
        '  checkpointSeconds: 0.05',
        'steps:',
        '  - job: reverse-geocode',
        '  - job: elevation',
        '',
      ].join('\n'),
    );
    const env = emulatorEnv(emulator);
    const args = ['run', join(dir, 'steps.yaml'), '--no-progress', '--no-cache', '--concurrency', '8'];
    emulator.setFaults({ latency: { fixedMs: 150 } });
    const stopped = cli(args, env);
    await until(() => asked.length >= 40, 20_000, 'rows reverse-geocoded');
    stopped.child.kill('SIGTERM');
    expect(await stopped.exited).toBe(1);
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'steps.csv.summary.json'), 'utf8'));
    // Every row the first step answered came through the second and was written.
    expect(summary.rows.written).toBeGreaterThanOrEqual(asked.length - 1);
    expect(summary.rows.written).toBeGreaterThan(0);

    emulator.setFaults({});
    const resumed = cli([...args, '--resume'], env);
    expect([0, 3]).toContain(await resumed.exited);
    const output = readFileSync(join(dir, 'out', 'steps.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(output).toHaveLength(ROWS + 1);
    // Each row's first step asked once over both sessions (one the stop cut off at most asked again).
    expect(asked.length).toBeLessThanOrEqual(ROWS + 1);
    expect(new Set(asked).size).toBe(ROWS);
  });
});
