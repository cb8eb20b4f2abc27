/**
 * A matrix job drafted from lon/lat columns reads them as the origin of one pair per row: matrix
 * reads `lon`/`lat` only against a destinations file, which init cannot guess, and the file it
 * wrote was refused for them. Without destination columns the file's TODO and the loader's
 * refusal name both ways to give destinations.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobFile } from '../../src/cli/init.js';
import { loadJobFile } from '../../src/config/load.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import type { GeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/run/job-file.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { expectGolden } from './init-golden.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = tempDir();
});

afterAll(async () => {
  await emulator.close();
});

async function matrixOf(name: string, csv: string) {
  const path = join(dir, name);
  writeFileSync(path, csv);
  const job = join(dir, `${name}.yaml`);
  const result = await initJobFile(path, { kind: 'matrix', output: job });
  const mapping = Object.fromEntries(
    [...result.candidate.mapping].map(([field, guess]) => [field, guess.column]),
  );
  return { result, mapping, job };
}

describe('geobatch init --kind matrix', () => {
  it('maps lon/lat as the origin, and leaves the destinations as a TODO the loader refuses', async () => {
    const { result, mapping, job } = await matrixOf('origins.csv', 'id,lon,lat\n1,13.4,52.5\n2,11.5,48.1\n');
    expect(mapping).toEqual({ originLon: 'lon', originLat: 'lat' });
    const needs =
      'options.destinations: a matrix job needs destinations: options.destinations (a file of destinations) or mapping.destinationLon and mapping.destinationLat (one pair per row)';
    expect(result.candidate.problems).toEqual([needs]);
    expectGolden('origins.matrix.yaml', result.text, dir);
    const error = (await loadJobFile(job).catch((e: unknown) => e)) as GeobatchError;
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(`${job}: ${needs}`);
    expect(error.context.hint).toContain('options.destinations');
  });

  it('writes a file that runs when the input has the destination columns too', async () => {
    const { result, mapping, job } = await matrixOf(
      'pairs.csv',
      'id,lon,lat,to_lon,to_lat\n1,13.4,52.5,13.38,52.52\n2,11.5,48.1,11.58,48.14\n',
    );
    expect(mapping).toEqual({
      originLon: 'lon',
      originLat: 'lat',
      destinationLon: 'to_lon',
      destinationLat: 'to_lat',
    });
    expect(result.candidate.problems).toEqual([]);
    expect(result.text).toMatch(/^ {2}originLon: lon +# guessed by its name, as the origin$/m);
    const summary = await runJobFile(job, { emulator });
    expect(summary.exitCode).toBe(0);
    expect(summary.rows.ok).toBe(2);
  });

  it('says so when the first rows fail as the origin reads them', async () => {
    // lon without lat: originLat falls back to a column named lat, which the input lacks.
    const { result, mapping } = await matrixOf('lon-only.csv', 'lon,to_lon,to_lat\n13.4,13.38,52.52\n');
    expect(mapping).toEqual({ originLon: 'lon', destinationLon: 'to_lon', destinationLat: 'to_lat' });
    expect(result.candidate.problems).toEqual([
      expect.stringMatching(/^most of the first rows fail as mapped: originLat: /),
    ]);
    expect(result.text).toMatch(/^# TODO: most of the first rows fail as mapped: originLat: /m);
  });

  it('writes the origin as the TODO keys when the values cannot tell lon from lat', async () => {
    const { result } = await matrixOf('unknown.csv', 'a,b\n1.5,2.5\n');
    expect(result.text).toMatch(/^ {2}originLon: "TODO: longitude, one of a, b\?" +# TODO: /m);
    expect(result.todos.map((todo) => todo.field)).toEqual(['originLon', 'originLat']);
    expect(result.text).toMatch(
      /^ {2}# lon: +# with options.destinations: the origin, instead of originLon$/m,
    );
  });
});

describe('geobatch init without --kind, for lon/lat beside destination columns', () => {
  it('guesses a point kind and does not offer matrix', async () => {
    const path = join(dir, 'guessed-pairs.csv');
    writeFileSync(path, 'id,lon,lat,to_lon,to_lat\n1,13.4,52.5,13.38,52.52\n2,11.5,48.1,11.58,48.14\n');
    const result = await initJobFile(path, { output: join(dir, 'guessed-pairs.yaml') });
    expect(result.candidate.kind.name).toBe('reverse-geocode');
    expect(result.alternatives).not.toContain('matrix');
  });
});
