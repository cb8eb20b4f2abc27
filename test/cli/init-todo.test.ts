/**
 * A job file init could not finish does not load until its TODO keys are set: `validate` and `run`
 * both refuse it (exit 2), naming the key. It used to validate, and every row failed at run time
 * (exit 3), the point kinds reading lon/lat from default columns the input does not have.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobFile } from '../../src/cli/init.js';
import { loadJobFile } from '../../src/config/load.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/run/job-file.js';
import { caught, tempDir } from '../fixtures/run-helpers.js';
import { cli } from './_cli.js';
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

function input(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('geobatch init: the keys it could not fill', () => {
  it('writes lon and lat the values cannot tell apart as TODO columns, which validate and run refuse (exit 2)', async () => {
    const job = join(dir, 'amb.yaml');
    const result = await initJobFile(input('amb.csv', 'a,b\n30.5,31.2\n'), {
      kind: 'elevation',
      output: job,
    });
    expectGolden('amb.elevation.yaml', result.text, dir);

    const message = `${job}: mapping.lon reads the column "TODO: longitude, one of a, b?", which the input's header does not have`;
    const validate = cli(['validate', job]);
    expect(await validate.exited).toBe(2);
    expect(validate.err()).toContain(message);
    expect(validate.out()).toBe('');
    const run = cli(['run', job, '--emulator']);
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(message);
    expect(result.todos.map((todo) => todo.field)).toEqual(['lon', 'lat']);
  });

  it('refuses the run before a request is sent, at the key, as CONFIG_INVALID', async () => {
    const job = join(dir, 'rechtswert.yaml');
    const csv = 'Rechtswert;Hochwert\n3500000;5800000\n3501000;5801000\n';
    const result = await initJobFile(input('rechtswert.csv', csv), { kind: 'reverse-geocode', output: job });
    expect(result.text).toMatch(/^ {2}lon: "TODO: which longitude column\?" +# TODO: no column found/m);
    expect(result.todos).toEqual([
      expect.objectContaining({ field: 'lon', placeholder: 'TODO: which longitude column?' }),
      expect.objectContaining({ field: 'lat', placeholder: 'TODO: which latitude column?' }),
    ]);
    const before = emulator.stats().total;
    const error = await caught(runJobFile(job, { emulator }));
    expect(emulator.stats().total).toBe(before);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ path: 'mapping.lon', received: '"TODO: which longitude column?"' });
  });

  it('gives the key no column at all for an NDJSON input, which has no header to check', async () => {
    const job = join(dir, 'amb-ndjson.yaml');
    const result = await initJobFile(input('amb.ndjson', '{"a":30.5,"b":31.2}\n'), {
      kind: 'elevation',
      output: job,
    });
    expectGolden('amb.elevation-ndjson.yaml', result.text, dir);
    const loaded = await caught(loadJobFile(job));
    expect(loaded.code).toBe('CONFIG_INVALID');
    expect(loaded.message.split('\n')[0]).toBe(`${job}: mapping.lon.column: expected string, got null`);
    const run = await caught(runJobFile(job, { emulator }));
    expect(run.message).toBe(loaded.message);
  });

  it('says on standard error which keys to set', async () => {
    const job = join(dir, 'amb-cli.yaml');
    const run = cli(['init', join(dir, 'amb.csv'), '--kind', 'elevation', '-o', job]);
    expect(await run.exited).toBe(0);
    expect(run.err()).toContain(
      'TODO     mapping.lon, mapping.lat: one of a, b? (lon and lat not told apart); set them in the file',
    );
    expect(run.err()).toContain('it will not run before the TODOs are done');
    // Not a command that would only fail: what to do first.
    expect(run.err()).toMatch(
      /next: do the TODOs in \S*amb-cli\.yaml, then geobatch validate \S*amb-cli\.yaml/,
    );
    expect(run.err()).not.toContain('--emulator --limit 50');
  });

  it('runs once the TODO keys are set, and needs nothing else', async () => {
    const job = join(dir, 'done.yaml');
    const csv = input('done.csv', 'p,q\n1.5,2.5\n');
    const { text } = await initJobFile(csv, { kind: 'elevation', output: job });
    writeFileSync(
      job,
      text.replace('"TODO: longitude, one of p, q?"', 'p').replace('"TODO: latitude, one of p, q?"', 'q'),
    );
    // The values the person who set the keys knew to be lon and lat, in the emulator's coverage.
    writeFileSync(csv, 'p,q\n13.4,52.5\n');
    const summary = await runJobFile(job, { emulator });
    expect(summary.exitCode).toBe(0);
    expect(summary.rows.ok).toBe(1);
  });
});
