import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/_summary.js';
import { JOB_TEXT_MAX_BYTES, readJobText } from '../../src/config/_job-text.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { GeobatchError, runJobFile } from '../../src/index.js';
import { cli, emulatorEnv } from '../cli/_cli.js';

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

  it('refuses an option it does not take, naming the one meant, before anything is sent', async () => {
    const before = emulator.stats().total;
    const options = { emulator, output: join(dir, 'typo.csv'), concurency: 4 };
    const error = await runJobFile(new URL('jobs/elevation.yaml', ROOT).pathname, options as never).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GeobatchError);
    expect((error as GeobatchError).code).toBe('USAGE');
    expect((error as GeobatchError).message).toMatch(
      /^Unknown option `concurency` of runJobFile \(did you mean `concurrency`\?\); it takes logger, /,
    );
    expect((error as GeobatchError).context).toMatchObject({ field: 'concurency', received: 'concurency' });
    expect(emulator.stats().total).toBe(before);
  });

  it('refuses a drain of no sensible length, before anything is sent', async () => {
    const before = emulator.stats().total;
    const options = { emulator, output: join(dir, 'drain.csv'), drain: { ms: Number.NaN } };
    const error = await runJobFile(new URL('jobs/elevation.yaml', ROOT).pathname, options).catch(
      (e: unknown) => e,
    );
    expect((error as GeobatchError).code).toBe('USAGE');
    expect((error as GeobatchError).context).toEqual({
      field: 'drain.ms',
      expected: 'a number of milliseconds >= 0',
      received: 'NaN',
    });
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

describe('runJobFile: what the job file path names', () => {
  // Its input by absolute path: a piped job file has no directory of its own to read it from.
  const jobText = () =>
    readFileSync(new URL('jobs/elevation.yaml', ROOT), 'utf8').replace(
      /^input: \.\.\//m,
      `input: ${fileURLToPath(ROOT)}`,
    );
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => new Error('resolved') as GeobatchError,
      (e: unknown) => e as GeobatchError,
    );
  const refused = (path: string) => failure(runJobFile(path, { emulator }));

  it('says which file lies in the way of a path under it, as it does a missing one, not ENOTDIR', async () => {
    const file = join(dir, 'plain.yaml');
    writeFileSync(file, jobText());
    for (const under of [join(file, 'x.yaml'), join(file, 'a', 'b.yaml')]) {
      const error = await refused(under);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(`${under}: no such job file: ${file} is a file, not a directory`);
      expect(error.context).toMatchObject({ file: under });
      expect(error.context.hint).toContain(`nothing lies under the file ${file}`);
    }
  });

  it('refuses a device, which has no end (/dev/zero), rather than read it', async () => {
    const error = await refused('/dev/zero');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('/dev/zero: a device, not a job file');
    expect(error.context).toMatchObject({ file: '/dev/zero', received: 'a device' });
  });

  it('reads a named pipe once something writes the job file into it', async () => {
    const fifo = join(dir, 'late.yaml');
    execFileSync('mkfifo', [fifo]);
    const output = join(dir, 'from-fifo.csv');
    const running = runJobFile(fifo, { emulator, output, dryRun: true });
    await new Promise((done) => setTimeout(done, 300));
    writeFileSync(fifo, jobText());
    expect((await running).job).toBe('elevation');
  });

  it('stops waiting for a named pipe nothing opens for writing, and says so', async () => {
    const fifo = join(dir, 'nobody.yaml');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const error = await failure(readJobText(fifo, 'nobody.yaml', { writerWaitMs: 300 }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      'nobody.yaml: a named pipe (FIFO) that nothing opened for writing within 0.3 s',
    );
    expect(error.context).toMatchObject({ file: 'nobody.yaml', received: 'a named pipe without a writer' });
    expect(Date.now() - started).toBeLessThan(5000);
    // The wait it gave up holds nothing: a writer that comes later is read by the next reader.
    const again = readJobText(fifo, 'nobody.yaml', { writerWaitMs: 5000 });
    await writeFile(fifo, 'job: elevation\n');
    expect(await again).toBe('job: elevation\n');
  });

  it('reads a pipe from the shell as it comes: geobatch validate /dev/stdin', async () => {
    const validate = cli(['validate', '/dev/stdin'], emulatorEnv(emulator));
    validate.child.stdin?.end(jobText());
    expect(await validate.exited, validate.err()).toBe(0);
    expect(validate.out()).toMatch(/^\/dev\/stdin: valid elevation job/);
  });

  it('reads the relative paths of a piped job file from the working directory, not from /dev', async () => {
    // jobs/elevation.yaml names its input ../samples/...: from the repository's root, samples/...
    const relative = readFileSync(new URL('jobs/elevation.yaml', ROOT), 'utf8').replace(
      /^input: \.\.\//m,
      'input: ',
    );
    const validate = cli(['validate', '/dev/stdin'], emulatorEnv(emulator), { cwd: fileURLToPath(ROOT) });
    validate.child.stdin?.end(`${relative}cache: out/piped/c.sqlite\n`);
    expect(await validate.exited, validate.err()).toBe(0);
    expect(validate.out()).toMatch(/^\/dev\/stdin: valid elevation job/);
    expect(validate.out()).toContain(
      `input        ${fileURLToPath(new URL('samples/places.csv', ROOT))} (csv)`,
    );
    expect(validate.out()).toContain('every mapped column is in the input');
    expect(validate.out()).toContain(
      `cache        ${fileURLToPath(new URL('out/piped/c.sqlite', ROOT))} (use, from the job file)`,
    );
  });

  it('refuses a file larger than any job file (an input named in its place) before reading it', async () => {
    const big = join(dir, 'big.csv');
    writeFileSync(big, '');
    truncateSync(big, JOB_TEXT_MAX_BYTES + 1);
    const error = await refused(big);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(`${big}: more than 16 MB, too large for a job file (at most 16 MB)`);
    expect(error.context).toMatchObject({ file: big, received: `${JOB_TEXT_MAX_BYTES + 1} bytes` });
  });
});
