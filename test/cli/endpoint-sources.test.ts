/**
 * What the command line prints about an address names the one place the user set it: the
 * variable, or the job file's key with the variable its `${...}` names; never a credential.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli, emulatorEnv } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = tempDir();
  const rows = Array.from({ length: 5 }, (_, i) => `${i},${(50 + i / 100).toFixed(4)},10.7442`);
  writeFileSync(join(dir, 'in.csv'), `id,lat,lon\n${rows.join('\n')}\n`);
});

afterAll(async () => {
  await emulator.close();
});

describe('geobatch run: where an address came from', () => {
  it('refuses a password in GEOBATCH_EMULATOR_URL by the variable, not by a key of the job file', async () => {
    const job = join(dir, 'plain.yaml');
    writeFileSync(job, 'job: elevation\ninput: in.csv\noutput: out/plain.csv\n');
    const env = { ...emulatorEnv(emulator), GEOBATCH_EMULATOR_URL: 'http://u:pw-0815-secret@127.0.0.1:9' };
    const run = cli(['run', job], env);
    expect(await run.exited).toBe(2);
    const printed = run.err();
    expect(printed).toMatch(
      /^geobatch: GEOBATCH_EMULATOR_URL: the URL carries a credential \(a user name or password\)/,
    );
    expect(printed).not.toContain('service.endpoints');
    expect(printed).not.toContain('pw-0815-secret');
  });

  it('names the variable the job file took a wrong address from in ENDPOINT_NOT_FOUND', async () => {
    const job = join(dir, 'substituted.yaml');
    writeFileSync(
      job,
      'job: elevation\ninput: in.csv\noutput: out/substituted.csv\nservice:\n  endpoints:\n    elevation: ${MY_URL}\n',
    );
    const { GEOBATCH_EMULATOR_URL: _, ...env } = emulatorEnv(emulator);
    const run = cli(['run', job], { ...env, MY_URL: `${emulator.urls.origin}/wrong` });
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain('ENDPOINT_NOT_FOUND');
    expect(run.err()).toContain(`(service.endpoints.elevation in ${job}, from \${MY_URL})`);
  });
});
