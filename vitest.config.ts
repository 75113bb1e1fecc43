import { defineConfig } from 'vitest/config';

const BROWSER = 'test/e2e/ui/**/*.test.ts';
const shared = { testTimeout: 30_000, hookTimeout: 60_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    // Runs once for the whole run (projects below do not extend this config, so they do not repeat it).
    globalSetup: ['test/support/global-setup.ts'],
    ...shared,
    reporters: process.env.CI === 'true' ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
    // The browser suites (headless Chromium, timing-sensitive journeys) run after everything else, one file at a
    // time, so they neither load the other end-to-end suites nor each other.
    projects: [
      { test: { ...shared, name: 'panel', include: ['test/**/*.test.ts'], exclude: [BROWSER, 'node_modules/**'] } },
      { test: { ...shared, name: 'browser', include: [BROWSER], fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
