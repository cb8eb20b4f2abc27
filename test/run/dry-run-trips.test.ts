/**
 * A dry run of trips counts the requests the run will send: a trip of one stop is answered
 * without one, and the trip cache, which a dry run cannot read, is named in a warning. What it
 * says it saves is what the run says it saved: a trip of one stop is no request, not a saved one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import { createLogger } from '../../src/log.js';

let emulator: EmulatorHandle;
let dir: string;
let served = 0;

beforeAll(async () => {
  emulator = await startEmulator({ onRequest: () => served++ });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-dry-trips-'));
  // Trips of 1, 3, 1 and 2 stops around Karlsruhe.
  const stops = [
    ['A', 8.4],
    ['B', 8.41],
    ['B', 8.42],
    ['B', 8.43],
    ['C', 8.44],
    ['D', 8.45],
    ['D', 8.46],
  ] as const;
  const lines = ['trip,lon,lat', ...stops.map(([trip, lon]) => `${trip},${lon},49.01`)];
  writeFileSync(join(dir, 'stops.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'trip.yaml'),
    'job: trip\ninput: stops.csv\noutput: out.csv\nmapping: { trip: trip }\n',
  );
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a dry run of trips', () => {
  it('counts no request for a trip of one stop, as the run sends none, and says it cannot read the trip cache', async () => {
    const cache = { location: join(dir, 'cache.sqlite') };
    served = 0;
    const real = await runJobFile(join(dir, 'trip.yaml'), { emulator, cache });
    expect(real.rows).toMatchObject({ ok: 7, failed: 0 });
    // Trips B and D: A and C have one stop each.
    expect(served).toBe(2);
    const warnings: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) warnings.push(JSON.parse(line).msg);
        done();
      },
    });
    const dry = await runJobFile(join(dir, 'trip.yaml'), {
      emulator,
      dryRun: true,
      cache,
      logger: createLogger({ level: 'warn', destination }),
    });
    expect(dry.estimate?.requests).toBe(2);
    expect(warnings).toContain(
      'Dry run of trip: the request cache is not read for it (it keeps whole trips); a run sends none of the requests it holds',
    );
  });
});

describe('a dry run and a real run of the same trips', () => {
  // Trips of 1, 3, 1, 2 and 4 stops, and trip B again after D: its rows fail before any request.
  const trips = [
    ['A', 1],
    ['B', 3],
    ['C', 1],
    ['D', 2],
    ['B', 2],
    ['E', 4],
  ] as const;

  /**
   * What the input makes of them: a request per trip of two stops or more; and, as the summary
   * counts savings (items sent less requests sent, one a trip), n - 1 saved by a trip of n stops.
   */
  function expected() {
    const seen = new Set<string>();
    const routed: number[] = [];
    let rows = 0;
    let failed = 0;
    for (const [trip, stops] of trips) {
      rows += stops;
      if (seen.has(trip)) failed += stops;
      else routed.push(stops);
      seen.add(trip);
    }
    const requests = routed.filter((stops) => stops > 1).length;
    const saved = routed.reduce((sum, stops) => sum + stops - 1, 0);
    return { rows, failed, requests, saved };
  }

  it('print the same rows, failures, requests and requests saved', async () => {
    const lines = ['trip,lon,lat'];
    for (const [trip, stops] of trips)
      for (let i = 0; i < stops; i++) lines.push(`${trip},${(8.4 + 0.01 * lines.length).toFixed(2)},49.01`);
    writeFileSync(join(dir, 'again.csv'), `${lines.join('\n')}\n`);
    const job = join(dir, 'again.yaml');
    writeFileSync(job, 'job: trip\ninput: again.csv\noutput: again.out.csv\nmapping: { trip: trip }\n');
    const want = expected();

    served = 0;
    const real = describeSummary(await runJobFile(job, { emulator }));
    expect(served).toBe(want.requests);
    const dry = describeSummary(await runJobFile(job, { emulator, dryRun: true }));

    const ran =
      /^trip: done in [\d.]+ s: (\d+) rows, \d+ ok, (\d+) failed; (\d+) requests? \((\d+) saved by dedup, batching and local answers\)/m.exec(
        real,
      );
    const planned =
      /^trip \(dry run\): (\d+) rows, (\d+) would fail before any request\n {2}(\d+) requests? after dedup and batching \((\d+) saved\)/m.exec(
        dry,
      );
    const counts = (m: RegExpExecArray | null) => {
      const [rows, failed, requests, saved] = (m?.slice(1) ?? []).map(Number);
      return { rows, failed, requests, saved };
    };
    expect({ real: counts(ran), dry: counts(planned) }).toEqual({ real: want, dry: want });
  });
});

describe('a dry run of batches the job fails whole without a request', () => {
  const summaryOf = async (job: string, dryRun: boolean) => {
    served = 0;
    const summary = await runJobFile(job, { emulator, dryRun });
    return {
      failed: summary.rows.failed,
      exitCode: summary.exitCode,
      requests: dryRun ? summary.estimate?.requests : served,
    };
  };

  it('fails a trip over maxStops as the run does, counting no request for it', async () => {
    // Trips of 2, 6 (over maxStops 5) and 3 stops.
    const lines = ['trip,lon,lat'];
    for (const [trip, stops] of [
      ['P', 2],
      ['Q', 6],
      ['R', 3],
    ] as const)
      for (let i = 0; i < stops; i++) lines.push(`${trip},${(8.4 + 0.01 * lines.length).toFixed(2)},49.01`);
    writeFileSync(join(dir, 'long.csv'), `${lines.join('\n')}\n`);
    const job = join(dir, 'long.yaml');
    writeFileSync(
      job,
      'job: trip\ninput: long.csv\noutput: long.out.csv\nmapping: { trip: trip }\noptions: { maxStops: 5 }\n',
    );
    const real = await summaryOf(job, false);
    expect(real).toEqual({ failed: 6, exitCode: 3, requests: 2 });
    expect(await summaryOf(job, true)).toEqual(real);
  });

  it('fails a track of one fix as the run does, counting no request for it', async () => {
    const fixes = [
      ['T1', 8.4],
      ['T1', 8.401],
      ['T2', 8.41],
      ['T3', 8.42],
      ['T3', 8.421],
    ] as const;
    const lines = ['track,lon,lat', ...fixes.map(([track, lon]) => `${track},${lon},49.01`)];
    writeFileSync(join(dir, 'tracks.csv'), `${lines.join('\n')}\n`);
    const job = join(dir, 'tracks.yaml');
    writeFileSync(job, 'job: match\ninput: tracks.csv\noutput: tracks.out.csv\nmapping: { track: track }\n');
    const real = await summaryOf(job, false);
    expect(real).toEqual({ failed: 1, exitCode: 3, requests: 2 });
    expect(await summaryOf(job, true)).toEqual(real);
  });
});
