/**
 * `npm run test:system`: tests that need programs from the system (GDAL, Chromium), kept out of
 * `npm test`, which needs nothing but npm. .ci/run installs the programs and adds this report's
 * counts to the unit tests'.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/system/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Every test file's temporary files go when it is done (test/fixtures/temp-dirs.ts).
    setupFiles: ['test/fixtures/cleanup.ts'],
    reporters: ['default', ['json', { outputFile: 'out/vitest-system-report.json' }]],
  },
});
