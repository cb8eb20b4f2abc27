/**
 * A service that goes away in the middle of a run: the rows its silence catches wait for it rather
 * than fail, and a service that stays away stops the run with its checkpoint, for --resume to
 * finish. Before, a 4-s restart failed 112 rows for good, and a service gone for good failed
 * every row left as NETWORK in a run that ended "done".
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

const ROWS = 240;
/** Each request answered this late, so that the run is still sending when the service goes. */
const FAULTS = { latency: { fixedMs: 5 } };

let dir: string;
let emulator: EmulatorHandle | undefined;
let baseline: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-outage-'));
  // Distinct points around Karlsruhe: one request each, some answered "no address".
  const lines = [
    'id,lon,lat',
    ...Array.from({ length: ROWS }, (_, i) => `${i},${(8.3 + i / 500).toFixed(4)},49.01`),
  ];
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  const retry = 'retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 40';
  const job = (name: string, more: string) =>
    writeFileSync(
      join(dir, `${name}.yaml`),
      `job: reverse-geocode\ninput: points.csv\noutput: ${name}.csv\nmapping: { lon: lon, lat: lat }\nservice:\n  ${retry}${more} }\n  throttle: { concurrency: 4 }\n`,
    );
  job('base', '');
  job('blip', '');
  job('gone', ', outageMs: 600');
  const first = await startEmulator({ preload: true });
  first.setFaults(FAULTS);
  try {
    const summary = await runJobFile(join(dir, 'base.yaml'), { emulator: first, cache: { location: false } });
    expect(summary.rows.written).toBe(ROWS);
  } finally {
    await first.close();
  }
  baseline = readFileSync(join(dir, 'base.csv'), 'utf8');
});

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An emulator on `port` (0: any), answering FAULTS' latency. */
async function serve(port = 0): Promise<EmulatorHandle> {
  const started = await startEmulator({ preload: true, port });
  started.setFaults(FAULTS);
  return started;
}

/** Closes `running` once it has answered `after` requests; resolves when it did. */
function goAway(running: EmulatorHandle, after: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (running.stats().total < after) return;
      clearInterval(timer);
      void running.close().then(resolve);
    }, 2);
  });
}

const portOf = (handle: EmulatorHandle) => Number(new URL(handle.urls.geojson).port);

describe('a service that goes away mid-run', () => {
  it('keeps the rows its restart catches waiting, and writes what a run without it writes', async () => {
    const running = await serve();
    const port = portOf(running);
    // Longer than the second pass a failed request gets a second later (src/engine).
    const gone = goAway(running, 60).then(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      emulator = await serve(port);
    });
    const summary = await runJobFile(join(dir, 'blip.yaml'), {
      emulator: running,
      cache: { location: false },
    });
    await gone;
    expect(summary.ended).not.toBe('stopped');
    expect(summary.rows.written).toBe(ROWS);
    expect(readFileSync(join(dir, 'blip.csv'), 'utf8')).toBe(baseline);
    // Nothing failed for the outage: no NETWORK row in the report.
    expect(readFileSync(join(dir, 'blip.errors.csv'), 'utf8')).not.toContain('NETWORK');
  });

  it('stops after retry.outageMs of silence with its checkpoint; --resume finishes the same output', async () => {
    const running = await serve();
    const port = portOf(running);
    const gone = goAway(running, 60);
    const stopped = await runJobFile(join(dir, 'gone.yaml'), {
      emulator: running,
      cache: { location: false },
    });
    await gone;
    expect(stopped.ended).toBe('stopped');
    expect(stopped.exitCode).toBe(1);
    expect(stopped.error).toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    expect(stopped.error?.message).toMatch(/^geocoding at \S+ stopped answering: nothing for \d+ s/);
    expect(stopped.rows.written).toBeLessThan(ROWS);
    expect(existsSync(join(dir, 'gone.csv.checkpoint.json'))).toBe(true);
    emulator = await serve(port);
    const resumed = await runJobFile(join(dir, 'gone.yaml'), {
      emulator,
      cache: { location: false },
      resume: true,
    });
    expect(resumed.ended).not.toBe('stopped');
    expect(readFileSync(join(dir, 'gone.csv'), 'utf8')).toBe(baseline);
  });
});
