/**
 * A dry run of trips counts the requests the run will send: a trip of one stop is answered
 * without one, and the trip cache, which a dry run cannot read, is named in a warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
