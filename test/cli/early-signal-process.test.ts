/**
 * A Ctrl-C (or a SIGHUP) while geobatch's modules load, in a real process: it used to end the process with
 * Node's default (status 130, no word), and handing the signals from the early listener to the
 * run's once lost it, so the run went on to its end. The signal is raised from a module hook at
 * the moment the entry point imports the command line: after the entry point listens, before any
 * command does, whatever the machine's speed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { cli, emulatorEnv } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;
/** Ctrl-C, and SIGHUP: the terminal closed or the SSH session dropped just as the command started. */
const SIGNALS = ['SIGINT', 'SIGHUP'] as const;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-early-signal-'));
  const lines = ['id,lon,lat'];
  for (let i = 0; i < 200; i++) lines.push(`${i},${(8 + i * 0.01).toFixed(3)},49.000`);
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'job.yaml'), 'job: elevation\ninput: points.csv\noutput: out/points.csv\n');
  for (const name of SIGNALS) {
    writeFileSync(
      join(dir, `hook-${name}.mjs`),
      [
        "import { registerHooks } from 'node:module';",
        'registerHooks({',
        '  resolve(specifier, context, next) {',
        // tsx names the module program.ts.
        `    if (/^\\.\\/program\\.[jt]s$/.test(specifier)) process.kill(process.pid, '${name}');`,
        '    return next(specifier, context);',
        '  },',
        '});',
      ].join('\n'),
    );
  }
});

/** The environment that raises `name` while the modules load. */
const raising = (name: (typeof SIGNALS)[number]) => ({
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(dir, `hook-${name}.mjs`)).href}`,
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a signal while the modules load', () => {
  it.each(SIGNALS)(
    'stops the run on %s as a stopped run (status 1, saying so), neither silently nor by running on',
    async (name) => {
      const run = cli(['run', join(dir, 'job.yaml'), '--no-progress'], {
        ...emulatorEnv(emulator),
        ...raising(name),
      });
      const code = await run.exited;
      expect({ code, signal: run.child.signalCode, err: run.err() }).toMatchObject({ code: 1, signal: null });
      expect(run.err()).toMatch(
        new RegExp(
          `stopped by ${name}, before any request was sent|${name}: stopping: no more rows read; any requests in flight get up to 5 s to come back`,
        ),
      );
      // One elevation request holds all 200 points: a run that went on would have sent it.
      expect(run.err()).not.toMatch(/done in/);
    },
  );

  it("ends a starting worker on SIGHUP with status 1, saying so, not with Node's default (129)", async () => {
    // No database listens there. Node takes the signal when its event loop next turns, which may
    // be after the refused connection has ended the worker's own hold (the moment varies with
    // the machine's load): either way it is said, and the status is 1.
    const run = cli(['worker', '--queue', 'postgres://geobatch@127.0.0.1:1/none'], raising('SIGHUP'));
    const code = await run.exited;
    expect({ code, signal: run.child.signalCode, err: run.err() }).toMatchObject({ code: 1, signal: null });
    expect(run.err()).toMatch(/stopped by SIGHUP|SIGHUP: stopping/);
  });
});
