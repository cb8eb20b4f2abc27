import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { journalPath } from '../../src/run/checkpoint.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { fakeJob } from '../engine/_fake.js';
import { memoryLogger, tempDir } from '../fixtures/run-helpers.js';

function spec(dir: string): RunSpec {
  return {
    job: fakeJob(),
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output: { path: join(dir, 'out.csv'), format: 'csv' },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 10 },
  };
}

describe('A run over input in the wrong encoding', () => {
  it('refuses to start when the first bytes are not UTF-8: nothing sent, nothing written', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'in.csv'), Buffer.from('id,city\n1,München\n', 'latin1'));
    const run = spec(dir);
    const error = await runJob(run).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isGeobatchError(error) && error.code).toBe('INPUT_ENCODING');
    expect((run.job as ReturnType<typeof fakeJob>).calls).toEqual([]);
    expect(existsSync(journalPath(run.output.path))).toBe(false);
    expect(existsSync(`${run.output.path}.partial`)).toBe(false);
  });

  it('stops at a bad byte found later, keeping nothing: no resume could go on in another encoding', async () => {
    const dir = tempDir();
    const pad = 'x'.repeat(590);
    const rows = ['id,pad'];
    for (let i = 0; i < 2000; i++) rows.push(`${i},${pad}`);
    writeFileSync(
      join(dir, 'in.csv'),
      Buffer.concat([Buffer.from(`${rows.join('\n')}\n`), Buffer.from('2000,Gr\xfcn\n', 'latin1')]),
    );
    const run = spec(dir);
    const summary = await runJob(run);
    expect(summary).toMatchObject({
      ended: 'stopped',
      exitCode: 1,
      error: { code: 'INPUT_ENCODING' },
    });
    expect(summary.error?.message).toMatch(/line 2002/);
    expect(summary.resume.checkpoint).toBeNull();
    expect(existsSync(journalPath(run.output.path))).toBe(false);
    expect(existsSync(`${run.output.path}.partial`)).toBe(false);
    expect(existsSync(run.output.path)).toBe(false);
    // Fixed, a plain run goes (no --resume, no files to delete by hand), and no row is garbled.
    const fixed = await runJob({ ...run, input: { ...run.input, encoding: 'windows-1252' } });
    expect(fixed).toMatchObject({ ended: 'complete', exitCode: 0 });
    const output = readFileSync(run.output.path, 'utf8');
    expect(output).toContain('2000,Grün');
    expect(output).not.toContain('\ufffd');
  });
});
