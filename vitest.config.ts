import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that need system programs (GDAL, Chromium) run in `npm run test:system` alone.
    exclude: [...configDefaults.exclude, 'test/system/**'],
    // Many tests start an emulator and spawn the CLI; 2-core CI machines need headroom.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time: most tests wait on processes they spawn (the CLI, the emulator,
    // PostgreSQL), so a 2-core CI machine runs the suite in 715 s rather than 1,131 s one at a
    // time, as vitest did here without the setting.
    maxWorkers: 2,
    // Every test file's temporary files go when it is done (test/fixtures/temp-dirs.ts).
    setupFiles: ['test/fixtures/cleanup.ts'],
    // The JSON report is what .ci/run reads for its last line.
    reporters: ['default', ['json', { outputFile: 'out/vitest-report.json' }]],
  },
});
