/**
 * Rows the service alone fails while it serves every other ("poison" rows): they fail, and the run
 * goes on. Before, when nothing else was left to send (a small file, a bad row near the end), the
 * silence or the 5xx of one request's retries and second pass were read as an outage: 119 rows of
 * 120 answered and the run STOPPED (SERVICE_UNREACHABLE), and `--resume` stopped at the same row
 * every time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import { type PoisonProxy, startPoisonProxy } from './_poison-proxy.js';

const ROWS = 20;

let dir: string;
let emulator: EmulatorHandle;
let proxy: PoisonProxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-poison-'));
  emulator = await startEmulator({ preload: true });
  const target = new URL(emulator.urls.geojson);
  // Forwards to the emulator, but holds forever a request for Hangdorf and answers 503 to one for
  // Fuenfdorf.
  proxy = await startPoisonProxy(target, (text) =>
    text.includes('Hangdorf')
      ? 'hold'
      : text.includes('Fuenfdorf')
        ? { status: 503, body: '{"errCode":"E","publicReport":"no"}' }
        : undefined,
  );
});

afterAll(async () => {
  await proxy.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs ROWS rows, those of `bad` (by id) in the city given, and returns the summary and output. */
async function run(name: string, bad: Record<number, string>, service: string, cache?: string) {
  const lines = [
    'id,street,zip,city',
    ...Array.from({ length: ROWS }, (_, i) => `${i},Kaiserstraße,76133,${bad[i] ?? 'Karlsruhe'}`),
  ];
  writeFileSync(join(dir, `${name}.csv`), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, `${name}.yaml`),
    `job: geocode\ninput: ${name}.csv\noutput: ${name}-out.csv\n` +
      'mapping: { street: street, houseNo: id, zip: zip, city: city }\n' +
      `service:\n${service}`,
  );
  const warnings: string[] = [];
  const summary = await runJobFile(join(dir, `${name}.yaml`), {
    env: { GEOBATCH_EMULATOR_URL: proxy.url, GEOBATCH_API_KEY: emulator.credentials.apiKey },
    cache: { location: cache ?? false },
    logger: pino(
      { level: 'warn' },
      {
        write: (line: string) => {
          const parsed = JSON.parse(line) as { level: number; msg: string };
          if (parsed.level === 40) warnings.push(parsed.msg);
        },
      },
    ),
  });
  // A run that stopped wrote none: its summary says why.
  const file = join(dir, `${name}-out.csv`);
  const output = existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(1) : [];
  return { summary, output, warnings };
}

const POISON =
  '  timeoutMs: 300\n' +
  '  retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, outageMs: 500 }\n' +
  '  throttle: { concurrency: 4 }\n';

/** The error code each output row ends with ('' when answered), by its id. */
function failures(output: string[]): Record<string, string> {
  const failed: Record<string, string> = {};
  for (const line of output) {
    const code = /\b(RETRIES_EXHAUSTED|TIMEOUT|NETWORK|SERVICE_UNREACHABLE)\b/.exec(line)?.[1];
    if (code !== undefined) failed[line.split(',')[0] ?? ''] = code;
  }
  return failed;
}

describe('a poison row the service alone fails while it serves the others', () => {
  it('answered 503, last in the file: that row RETRIES_EXHAUSTED, the run complete (exit 3)', async () => {
    const { summary, output, warnings } = await run('last503', { [ROWS - 1]: 'Fuenfdorf' }, POISON);
    expect(summary.error).toBeNull();
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 3,
      rows: { read: ROWS, written: ROWS, ok: ROWS - 1, failed: 1 },
    });
    expect(failures(output)).toEqual({ [ROWS - 1]: 'RETRIES_EXHAUSTED' });
    // Not "geocoding answers only 503": it served 19 of 20.
    expect(warnings.filter((line) => line.includes('answers only'))).toEqual([]);
  });

  it('held unanswered, last in the file: that row TIMEOUT, the run complete (exit 3)', async () => {
    const { summary, output } = await run('lastHung', { [ROWS - 1]: 'Hangdorf' }, POISON);
    expect(summary.error).toBeNull();
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 3,
      rows: { read: ROWS, written: ROWS, ok: ROWS - 1, failed: 1 },
    });
    expect(failures(output)).toEqual({ [ROWS - 1]: 'TIMEOUT' });
  });

  it('alone in a run whose cache answered every other row, held or answered 503: that row fails (exit 3)', async () => {
    // A nightly rerun: the cache holds the others, so the poison row is all the service is asked,
    // and it has served nothing in this session. Before, its two passes stopped the run every night.
    const cache = join(dir, 'nightly.sqlite');
    expect((await run('warm', {}, POISON, cache)).summary.exitCode).toBe(0);
    for (const [city, code] of [
      ['Hangdorf', 'TIMEOUT'],
      ['Fuenfdorf', 'RETRIES_EXHAUSTED'],
    ] as const) {
      const { summary, output } = await run(`cached${city}`, { 9: city }, POISON, cache);
      expect(summary.error).toBeNull();
      expect(summary).toMatchObject({ ended: 'complete_with_failures', exitCode: 3, rows: { ok: ROWS - 1 } });
      expect(summary.cache?.hits).toBe(ROWS - 1);
      expect(failures(output)).toEqual({ 9: code });
    }
  });

  it('three of them in the middle, held or answered 503: those fail, every other row is answered', async () => {
    const bad = { 6: 'Fuenfdorf', 12: 'Hangdorf', 13: 'Fuenfdorf' };
    const { summary, output } = await run('middle', bad, POISON);
    expect(summary.error).toBeNull();
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 3,
      rows: { read: ROWS, written: ROWS, ok: ROWS - 3, failed: 3 },
    });
    expect(failures(output)).toEqual({ 6: 'RETRIES_EXHAUSTED', 12: 'TIMEOUT', 13: 'RETRIES_EXHAUSTED' });
  });
});
