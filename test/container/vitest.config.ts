import { defineConfig } from 'vitest/config';
import { PATIENCE_MS, TEST_LIMIT_MS } from '../helpers/patience.js';

/** The container image's tests, run by run-container-tests.sh once it has built the image; one file at a time. */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/container/**/*.container-test.ts'],
    testTimeout: TEST_LIMIT_MS,
    hookTimeout: TEST_LIMIT_MS,
    expect: { poll: { timeout: PATIENCE_MS, interval: 50 } },
    fileParallelism: false,
  },
});
