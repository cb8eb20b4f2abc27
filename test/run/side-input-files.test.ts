/**
 * A file a step reads whole (a matrix's destinations) is never one the run writes: named as the
 * output, it was replaced by the matrix of itself. validate and the run refuse it alike, before
 * anything is sent, and the file is left as it was.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadJobFile } from '../../src/config/load.js';
import { isGeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/index.js';
import { checkJobFiles } from '../../src/run/assemble.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-side-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync(resolve('samples/depots.csv'), join(dir, 'depots.csv'));
copyFileSync(resolve('samples/stores.csv'), join(dir, 'stores.csv'));
symlinkSync(join(dir, 'stores.csv'), join(dir, 'linked.csv'));
const stores = readFileSync(join(dir, 'stores.csv'), 'utf8');

function job(name: string, lines: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `job: matrix\ninput: depots.csv\n${lines}\noptions:\n  destinations: { path: stores.csv, mapping: { id: store_id } }\n`,
  );
  return path;
}

async function refusal(path: string): Promise<unknown> {
  return checkJobFiles(await loadJobFile(path, {})) ?? 'accepted';
}

describe('a file a step reads', () => {
  it('is refused as the output, at validate and at the run, and left as it was', async () => {
    const path = job('over', 'output: stores.csv');
    const error = await refusal(path).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `The run would write ${join(dir, 'stores.csv')}, which is options.destinations (${join(dir, 'stores.csv')}), a file it reads`,
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({ path: 'options.destinations' });
    const run = await runJobFile(path, { emulator: true }).catch((e: unknown) => e);
    expect(isGeobatchError(run) && run.code).toBe('USAGE');
    expect(readFileSync(join(dir, 'stores.csv'), 'utf8')).toBe(stores);
  });

  it('is refused as the error report, and reached through a link', async () => {
    const report = await refusal(job('report', 'output: out.csv\nerrors: stores.csv')).catch(
      (e: unknown) => e,
    );
    expect(isGeobatchError(report) && report.code).toBe('USAGE');
    const linked = await refusal(job('linked', 'output: linked.csv')).catch((e: unknown) => e);
    expect(isGeobatchError(linked) && linked.code).toBe('USAGE');
    expect(isGeobatchError(linked) && linked.context.path).toBe('options.destinations');
  });

  it('names its step in a pipeline, and a file of its own passes', async () => {
    const path = join(dir, 'steps.yaml');
    writeFileSync(
      path,
      'input: depots.csv\noutput: stores.csv\nsteps:\n  - job: elevation\n  - job: matrix\n    options:\n      destinations: { path: stores.csv, mapping: { id: store_id } }\n',
    );
    const error = await refusal(path).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.context.path).toBe('steps[1].options.destinations');
    expect(await refusal(job('fine', 'output: matrix.csv'))).toBe('accepted');
  });
});
