import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The engine the suite runs on: `STATUSBOT_TEST_ENGINE=postgres` runs it on PostgreSQL, else on SQLite. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_POSTGRES_URL = process.env.STATUSBOT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh, empty database for one test server: a temporary SQLite file, or a new PostgreSQL database. */
export interface TestDatabase {
  /** What `--db` takes: the file's path, or the database's URL. */
  path: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_ENGINE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'statusbot-test-'));
    return { path: join(dir, 'statusbot.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `statusbot_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    path: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
