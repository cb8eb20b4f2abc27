/**
 * One request the service never answers while it answers every other: its row fails (TIMEOUT)
 * and the run ends with the others answered. Before, its second pass, the only request left to
 * send, was taken for the second request of an outage: a 20,000-row run stopped as
 * SERVICE_UNREACHABLE after 5 minutes and threw away 14,275 answered rows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import { type PoisonProxy, startPoisonProxy } from './_poison-proxy.js';

const ROWS = 30;
/** The row whose request the proxy holds, by its house number (its id). */
const HELD = 7;
const TIMEOUT_MS = 300;

let dir: string;
let emulator: EmulatorHandle;
let proxy: PoisonProxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-hung-'));
  emulator = await startEmulator({ preload: true });
  const target = new URL(emulator.urls.geojson);
  // Forwards every request to the emulator but those of the held row, which it never answers.
  proxy = await startPoisonProxy(target, (text) =>
    text.includes(`"houseNo":"${HELD}"`) ? 'hold' : undefined,
  );
  const lines = [
    'id,street,zip,city',
    ...Array.from({ length: ROWS }, (_, i) => `${i},Kaiserstraße,76133,Karlsruhe`),
  ];
  writeFileSync(join(dir, 'addresses.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'geocode.yaml'),
    'job: geocode\ninput: addresses.csv\noutput: out.csv\n' +
      'mapping: { street: street, houseNo: id, zip: zip, city: city }\n' +
      `service:\n  timeoutMs: ${TIMEOUT_MS}\n` +
      '  retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, outageMs: 500 }\n' +
      '  throttle: { concurrency: 4 }\n',
  );
});

afterAll(async () => {
  await proxy.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a request the service hangs while it answers the others', () => {
  it('fails its row as TIMEOUT, second pass included, and the run ends with every other row answered', async () => {
    const summary = await runJobFile(join(dir, 'geocode.yaml'), {
      env: { GEOBATCH_EMULATOR_URL: proxy.url, GEOBATCH_API_KEY: emulator.credentials.apiKey },
      cache: { location: false },
    });
    expect(summary.error).toBeNull();
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 3,
      rows: { read: ROWS, written: ROWS, ok: ROWS - 1, failed: 1 },
    });
    // Both passes were sent, each through its attempts, and neither was answered.
    expect(proxy.held()).toBeGreaterThanOrEqual(4);
    const output = readFileSync(join(dir, 'out.csv'), 'utf8').split('\n');
    const heldRow = output.find((line) => line.startsWith(`${HELD},`));
    expect(heldRow).toContain('TIMEOUT');
    expect(output.filter((line) => line.includes('TIMEOUT'))).toHaveLength(1);
  });
});
