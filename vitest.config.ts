import pg from 'pg';
import { configDefaults, defineConfig } from 'vitest/config';
import { PATIENCE_MS, TEST_LIMIT_MS } from './test/helpers/patience.js';

const POSTGRES_URL = process.env.STATUSBOT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether a PostgreSQL server answers at the test URL; the reason when not. */
async function postgresAnswers(): Promise<string | null> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Files named *.unit.test.ts touch no database and run once, in the `unit`
 * project; every other file runs twice: on SQLite, and on PostgreSQL (each test
 * server on a database of its own, copied from a template migrated once per run).
 * Without a PostgreSQL server the second run is skipped with one line, except in
 * CI, where that fails the run.
 */
const UNIT_FILES = 'test/**/*.unit.test.ts';
const engines = ['sqlite'];
const missing = await postgresAnswers();
if (missing === null) engines.push('postgres');
else if (process.env.CI === 'true') throw new Error(`the PostgreSQL tests need a server at ${POSTGRES_URL}: ${missing}`);
else console.log(`PostgreSQL tests skipped: no server answers at ${POSTGRES_URL} (${missing}); set STATUSBOT_TEST_POSTGRES_URL`);

export default defineConfig({
  // Pages are JSX rendered to strings with Preact (as tsconfig.json says for tsc).
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  test: {
    // Limits that only tell a hung test from a slow one (test/helpers/patience.ts): a test waits for
    // the events it asserts, and on a shared machine those come many times slower than on a quiet one.
    testTimeout: TEST_LIMIT_MS,
    hookTimeout: TEST_LIMIT_MS,
    expect: { poll: { timeout: PATIENCE_MS, interval: 20 } },
    // Worker threads start a test file in a fraction of a process's time.
    pool: 'threads',
    // Files run one after another in a worker share its loaded modules: importing the server (Slack's and
    // Discord's libraries, kysely, zod) anew for each file cost more than half of the run. Nothing in src/
    // keeps state in a module that one server could leave to the next, and each test makes its own servers.
    isolate: false,
    // A test waits on a database, a socket or a child process much of its time: four files at once keep two cores busy.
    maxWorkers: 4,
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT_FILES], env: { STATUSBOT_TEST_ENGINE: 'none' } } },
      ...engines.map((engine) => ({
        extends: true as const,
        test: {
          name: engine,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, UNIT_FILES],
          globalSetup: ['test/helpers/template-database.ts'],
          env: { STATUSBOT_TEST_ENGINE: engine, STATUSBOT_TEST_POSTGRES_URL: POSTGRES_URL },
        },
      })),
    ],
  },
});
