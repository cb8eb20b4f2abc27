/**
 * Golden job files: what `geobatch init` writes for the inputs of the init tests, byte for byte as
 * the files under test/cli/init-golden/. After an intended change, regenerate with
 * `GOLDEN_REGEN=1 npx vitest run test/cli/init-*.test.ts` and review the diff before committing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

const GOLDEN = new URL('./init-golden/', import.meta.url);
const REGEN = process.env.GOLDEN_REGEN === '1';

/**
 * `dir`: the test's temporary directory, which the header's command names when the input was
 * given by its full path; it differs from run to run, so the golden has `TMP` in its place.
 */
export function expectGolden(name: string, text: string, dir?: string): void {
  const golden = new URL(name, GOLDEN);
  const stable = dir === undefined ? text : text.replaceAll(dir, 'TMP');
  if (REGEN) writeFileSync(golden, stable);
  expect(stable, name).toBe(readFileSync(golden, 'utf8'));
}
