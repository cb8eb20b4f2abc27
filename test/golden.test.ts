/**
 * Golden files: every sample job, run as `geobatch demo` runs it against the embedded emulator,
 * writes its output and its error report byte for byte as the files under test/fixtures/golden/.
 * A change that alters any answer, column, number format or report line shows up here as a diff.
 * After an intended change, regenerate with `GOLDEN_REGEN=1 npx vitest run test/golden.test.ts`
 * and review the diff before committing it.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoResult, runDemo } from '../src/cli/demo.js';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';

const GOLDEN = new URL('./fixtures/golden/', import.meta.url);
const REGEN = process.env.GOLDEN_REGEN === '1';

let emulator: EmulatorHandle;
let dir: string;
let results: DemoResult[];

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = await mkdtemp(join(tmpdir(), 'geobatch-golden-'));
  results = await runDemo({ emulator, output: dir });
});

afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** The files a job wrote that must not change: output and error report (the summary holds timings). */
function written(result: DemoResult): string[] {
  const files: string[] = result.summary.output === null ? [] : [result.summary.output.path];
  if (result.summary.report !== null && result.summary.report.rows > 0)
    files.push(result.summary.report.path);
  return files;
}

describe('golden outputs of every sample job', () => {
  it('covers every job file in jobs/', async () => {
    const jobFiles = (await readdir(new URL('../jobs/', import.meta.url))).filter((f) => f.endsWith('.yaml'));
    expect(results.length).toBe(jobFiles.length);
  });

  it('writes each output and error report byte for byte as its golden file', async () => {
    await mkdir(GOLDEN, { recursive: true });
    const compared: string[] = [];
    for (const result of results) {
      for (const file of written(result)) {
        const actual = await readFile(file, 'utf8');
        const golden = new URL(basename(file), GOLDEN);
        if (REGEN) await writeFile(golden, actual);
        const expected = await readFile(golden, 'utf8');
        expect(actual, `${result.summary.job}: ${basename(file)}`).toBe(expected);
        compared.push(basename(file));
      }
    }
    const goldenFiles = (await readdir(GOLDEN)).sort();
    // A golden file no job writes any more is a stale promise, not a test.
    expect(compared.sort()).toEqual(goldenFiles);
  });
});
