import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

/** The engine the suite runs on: `STATUSBOT_TEST_ENGINE=postgres` runs it on PostgreSQL, else on SQLite. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_POSTGRES_URL = process.env.STATUSBOT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh database for one test server: a temporary SQLite file, or a new PostgreSQL database. */
export interface TestDatabase {
  /** What `--db` takes: the file's path, or the database's URL. */
  path: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * Whether it holds the schema of every migration (the default: a copy of the run's
   * migrated template), or nothing at all, for tests of the migrations themselves.
   */
  migrated?: boolean;
}

/** The migrated template of this run (made by template-database.ts), or why there is none. */
function template(): string {
  if (process.env.STATUSBOT_TEST_ENGINE === 'none') {
    throw new Error('this file runs in the unit project, which has no database: name it *.test.ts (not *.unit.test.ts) to run it on both engines');
  }
  return inject('templateDatabase');
}

async function onPostgres(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  const from = template();
  if (TEST_ENGINE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'statusbot-test-'));
    const path = join(dir, 'statusbot.db');
    if (migrated) copyFileSync(from, path);
    return { path, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `statusbot_test_${randomBytes(6).toString('hex')}`;
  await onPostgres(migrated ? `create database ${name} template ${from}` : `create database ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return { path: url.toString(), drop: () => onPostgres(`drop database if exists ${name} with (force)`) };
}
