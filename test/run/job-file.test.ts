import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { GeobatchError, runJobFile } from '../../src/index.js';

const ROOT = new URL('../../', import.meta.url);
const README = readFileSync(new URL('README.md', ROOT), 'utf8');

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-library-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('runJobFile', () => {
  it('runs a job file as `geobatch run` does and resolves to its typed summary', async () => {
    const output = join(dir, 'elevation.csv');
    const summary = await runJobFile(new URL('jobs/elevation.yaml', ROOT).pathname, { emulator, output });
    expect(summary).toMatchObject({ job: 'elevation', ended: 'complete_with_failures', exitCode: 3 });
    expect(summary.rows.read).toBe(summary.rows.ok + summary.rows.failed);
    expect(readFileSync(output, 'utf8').split('\n')[0]).toContain('elevation_m');
  });

  it('throws a job-file problem as a GeobatchError with its code, before anything is sent', async () => {
    const before = emulator.stats().total;
    const error = await runJobFile(new URL('jobs/elevation.yaml', ROOT).pathname, {
      emulator,
      output: join(dir, 'x.unknown'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeobatchError);
    expect((error as GeobatchError).code).toBe('USAGE');
    expect(emulator.stats().total).toBe(before);
  });

  it('keeps a key out of the summary, the report and the closing lines, even when a path holds it', async () => {
    // Contrived but possible: an output named from \${VAR} where VAR is the key.
    const key = emulator.credentials.apiKey;
    const output = join(dir, `out-${key}.csv`);
    const summary = await runJobFile(new URL('jobs/elevation.yaml', ROOT).pathname, { emulator, output });
    for (const file of [`${output}.summary.json`, `${output}.report.html`]) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(key);
      expect(text, file).toContain('[redacted]');
    }
    const lines = describeSummary(summary);
    expect(lines).not.toContain(key);
    expect(lines).toContain('[redacted]');
  });

  it('runs the README’s library example as written', async () => {
    const start = README.indexOf('## geobatch as a library');
    const code = /```ts\n([\s\S]*?)```/.exec(README.slice(start))?.[1];
    expect(code).toContain("from 'geobatch'");
    // The example as a module of its own, importing this checkout under the package's name.
    const source = (code ?? '')
      .replace("from 'geobatch'", `from ${JSON.stringify(new URL('src/index.ts', ROOT).href)}`)
      .replace("'out/library/places.elevation.csv'", JSON.stringify(join(dir, 'readme.csv')))
      .replace("'jobs/elevation.yaml'", JSON.stringify(new URL('jobs/elevation.yaml', ROOT).pathname))
      .replace('console.log(', 'globalThis.readmeResult = (');
    const file = join(dir, 'example.ts');
    (await import('node:fs')).writeFileSync(file, source);
    await import(file);
    expect((globalThis as { readmeResult?: unknown }).readmeResult).toBeDefined();
    expect(readFileSync(join(dir, 'readme.csv'), 'utf8')).toContain('elevation_m');
  });

  it('stops at a long Retry-After by default and, with `stopOnRetryAfterMs: null`, waits it out instead', async () => {
    writeFileSync(
      join(dir, 'points.csv'),
      'id,lat,lon\n1,50.6583,10.7442\n2,49.0069,8.4037\n3,48.137,11.575\n',
    );
    const job = (retry: string) => {
      const file = join(dir, `retry-${retry.length}.yaml`);
      writeFileSync(
        file,
        `job: elevation\ninput: points.csv\noutput: retry-${retry.length}.csv\nservice:\n  retry: { ${retry} }\n`,
      );
      return file;
    };
    emulator.setFaults({ error429: 0.5, retryAfter: { seconds: 3600 }, seed: 7 });
    try {
      const stopped = await runJobFile(job('maxRetryAfterMs: 10'), { emulator });
      expect(stopped).toMatchObject({ ended: 'stopped', exitCode: 1, error: { code: 'QUOTA_EXCEEDED' } });
      expect(stopped.error?.message).toContain('asks to wait 60 min (429');
      emulator.setFaults({ error429: 0.5, retryAfter: { seconds: 3600 }, seed: 7 });
      const before = emulator.stats().byInterface.elevation?.byOutcome['429'] ?? 0;
      const never = job('maxRetryAfterMs: 10, maxAttempts: 20, stopOnRetryAfterMs: null');
      const summary = await runJobFile(never, { emulator });
      expect(summary).toMatchObject({ ended: 'complete', rows: { read: 3, ok: 3, failed: 0 } });
      expect(emulator.stats().byInterface.elevation?.byOutcome['429']).toBeGreaterThan(before);
    } finally {
      emulator.setFaults({});
    }
  });
});
