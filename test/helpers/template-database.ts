import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated database that test databases start as a copy of: a SQLite file, or a PostgreSQL database's name. */
    templateDatabase: string;
  }
}

async function migrated(path: string): Promise<void> {
  const db = openDatabase({ path });
  try {
    await migrateToLatest(db);
  } finally {
    // Closed, so that SQLite's file holds it all (no -wal beside it) and PostgreSQL can copy it (no one connected).
    await db.destroy();
  }
}

async function onPostgres(url: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * Global setup of an engine's project: the migrations run once per run, into a
 * template; each test database starts as a copy of it (test-database.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = project.config.env ?? {};
  if (env.STATUSBOT_TEST_ENGINE === 'postgres') {
    const url = env.STATUSBOT_TEST_POSTGRES_URL!;
    const name = `statusbot_template_${randomBytes(6).toString('hex')}`;
    await onPostgres(url, `create database ${name}`);
    const templateUrl = new URL(url);
    templateUrl.pathname = `/${name}`;
    await migrated(templateUrl.toString());
    project.provide('templateDatabase', name);
    return () => onPostgres(url, `drop database if exists ${name} with (force)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-template-'));
  const file = join(dir, 'statusbot.db');
  await migrated(file);
  project.provide('templateDatabase', file);
  return async () => rmSync(dir, { recursive: true, force: true });
}
