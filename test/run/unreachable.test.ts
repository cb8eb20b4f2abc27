/**
 * A run whose service address never answers stops with SERVICE_UNREACHABLE, also when it sends a
 * single request (a batch of points): the request's second pass is the second failed request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJobFile } from '../../src/index.js';

let dir: string;
let closed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-unreachable-'));
  // A loopback port nothing listens on: a server's, closed again.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  closed = `http://127.0.0.1:${port}`;
  const lines = ['id,lon,lat', ...Array.from({ length: 40 }, (_, i) => `${i},${8 + i / 100},49`)];
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'elevation.yaml'),
    'job: elevation\ninput: points.csv\noutput: out.csv\nservice:\n  retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 }\n',
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a service address that never answers', () => {
  it('stops a run of one request, instead of ending it complete with every row failed', async () => {
    const summary = await runJobFile(join(dir, 'elevation.yaml'), {
      env: { GEOBATCH_ELEVATION_URL: closed, GEOBATCH_API_KEY: 'unreachable-test-key' },
    });
    expect(summary.ended).toBe('stopped');
    expect(summary.exitCode).toBe(1);
    expect(summary.error).toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    expect(summary.error?.message).toContain(`elevation at ${closed} never answered`);
    // The variable that set the address is named, and no place that did not set it.
    expect(summary.error?.message).toContain('check the address set for elevation (GEOBATCH_ELEVATION_URL)');
    expect(summary.error?.message).not.toMatch(/service\.endpoints|GEOBATCH_EMULATOR_URL/);
    // Refused at connect: nothing reached the service, so nothing is counted as sent to it.
    expect(summary.requests).toMatchObject({ http: 0 });
  });
});
