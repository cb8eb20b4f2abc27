/**
 * The crash test: a 50,000-row run against the emulator is killed with SIGKILL at random moments
 * three times and resumed each time. The result must be byte-identical to an uninterrupted run,
 * and after each kill no row the checkpoint had committed may be requested again.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { pointKey } from '../../src/jobs/_fields.js';
import { cli, emulatorEnv, until } from './_cli.js';

const ROWS = 50_000;
const KILLS = 3;

let emulator: EmulatorHandle;
let dir: string;
/** Row index of each distinct point in the input. */
const rowOf = new Map<string, number>();
/** Where requests are recorded: the row index of every reverse-geocoding request, per session. */
let recording: number[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-kill-'));
  // Distinct points over Germany, so every row costs exactly one request that names its row.
  const lines = ['id,lon,lat'];
  for (let i = 0; i < ROWS; i++) {
    const lon = 6 + (i % 250) * 0.036;
    const lat = 47.5 + Math.floor(i / 250) * 0.036;
    lines.push(`${i},${lon.toFixed(5)},${lat.toFixed(5)}`);
    rowOf.set(pointKey([Number(lon.toFixed(5)), Number(lat.toFixed(5))]), i);
  }
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  for (const name of ['reference', 'crashed']) {
    writeFileSync(
      join(dir, `${name}.yaml`),
      `job: reverse-geocode\ninput: points.csv\noutput: ${name}/points.csv\nrun:\n  checkpointSeconds: 0.3\n`,
    );
  }
  emulator = await startEmulator({
    preload: true,
    onRequest: (info) => {
      const coordinates = (info.body as { geometry?: { coordinates?: [number, number] } } | undefined)
        ?.geometry?.coordinates;
      if (info.interface !== 'geocoding' || coordinates === undefined) return;
      recording.push(rowOf.get(pointKey(coordinates)) ?? -1);
    },
  });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function committed(): number {
  const path = join(dir, 'crashed', 'points.csv.checkpoint.json');
  if (!existsSync(path)) return 0;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { committedRows: number }).committedRows;
  } catch {
    return 0; // caught between write and rename: read again
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const args = (name: string) => [
  'run',
  join(dir, `${name}.yaml`),
  '--resume',
  '--no-progress',
  '--concurrency',
  '8',
];

describe('a run killed with SIGKILL and resumed', () => {
  it('ends byte-identical to an uninterrupted run, never re-requesting a committed row', async () => {
    const env = emulatorEnv(emulator);
    const reference = cli(args('reference'), env);
    const referenceCode = await reference.exited;
    expect([0, 3], reference.err()).toContain(referenceCode);
    // One request per row; on a loaded machine the client may hedge a few slow ones (at most 5%).
    expect(new Set(recording).size).toBe(ROWS);
    expect(recording.length).toBeLessThanOrEqual(ROWS * 1.05);

    const sessions: { requested: number[]; committedBefore: number }[] = [];
    let before = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      recording = [];
      const run = cli(args('crashed'), env);
      let exited = false;
      void run.exited.then(() => {
        exited = true;
      });
      // Let the session make some progress, then kill it at a random moment.
      await until(() => exited || committed() >= before + 2000, 60_000, 'progress before the kill');
      await sleep(Math.random() * 600);
      expect(exited, `session ${kill + 1} finished before it could be killed`).toBe(false);
      run.child.kill('SIGKILL');
      expect(await run.exited).toBeNull();
      await sleep(300); // requests the killed process had sent land now, not in the next session
      sessions.push({ requested: recording, committedBefore: before });
      before = committed();
      expect(before, `checkpoint after kill ${kill + 1}`).toBeGreaterThan(
        sessions.at(-1)?.committedBefore ?? 0,
      );
    }

    recording = [];
    const last = cli(args('crashed'), env);
    expect(await last.exited).toBe(referenceCode);
    sessions.push({ requested: recording, committedBefore: before });

    for (const file of ['points.csv', 'points.errors.csv']) {
      const expected = readFileSync(join(dir, 'reference', file));
      const actual = readFileSync(join(dir, 'crashed', file));
      expect(actual.equals(expected), `${file} differs from the uninterrupted run`).toBe(true);
    }
    expect(
      readFileSync(join(dir, 'crashed', 'points.csv'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(ROWS + 1);
    for (const [i, session] of sessions.entries()) {
      expect(session.requested.includes(-1)).toBe(false);
      const below = session.requested.filter((row) => row < session.committedBefore);
      expect(below, `session ${i + 1} re-requested committed rows`).toEqual([]);
    }
    // Every row was requested by some session; rows after a checkpoint may be requested twice.
    expect(new Set(sessions.flatMap((s) => s.requested)).size).toBe(ROWS);
    expect(existsSync(join(dir, 'crashed', 'points.csv.checkpoint.json'))).toBe(false);
  }, 240_000);
});
