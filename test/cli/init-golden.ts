/**
 * Golden job files: what `geobatch init` writes for the inputs of the init tests, byte for byte as
 * the files under test/cli/init-golden/. After an intended change, regenerate with
 * `GOLDEN_REGEN=1 npx vitest run test/cli/init-*.test.ts` and review the diff before committing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

const GOLDEN = new URL('./init-golden/', import.meta.url);
const REGEN = process.env.GOLDEN_REGEN === '1';

export function expectGolden(name: string, text: string): void {
  const golden = new URL(name, GOLDEN);
  if (REGEN) writeFileSync(golden, text);
  expect(text, name).toBe(readFileSync(golden, 'utf8'));
}
