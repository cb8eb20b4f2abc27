/**
 * `-o -` while the input trickles: the rows settled so far reach standard output before the
 * input ends, as `tail -f x.csv | geobatch run job.yaml -i - -o - | head` needs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { cli, emulatorEnv, waitFor } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;
let job: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-stdout-'));
  job = join(dir, 'job.yaml');
  writeFileSync(job, 'job: elevation\ninput: in.csv\noutput: out.csv\n');
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('geobatch run -i - -o -', () => {
  it.each([
    ['csv', /^id,lat,lon,.*\n1,50\.6583,10\.7442,983,.*\n2,49\.0069,8\.4037,\d+,/],
    ['ndjson', /^\{"id":"1",.*\n\{"id":"2",/],
  ])(
    'writes the rows that came to standard output (%s) while the input is still open',
    async (format, firstTwo) => {
      const run = cli(
        ['run', job, '-i', '-', '-o', '-', '-f', format, '--no-cache', '--no-progress'],
        emulatorEnv(emulator),
      );
      run.child.stdin?.write('id,lat,lon\n1,50.6583,10.7442\n2,49.0069,8.4037\n');
      // The pipe stays open, as a producer's that pauses: the two rows must not wait for its end.
      const seen = await waitFor(run.out, firstTwo, 30_000).then(
        () => true,
        () => false,
      );
      const stdinOpen = run.child.stdin?.writableEnded === false;
      run.child.stdin?.end('3,48.137,11.575\n');
      expect(await run.exited).toBe(0);
      expect(stdinOpen).toBe(true);
      expect(seen).toBe(true);
      expect(run.out().trim().split('\n')).toHaveLength(format === 'csv' ? 4 : 3);
    },
  );
});
